"""Where a cell's variance lives: within a process, between processes, between layouts.

A run whose rounds rotated over layout variants (`--layouts K`, Plan.layouts) holds a
nested design: samples within a process, processes within a layout variant, variants
within a cell. On the logs (so that every part is a relative spread), per cell:

- within a process: the pooled standard deviation of the samples of a process;
- between processes: the standard deviation of the process medians within one variant
  (the one-way analysis of variance's mean square within, which also carries the small
  share of the sample noise that a median of a few samples keeps);
- between layouts: what the variants' means spread beyond what that process noise
  explains, sigma_L^2 = (MS_between - MS_within) / n0 (the method of moments for an
  unbalanced one-way random-effects model; 0 where negative), with the F test's p
  (scipy.stats.f_oneway) of "the variants differ at all".

This is the dimensioning experiment's arithmetic (docs/methodology.md, "Layout
variants"), and a table of every report of a run with variants.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Components:
    layouts: int  # variants with at least two processes
    processes: int
    within: float  # relative standard deviations (of the logs)
    between_processes: float
    between_layouts: float
    p: float  # F test of the layouts' effect; NaN where it cannot be made

    @property
    def share_layouts(self) -> float:
        """The between-layout part of a process's total variance."""
        total = self.between_processes**2 + self.between_layouts**2
        return self.between_layouts**2 / total if total else 0.0


def decompose(by_layout: dict[int, list[list[float]]]) -> Components | None:
    """The components of one cell's metric from its processes' samples, by the layout
    variant each process ran; None where fewer than two variants have two processes."""
    from scipy.stats import f_oneway

    groups = {
        k: [np.log(np.asarray(p, dtype=float)) for p in ps if len(p)] for k, ps in by_layout.items()
    }
    groups = {k: ps for k, ps in groups.items() if len(ps) >= 2}
    if len(groups) < 2:
        return None
    procs = [p for ps in groups.values() for p in ps]
    within = [np.var(p, ddof=1) for p in procs if len(p) > 1]
    medians = [np.array([np.median(p) for p in ps]) for ps in groups.values()]
    n = np.array([len(m) for m in medians], dtype=float)
    big_n, k = n.sum(), len(medians)
    grand = np.concatenate(medians).mean()
    ms_within = sum(((m - m.mean()) ** 2).sum() for m in medians) / (big_n - k)
    ms_between = sum(len(m) * (m.mean() - grand) ** 2 for m in medians) / (k - 1)
    n0 = (big_n - (n**2).sum() / big_n) / (k - 1)
    layout_var = max(0.0, (ms_between - ms_within) / n0)
    p = float(f_oneway(*medians).pvalue) if ms_within > 0 else math.nan
    return Components(
        layouts=k,
        processes=int(big_n),
        within=float(math.sqrt(np.mean(within))) if within else 0.0,
        between_processes=float(math.sqrt(ms_within)),
        between_layouts=float(math.sqrt(layout_var)),
        p=p,
    )


def pooled(parts: list[Components]) -> Components:
    """Several cells' components together (one driver's, say): each part the root of the
    mean of the cells' variances, and the cells' F tests combined by Fisher's method
    (scipy.stats.combine_pvalues): are the layouts of this driver felt at all?"""
    from scipy.stats import combine_pvalues

    def rms(values) -> float:
        return float(math.sqrt(np.mean(np.square(values))))

    ps = [c.p for c in parts if c.p == c.p]
    return Components(
        layouts=max(c.layouts for c in parts),
        processes=sum(c.processes for c in parts),
        within=rms([c.within for c in parts]),
        between_processes=rms([c.between_processes for c in parts]),
        between_layouts=rms([c.between_layouts for c in parts]),
        p=float(combine_pvalues(ps).pvalue) if ps else math.nan,
    )


def by_layout(rounds: dict[int, list[float]], layouts: dict[int, int]) -> dict[int, list]:
    """A metric's samples by round, regrouped by the layout variant each round ran."""
    out: dict[int, list] = {}
    for rep, samples in rounds.items():
        if rep in layouts:
            out.setdefault(layouts[rep], []).append(samples)
    return out
