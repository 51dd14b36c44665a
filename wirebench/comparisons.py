"""The report's comparisons across the cells of one run: two implementations side by
side, the headline tables, every language against the baseline, the A/A noise floor, and
tuned builds against stock."""

from __future__ import annotations

import numpy as np

from . import charts, registry, stats
from .headline import (
    HEADLINE_WIDTH,
    HeadlineRatio,
    cells_by_lang,
    cells_grouped,
    headline_ratios,
    is_single,
    single_langs,
)
from .model import CellResult, Table, fmt_summary, ratio
from .suite import Suite, compared_metrics, param_columns


class CompareError(ValueError):
    pass


def ratio_cell(q: stats.Ratio, a: CellResult | None = None, b=None, metric="") -> str:
    """A ratio with its interval; beside a time ratio of cells A and B, their instruction
    ratio where both were counted (instr_note)."""
    text = q.text()
    return text if a is None else text + instr_note([(a, b)], metric)


def instr_note(pairs: list[tuple[CellResult, CellResult]], metric: str) -> str:
    """` (instr X)`: the geometric mean of the pairs' instruction ratios, an exact figure
    (no interval) beside a time ratio, so that a reader sees when a time difference is
    noise; empty unless every pair was counted. Not beside the count itself, nor for
    suites that compare several operations: a cell's count covers all of them."""
    if metric == "instructions" or registry.of(pairs[0][0].cell).compared:
        return ""
    if not all("instructions" in a.metrics and "instructions" in b.metrics for a, b in pairs):
        return ""
    ratios = [a.summary("instructions").median / b.summary("instructions").median for a, b in pairs]
    return f" (instr {stats.geomean(ratios):.2f})"


def _metric_title(suite: Suite, metric: str) -> str:
    """A compared metric's name in a title: the suite's name where it compares several."""
    return f"{suite.name} {metric}" if suite.compared else metric


def compare_tables(results: list[CellResult], a: str, b: str) -> list[Table]:
    """Side by side, the way the published comparisons are drawn: every cell of A beside
    the same cell of B, and A/B of the suite's primary metric with its 95% interval,
    paired by round. A and B are two drivers (rust:cpp, or cpp-clang++:cpp: same library,
    same parameters) or two libraries (capnp:protobuf: same driver, same parameters)."""
    langs = {r.cell.driver_id for r in results}
    libs = {r.cell.lib for r in results}
    if {a, b} <= langs:
        by, other = "driver_id", "lib"
    elif {a, b} <= libs:
        by, other = "lib", "lang"
    else:
        raise CompareError(
            f"--compare takes two languages ({', '.join(sorted(langs))}) or two libraries "
            f"({', '.join(sorted(libs))}) of the run, not {a}:{b}"
        )
    tables = []
    for suite in registry.SUITES.values():
        if suite.accompanies_every_run:
            continue
        sides = cells_grouped(
            [r for r in results if is_single(r)],
            suite,
            lambda c: getattr(c, by),
            lambda c: (
                (c.case, getattr(c, other), c.params) + ((c.toolchain,) if by == "lib" else ())
            ),
        )
        names = param_columns(suite, results)
        for metric in compared_metrics(suite, results):
            rows = []
            for key, ra in sides.get(a, {}).items():
                rb = sides.get(b, {}).get(key)
                if rb is None or metric not in ra.metrics or metric not in rb.metrics:
                    continue
                ma, mb = ra.metric(metric), rb.metric(metric)
                q = ratio(ma, mb)
                rows.append(
                    (
                        registry.sort_key(ra.cell),
                        [
                            ra.cell.case,
                            getattr(ra.cell, other),
                            *(ra.cell.param.get(n, "") for n in names),
                            fmt_summary(ma.summary, ma.unit),
                            fmt_summary(mb.summary, mb.unit),
                            ratio_cell(q, ra, rb, metric),
                        ],
                    )
                )
            if rows:
                tables.append(
                    Table(
                        title=f"{a} against {b}: {_metric_title(suite, metric)} per iteration, "
                        f"and {a}/{b} (below 1: {a} faster)",
                        headers=["case", other, *names, a, b, f"{a}/{b}"],
                        rows=[row for _, row in sorted(rows)],
                    )
                )
    if not tables:
        raise CompareError(f"no cell of the run has both a {a} and a {b} side")
    return tables


