"""Statistics over a cell's samples: median, bootstrap confidence interval, min, spread.

A cell's samples come in groups, one group per process. Processes differ (memory layout,
ASLR, what else the machine did), so the confidence interval comes from a two-level
bootstrap: resample the processes, then the samples within each chosen process. With
few processes this interval is honest rather than narrow.

Ratios between two cells of one run are paired by process: the runner interleaves cells,
so the n-th process of every cell ran in the same round, close in time, and a drift of the
machine between rounds (on a shared VM, 10-25% over minutes) touches both sides of the
ratio alike. The bootstrap resamples rounds, the same ones on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BOOTSTRAP = 2000
CONFIDENCE = 0.95
SPREAD_LIMIT = 0.05  # cells whose relative spread exceeds this are marked as noisy


@dataclass(frozen=True)
class Summary:
    median: float
    low: float  # 95% confidence interval of the median
    high: float
    min: float
    spread: float  # interquartile range over the median, across all samples
    n_samples: int
    n_processes: int

    @property
    def noisy(self) -> bool:
        return self.spread > SPREAD_LIMIT


def _rng(seed: int = 0x5EED) -> np.random.Generator:
    # A fixed seed: the same stored samples always give the same report.
    return np.random.default_rng(seed)


def bootstrap_medians(
    groups: list[list[float]], rng: np.random.Generator, picked: np.ndarray | None = None
) -> np.ndarray:
    """BOOTSTRAP medians of two-level resamples (processes, then samples in each).

    `picked` (BOOTSTRAP x processes) chooses the processes of each resample; a paired
    ratio passes the same choice for both cells."""
    arrays = [np.asarray(g, dtype=float) for g in groups if len(g)]
    n_groups = len(arrays)
    sizes = np.array([len(a) for a in arrays])
    flat = np.concatenate(arrays)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    # Pick groups, then a sample index within each picked group, all vectorised.
    if picked is None:
        picked = rng.integers(0, n_groups, size=(BOOTSTRAP, n_groups))
    per_group = sizes.max()
    within = rng.random((BOOTSTRAP, n_groups, per_group))
    idx = offsets[picked][..., None] + (within * sizes[picked][..., None]).astype(int)
    # Groups smaller than the largest: keep only their own sample count (mask the rest).
    mask = np.arange(per_group)[None, None, :] < sizes[picked][..., None]
    values = np.where(mask, flat[idx], np.nan).reshape(BOOTSTRAP, -1)
    return np.nanmedian(values, axis=1)


def summarize(groups: list[list[float]]) -> Summary:
    """Summary of per-iteration times (or any values), grouped by process."""
    flat = np.concatenate([np.asarray(g, dtype=float) for g in groups if len(g)])
    median = float(np.median(flat))
    q1, q3 = np.percentile(flat, [25, 75])
    if len(flat) > 1:
        meds = bootstrap_medians(groups, _rng())
        alpha = (1 - CONFIDENCE) / 2
        low, high = (float(v) for v in np.quantile(meds, [alpha, 1 - alpha]))
    else:
        low = high = median
    return Summary(
        median=median,
        low=low,
        high=high,
        min=float(flat.min()),
        spread=float((q3 - q1) / median) if median else 0.0,
        n_samples=int(len(flat)),
        n_processes=sum(1 for g in groups if len(g)),
    )


@dataclass(frozen=True)
class Ratio:
    value: float  # median(a) / median(b)
    low: float
    high: float


def ratio(a: list[list[float]], b: list[list[float]]) -> Ratio:
    """The ratio of two cells' medians with a bootstrap confidence interval, paired by
    process (round) when both cells have the same number of processes."""
    rng = _rng()
    a = [g for g in a if len(g)]
    b = [g for g in b if len(g)]
    picked = None
    if len(a) == len(b):
        picked = rng.integers(0, len(a), size=(BOOTSTRAP, len(a)))
    ma, mb = bootstrap_medians(a, rng, picked), bootstrap_medians(b, rng, picked)
    alpha = (1 - CONFIDENCE) / 2
    low, high = np.quantile(ma / mb, [alpha, 1 - alpha])
    value = float(np.median(np.concatenate([np.asarray(g, float) for g in a]))) / float(
        np.median(np.concatenate([np.asarray(g, float) for g in b]))
    )
    return Ratio(value, float(low), float(high))
