"""The headline statistic: each language against the baseline over the same cells, per
suite, metric, library and build, as a geometric mean of ratios paired by round.

The report's headline tables show it; adaptive repetition (adaptive.py) sizes its second
stage from its widths. It reads the result model only, so it works on results in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from . import model, registry, stats
from .model import CellResult, geomean_log
from .suite import compared_metrics

BASELINE = "cpp"  # the reference implementation every language is read against


def cells_grouped(results: list[CellResult], suite, group, key) -> dict[str, dict]:
    """The suite's cells with a number, by group(cell), each keyed by key(cell): the two
    sides of a comparison, matched by key."""
    out: dict[str, dict] = {}
    for r in results:
        if r.cell.suite == suite.name and r.ok:
            out.setdefault(group(r.cell), {})[key(r.cell)] = r
    return out


def cells_by_lang(results: list[CellResult], suite) -> dict[str, dict]:
    """Single-language cells by driver (a language, or a language and a compiler that is
    not its primary one: cpp-clang++), keyed by case, library and parameters."""
    single = [r for r in results if is_single(r)]
    return cells_grouped(single, suite, lambda c: c.driver_id, lambda c: (c.case, c.lib, c.params))


def is_single(r: CellResult) -> bool:
    """Not a cross-language pair: a cell that belongs to one implementation."""
    return r.cell.server_lang in (None, r.cell.lang)


def single_langs(results: list[CellResult]) -> set[str]:
    """The drivers with cells of their own (not only cross-language pairs)."""
    return {
        r.cell.driver_id
        for r in results
        if not registry.SUITES[r.cell.suite].accompanies_every_run and is_single(r)
    }


HEADLINE_WIDTH = 0.05  # a headline ratio's interval should lie within ±5% of it


@dataclass(frozen=True)
class HeadlineRatio:
    """One ratio of the headline table: a language against the baseline over the cells
    of one suite, metric, library (or "all") and build."""

    suite: str
    metric: str
    lib: str
    build: str
    lang: str
    pairs: tuple[tuple[CellResult, CellResult], ...]  # (the language's cell, the baseline's)
    log: stats.LogRatio  # its mean log, standard error and degrees of freedom
    overall: bool  # over every library of the suite (the headline), not one of several

    @cached_property
    def ratio(self) -> stats.Ratio:
        return self.log.ratio()[0]

    @property
    def width(self) -> float:
        """The interval's larger half-width, relative to the ratio (inf: none)."""
        return self.ratio.width

    @property
    def keys(self) -> set[str]:
        """Every cell the ratio reads, on both sides."""
        return {r.cell.key for pair in self.pairs for r in pair}


def headline_ratios(
    results: list[CellResult], base: str, overall_only: bool = False
) -> list[HeadlineRatio]:
    """Per suite, build, compared metric and library (and every library together, "all"),
    each language against the baseline over the same cells on both sides, as the
    geometric mean of the ratios of their processes round by round
    (stats.paired_geomean_log: its standard error from what the rounds show, the cells
    added within each round and each cluster of rounds that share a layout).
    The headline table shows them; adaptive repetition (adaptive.py) reads their widths."""
    langs = sorted(single_langs(results) - {base})
    ratios = []
    for suite in registry.SUITES.values():
        if suite.accompanies_every_run:
            continue
        for build, same in model.per_build(results):
            by_lang = cells_by_lang(same, suite)
            base_cells = by_lang.get(base, {})
            libs = sorted({k[1] for k in base_cells}, key=suite.lib_rank)
            for metric in compared_metrics(suite, same):
                for lib in [*libs, "all"] if len(libs) > 1 else libs:
                    if overall_only and lib != "all" and len(libs) > 1:
                        continue
                    for lang in langs:
                        pairs = tuple(
                            (r, base_cells[k])
                            for k, r in by_lang.get(lang, {}).items()
                            if lib in (k[1], "all")
                            and k in base_cells
                            and metric in r.metrics
                            and metric in base_cells[k].metrics
                        )
                        if pairs:
                            q = geomean_log(
                                [(a.metric(metric), b.metric(metric)) for a, b in pairs]
                            )
                            ratios.append(
                                HeadlineRatio(
                                    suite.name,
                                    metric,
                                    lib,
                                    build or "-",
                                    lang,
                                    pairs,
                                    q,
                                    overall=lib == "all" or len(libs) == 1,
                                )
                            )
    return ratios