def headline_tables(results: list[CellResult], base: str) -> list[Table]:
    """The run in two tables of headline_ratios: the headline, one row per suite, compared
    metric and build over all of the suite's libraries, and the same per library. `!`
    marks an interval wider than ±5%; where both sides were counted, the same mean of
    instruction ratios stands beside the time ratio."""
    langs = sorted(single_langs(results) - {base})
    tables = []
    overall: dict[bool, dict[tuple, dict[str, HeadlineRatio]]] = {True: {}, False: {}}
    for h in headline_ratios(results, base):
        overall[h.overall].setdefault((h.suite, h.metric, h.lib, h.build), {})[h.lang] = h
    for whole, title in (
        (
            True,
            f"Headline: every language against {base}, per suite over all its libraries: the "
            f"geometric mean, over the same cells and their rounds, of the ratio of a process "
            f"to {base}'s process of the same round, with a 95% interval; ! marks an interval "
            "wider than ±5% (below 1: faster); cells: how many cells each language's ratio "
            "is over (one number: the same for every language)",
        ),
        (
            False,
            f"The headline per library: each library's cells alone, the same geometric mean "
            f"of ratios to {base} (fewer cells: wider intervals; ! wider than ±5%)",
        ),
    ):
        rows = overall[whole]
        if rows:
            tables.append(
                Table(
                    title,
                    ["suite", "metric", "lib", "build", "cells"]
                    + [f"{lang}/{base}" for lang in langs],
                    [
                        [*row, _cell_counts(by)]
                        + [_headline_cell(by[lang]) if lang in by else "-" for lang in langs]
                        for row, by in rows.items()
                    ],
                )
            )
    for suite in registry.SUITES.values():
        mine = [r for r in results if r.cell.suite == suite.name]
        if mine:
            tables += suite.headline_tables(mine, base)
    return tables


def headline_chart(ratios: list[HeadlineRatio], base: str) -> bytes | None:
    """The headline as one chart: per suite and compared metric (one row each), every
    language's ratio to the base over all the suite's libraries, with its 95% interval,
    on a log scale around 1 (left of it: faster than the base), from the run's
    headline_ratios(..., overall_only=True). None: no headline."""
    rows: dict[tuple, dict[str, HeadlineRatio]] = {}
    for h in ratios:
        if h.overall:
            rows.setdefault((h.suite, h.metric, h.build), {})[h.lang] = h
    if not rows:
        return None
    langs = sorted({lang for by in rows.values() for lang in by})
    fig, axes = charts.figure(7.5, 0.45 * len(rows) + 1.2)
    ax = axes[0][0]
    labels = [
        f"{suite} {metric}" + (f" ({build})" if build != "stock" else "")
        for suite, metric, build in rows
    ]
    step = 0.8 / max(1, len(langs))
    # A second driver of a language (cpp-clang++, d-gdc) gets a colour no language has.
    spare = iter(["C2", "C4", "C6", "C8", "C7"] * len(langs))
    for i, lang in enumerate(langs):
        ys, xs, lows, highs = [], [], [], []
        for n, by in enumerate(rows.values()):
            if lang in by:
                q = by[lang].ratio
                ys.append(n + (i - (len(langs) - 1) / 2) * step)
                xs.append(q.value)
                lows.append(q.low)
                highs.append(q.high)
        err = charts.whiskers(xs, lows, highs)
        colour = charts.COLOURS.get(lang) or next(spare)
        ax.errorbar(xs, ys, xerr=err, fmt="o", capsize=3, color=colour, label=lang)
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"ratio to {base} (geometric mean, 95% interval; below 1: faster)")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return charts.svg(fig)


def _cell_counts(by: dict[str, HeadlineRatio]) -> str:
    """The cells each language's ratio is over: one number when every language has the
    same count, else each language's, so that a language paired on fewer cells (only
    its floor, say) shows."""
    counts = {lang: len(h.pairs) for lang, h in sorted(by.items())}
    if len(set(counts.values())) == 1:
        return str(next(iter(counts.values())))
    return ", ".join(f"{lang} {n}" for lang, n in counts.items())


def _headline_cell(h: HeadlineRatio) -> str:
    wide = " !" if h.width > HEADLINE_WIDTH else ""
    return ratio_cell(h.ratio) + wide + instr_note(list(h.pairs), h.metric)


def against_tables(results: list[CellResult], base: str) -> list[Table]:
    """Every language against one (the C++ reference by default): each cell of the
    baseline with its median, and beside it every other language's for the same library
    and parameters as a ratio to it, paired by round. Cross-language pipe pairs are left
    out: they belong to no single language."""
    langs = sorted(single_langs(results))
    if base not in langs:
        raise CompareError(
            f"--against takes a language of the run ({', '.join(langs)}), not {base!r}"
        )
    others = [lang for lang in langs if lang != base]
    tables = []
    for suite in registry.SUITES.values():
        if suite.accompanies_every_run:
            continue
        by_lang = cells_by_lang(results, suite)
        names = param_columns(suite, results)
        for metric in compared_metrics(suite, results):
            rows = []
            for key, rb in by_lang.get(base, {}).items():
                if metric not in rb.metrics:
                    continue
                mb = rb.metric(metric)
                row = [
                    rb.cell.case,
                    rb.cell.lib,
                    *(rb.cell.param.get(n, "") for n in names),
                    fmt_summary(mb.summary, mb.unit),
                ]
                for lang in others:
                    r = by_lang.get(lang, {}).get(key)
                    if r is None or metric not in r.metrics:
                        row.append("-")
                        continue
                    q = ratio(r.metric(metric), mb)
                    row.append(ratio_cell(q, r, rb, metric))
                rows.append((registry.sort_key(rb.cell), row))
            if rows:
                tables.append(
                    Table(
                        title=f"Languages against {base}: {base}'s "
                        f"{_metric_title(suite, metric)} per iteration, every other "
                        f"language's as a ratio to it (below 1: faster than {base})",
                        headers=["case", "lib", *names, base]
                        + [f"{lang}/{base}" for lang in others],
                        rows=[row for _, row in sorted(rows)],
                    )
                )
    if not tables:
        raise CompareError(f"the run has no cell of {base}")
    return tables


Floors = dict[tuple[str, str], float]  # (suite, metric) -> the A/A noise floor


def aa_table(results: list[CellResult]) -> tuple[Table | None, Floors]:
    """Each A/A twin against its cell (the same work, measured twice in one run), and the
    run's noise floor per suite and metric: the median distance from 1 of its twins'
    ratios (none without twins). The median, not the largest: one erratic pair (a JVM
    cell whose JIT struck in one process) would otherwise hide every difference."""
    by_key = {r.cell.key: r for r in results}
    rows, deviations = [], {}
    for twin in (r for r in results if "twin" in r.cell.param):
        first = by_key.get(twin.cell.with_param("twin", None).key)
        if first is None or not (twin.ok and first.ok):
            continue
        for metric in compared_metrics(registry.of(twin.cell), [first]):
            if metric in twin.metrics:
                q = ratio(twin.metric(metric), first.metric(metric))
                deviations.setdefault((twin.cell.suite, metric), []).append(abs(q.value - 1))
                rows.append([first.cell.key, metric, ratio_cell(q)])
    if not rows:
        return None, {}
    table = Table(
        "A/A: cells measured twice in this run, the second time over the first (should be 1)",
        ["cell", "metric", "twin/first"],
        rows,
    )
    return table, {k: float(np.median(v)) for k, v in deviations.items()}


def differs(q: stats.Ratio, floor: float) -> bool:
    """A ratio that is a difference: its interval excludes 1, and it is farther from 1
    than the run's A/A noise floor."""
    return (q.high < 1 or q.low > 1) and abs(q.value - 1) > floor


AA_READING = (
    "A/A twins are cells measured twice in one run: their ratios show the run's noise. "
    "Per suite and metric, their median distance from 1 is the noise floor ({floors}): a "
    "ratio is called a difference "
    "only if its interval excludes 1 and it is farther from 1 than that."
)


def build_tables(results: list[CellResult], floors: Floors | None = None) -> list[Table]:
    """What each language gains from the tuned build over the stock one: every cell run in
    both builds with tuned/stock of each compared metric, paired by round, and per suite
    and language the geometric mean of those ratios, their range, and how many cells are
    faster, slower, or show no difference (interval holding 1, or within the A/A floor)."""
    per_cell, summary = [], []
    for suite in registry.SUITES.values():
        if suite.accompanies_every_run:
            continue
        by_build = cells_grouped(
            results,
            suite,
            lambda c: c.build,
            lambda c: (c.case, c.impl, c.work),
        )
        names = [n for n in param_columns(suite, results) if n != "build"]
        for metric in compared_metrics(suite, results):
            title = _metric_title(suite, metric)
            rows, gains = [], {}
            for key, rs in by_build.get("stock", {}).items():
                rt = by_build.get("tuned", {}).get(key)
                if rt is None or metric not in rs.metrics or metric not in rt.metrics:
                    continue
                ms, mt = rs.metric(metric), rt.metric(metric)
                q = ratio(mt, ms)
                gains.setdefault(rs.cell.driver_id, []).append(q)
                row = [rs.cell.case, rs.cell.impl, *(rs.cell.param.get(n, "") for n in names)]
                row += [fmt_summary(ms.summary, ms.unit), fmt_summary(mt.summary, mt.unit)]
                rows.append((registry.sort_key(rs.cell), [*row, ratio_cell(q, rt, rs, metric)]))
            if rows:
                per_cell.append(
                    Table(
                        f"Tuned against stock: {title} per iteration in each build, and "
                        "tuned/stock (below 1: the tuned build is faster)",
                        ["case", "impl", *names, "stock", "tuned", "tuned/stock"],
                        [row for _, row in sorted(rows)],
                    )
                )
            floor = (floors or {}).get((suite.name, metric), 0.0)
            for lang, qs in sorted(gains.items()):
                values = np.array([q.value for q in qs])
                summary.append(
                    [
                        title,
                        lang,
                        str(len(qs)),
                        f"{stats.geomean(values):.2f}",
                        f"{values.min():.2f}-{values.max():.2f}",
                        str(sum(q.value < 1 and differs(q, floor) for q in qs)),
                        str(sum(q.value > 1 and differs(q, floor) for q in qs)),
                        str(sum(not differs(q, floor) for q in qs)),
                        f"{floor:.1%}" if floors else "-",
                    ]
                )
    if not summary:
        return []
    head = Table(
        "What the tuned build gains over stock, per suite and language: the geometric mean "
        "of the cells' tuned/stock ratios and their range; cells faster, slower, or with no "
        "difference (the 95% interval holds 1, or the ratio is within the A/A noise floor)",
        [
            "metric",
            "lang",
            "cells",
            "geomean",
            "range",
            "faster",
            "slower",
            "no difference",
            "A/A floor",
        ],
        summary,
    )
    return [head, *per_cell]
