"""Reports: a model of what a stored run's numbers are, and its renderers.

`build` loads a run into a `Report`: every cell with its metrics (per-iteration samples
by round, scalars, histograms) and their summaries, and the tables, each suite
contributing its own section (`Suite.tables`) after the comparisons that span suites.
The renderers (terminal, Markdown and JSON here, the HTML site in html.py) only lay a
Report out.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from . import stats, suites
from .cells import Cell, Plan, sort_key
from .drivers import BUILDS

# -- the model ---------------------------------------------------------------------------------


@dataclass
class MetricData:
    """One metric of one cell over its processes. Samples are per iteration (the driver's
    totals divided by its iteration count), by round (the process's rep)."""

    name: str
    unit: str
    kind: str
    iters: int | None = None
    rounds: dict[int, list[float]] = field(default_factory=dict)  # samples and scalars
    histograms: dict[int, str] = field(default_factory=dict)
    pilot: int | None = None  # the run's pilot, if a second stage was sized (Plan.pilot)

    @property
    def groups(self) -> list[list[float]]:
        return [self.rounds[r] for r in sorted(self.rounds)]

    @cached_property
    def summary(self) -> stats.Summary | None:
        return stats.summarize(self.groups) if self.rounds else None

    @cached_property
    def percentiles(self) -> list[stats.Percentile]:
        return stats.percentiles([self.histograms[r] for r in sorted(self.histograms)])


@dataclass
class CellResult:
    cell: Cell
    status: str
    error: str | None
    iters: int
    metrics: dict[str, MetricData]
    cpu_ns: int | None
    max_rss_kb: int | None
    steal: float | None = None  # the largest share of a process's wall time stolen
    other_load: float | None = None  # the largest other load (CPUs) while a process ran
    # The layout variant of each round; with seeded addresses, (variant, address seed).
    layouts: dict[int, int | tuple[int, int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.metrics)

    def metric(self, name: str) -> MetricData:
        return self.metrics[name]

    def summary(self, name: str) -> stats.Summary:
        return self.metrics[name].summary


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]
    suite: str | None = None  # a suite's own table; None: one that spans suites


@dataclass
class Report:
    run: dict
    provenance: dict
    results: list[CellResult]
    tables: list[Table]
    readings: list[str]  # how to read the tables, one paragraph per suite shown
    noisy: list[CellResult]
    errors: list[CellResult]
    pending: list[CellResult]
    # Files written beside the report (charts, interval logs), by relative name.
    attachments: dict[str, bytes] = field(default_factory=dict)

    @property
    def files_dir(self) -> str:
        """The directory the attachments go in, beside the report's Markdown."""
        return f"report-{self.run['id']}"


class CompareError(ValueError):
    pass


def load(store, run_id: int) -> list[CellResult]:
    row = store.run(run_id)
    plan = Plan.from_json(json.loads(row["plan"])) if row and row["plan"] else None
    pilot = plan.pilot if plan else None
    metrics: dict[str, dict[str, MetricData]] = {}
    for m in store.metrics(run_id):
        per_cell = metrics.setdefault(m["key"], {})
        d = per_cell.setdefault(
            m["name"], MetricData(m["name"], m["unit"], m["kind"], m["iters"], pilot=pilot)
        )
        data = json.loads(m["data"])
        if m["kind"] == "samples":
            d.rounds[m["rep"]] = [v / m["iters"] for v in data]
        elif m["kind"] == "scalar":
            d.rounds[m["rep"]] = [data]
        else:
            d.histograms[m["rep"]] = data
    layouts = store.layouts(run_id)
    if plan and plan.address_seeds:  # a process's layout is then its code and its addresses
        layouts = {
            key: {rep: (k, plan.address_seed(rep)) for rep, k in by_rep.items()}
            for key, by_rep in layouts.items()
        }
    results = []
    for row in store.cells(run_id):
        cell = Cell.make(
            row["suite"],
            row["case"],
            row["lang"],
            row["lib"],
            json.loads(row["params"]),
            row["server_lang"],
            row["toolchain"],
        )
        ok = row["status"] == "ok"
        results.append(
            CellResult(
                cell=cell,
                status=row["status"],
                error=row["error"],
                iters=row["iters"],
                metrics=metrics.get(row["key"], {}) if ok else {},
                cpu_ns=row["cpu_ns"],
                max_rss_kb=row["max_rss_kb"],
                steal=row["steal"],
                other_load=row["other_load"],
                layouts=layouts.get(row["key"], {}),
            )
        )
    return sorted(results, key=lambda r: sort_key(r.cell))


def ratio(a: MetricData, b: MetricData) -> stats.Ratio:
    """A/B of one metric of two cells of one run, paired by round (stats.paired_ratio)."""
    return stats.paired_ratio(a.rounds, b.rounds, a.pilot)


def geomean_log(pairs: list[tuple[MetricData, MetricData]]) -> stats.LogRatio:
    """The geometric mean of several cells' paired A/B (stats.paired_geomean_log)."""
    return stats.paired_geomean_log([(a.rounds, b.rounds) for a, b in pairs], pairs[0][0].pilot)


# -- formatting --------------------------------------------------------------------------------


def fmt_time(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "-"
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def fmt_value(v: float, unit: str) -> str:
    if unit == "ns":
        return fmt_time(v)
    if unit == "B":
        return fmt_bytes(v)
    return f"{v:.4g} {unit}"


def fmt_ratio(q: stats.Ratio) -> str:
    return q.text(x="x")


def fmt_summary(s: stats.Summary, unit: str) -> str:
    return f"{fmt_value(s.median, unit)} [{s.interval(lambda v: fmt_value(v, unit))}]"


# -- tables any suite gets --------------------------------------------------------------------


def _metric_cells(spec: suites.MetricSpec, r: CellResult) -> list[str]:
    if not r.ok:
        return [""]
    m = r.metric(spec.name)
    if spec.kind == "histogram":
        return [
            "; ".join(
                f"p{p.percentile:g} {fmt_value(p.value, m.unit)} "
                f"[{fmt_value(p.low, m.unit)}-{fmt_value(p.high, m.unit)}]"
                for p in m.percentiles
            )
        ]
    s = m.summary
    return [fmt_summary(s, m.unit) + (" !" if s.noisy else "")]


def param_columns(suite: suites.Suite, results: list[CellResult]) -> list[str]:
    """The suite's parameters that the run's cells carry (a run stored before `build`
    existed has none), in the suite's order."""
    return [n for n in suite.param_names() if any(n in r.cell.param for r in results)]


def generic_tables(suite: suites.Suite, results: list[CellResult]) -> list[Table]:
    """One table per case: every metric's median (per iteration) with its interval, or
    a histogram's percentiles with theirs."""
    tables = []
    names = param_columns(suite, results)
    for case in suite.cases:
        rows = []
        for r in (r for r in results if r.cell.case == case):
            row = [r.cell.impl, *(r.cell.param.get(n, "") for n in names)]
            row += [r.status.upper() if not r.ok else "ok"]
            for spec in suite.metrics:
                row += _metric_cells(spec, r)
            rows.append(row)
        if rows:
            metric_heads = [f"{m.name} ({m.unit})" for m in suite.metrics]
            tables.append(
                Table(f"{suite.name} / {case}", ["impl", *names, "status", *metric_heads], rows)
            )
    return tables


def _ratio_cell(q: stats.Ratio, a: CellResult | None = None, b=None, metric="") -> str:
    """A ratio with its interval; beside a time ratio of cells A and B, their instruction
    ratio where both were counted (_instr_note)."""
    text = q.text()
    return text if a is None else text + _instr_note([(a, b)], metric)


def _instr_note(pairs: list[tuple[CellResult, CellResult]], metric: str) -> str:
    """` (instr X)`: the geometric mean of the pairs' instruction ratios, an exact figure
    (no interval) beside a time ratio, so that a reader sees when a time difference is
    noise; empty unless every pair was counted. Not beside the count itself, nor for
    suites that compare several operations: a cell's count covers all of them."""
    if metric == "instructions" or pairs[0][0].cell.spec.compared:
        return ""
    if not all("instructions" in a.metrics and "instructions" in b.metrics for a, b in pairs):
        return ""
    ratios = [a.summary("instructions").median / b.summary("instructions").median for a, b in pairs]
    return f" (instr {stats.geomean(ratios):.2f})"


def compared_metrics(suite: suites.Suite, results: list[CellResult]) -> tuple[str, ...]:
    """The metrics the run's cells of a suite are compared on: the suite's timed ones, or
    for a run that only counted instructions, the count."""
    mine = [r for r in results if r.cell.suite == suite.name and r.ok]
    timed = tuple(m for m in suite.compared_metrics if any(m in r.metrics for r in mine))
    counted = any("instructions" in r.metrics for r in mine)
    return timed or (("instructions",) if counted else ())


def _metric_title(suite: suites.Suite, metric: str) -> str:
    """A compared metric's name in a title: the suite's name where it compares several."""
    return f"{suite.name} {metric}" if suite.compared else metric


def _single(r: CellResult) -> bool:
    """Not a cross-language pair: a cell that belongs to one implementation."""
    return r.cell.server_lang in (None, r.cell.lang)


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
    for suite in suites.SUITES.values():
        if suite.accompanies_every_run:
            continue
        sides = _grouped(
            [r for r in results if _single(r)],
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
                        sort_key(ra.cell),
                        [
                            ra.cell.case,
                            getattr(ra.cell, other),
                            *(ra.cell.param.get(n, "") for n in names),
                            fmt_summary(ma.summary, ma.unit),
                            fmt_summary(mb.summary, mb.unit),
                            _ratio_cell(q, ra, rb, metric),
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


BASELINE = "cpp"  # the reference implementation every language is read against


def _grouped(results: list[CellResult], suite, group, key) -> dict[str, dict]:
    """The suite's cells with a number, by group(cell), each keyed by key(cell): the two
    sides of a comparison, matched by key."""
    out: dict[str, dict] = {}
    for r in results:
        if r.cell.suite == suite.name and r.ok:
            out.setdefault(group(r.cell), {})[key(r.cell)] = r
    return out


def _by_lang(results: list[CellResult], suite) -> dict[str, dict]:
    """Single-language cells by driver (a language, or a language and a compiler that is
    not its primary one: cpp-clang++), keyed by case, library and parameters."""
    single = [r for r in results if _single(r)]
    return _grouped(single, suite, lambda c: c.driver_id, lambda c: (c.case, c.lib, c.params))


def _per_build(results: list[CellResult]) -> list[tuple[str | None, list[CellResult]]]:
    """The results split by build, in BUILDS order: no table sets two builds side by side.
    A run stored before builds were recorded is one part, build None."""
    recorded = {r.cell.param.get("build") for r in results}
    return [
        (b, [r for r in results if r.cell.param.get("build") == b])
        for b in (*BUILDS, None)
        if b in recorded
    ]


def _single_langs(results: list[CellResult]) -> set[str]:
    """The drivers with cells of their own (not only cross-language pairs)."""
    return {
        r.cell.driver_id
        for r in results
        if not suites.SUITES[r.cell.suite].accompanies_every_run and _single(r)
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
    (stats.paired_geomean_log).
    The headline table shows them; adaptive repetition (adaptive.py) reads their widths."""
    langs = sorted(_single_langs(results) - {base})
    ratios = []
    for suite in suites.SUITES.values():
        if suite.accompanies_every_run:
            continue
        for build, same in _per_build(results):
            by_lang = _by_lang(same, suite)
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


def headline_tables(results: list[CellResult], base: str) -> list[Table]:
    """The run in two tables of headline_ratios: the headline, one row per suite, compared
    metric and build over all of the suite's libraries, and the same per library. `!`
    marks an interval wider than ±5%; where both sides were counted, the same mean of
    instruction ratios stands beside the time ratio."""
    langs = sorted(_single_langs(results) - {base})
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
    for suite in suites.SUITES.values():
        mine = [r for r in results if r.cell.suite == suite.name]
        if mine:
            tables += suite.headline_tables(mine, base)
    return tables


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
    return _ratio_cell(h.ratio) + wide + _instr_note(list(h.pairs), h.metric)


def against_tables(results: list[CellResult], base: str) -> list[Table]:
    """Every language against one (the C++ reference by default): each cell of the
    baseline with its median, and beside it every other language's for the same library
    and parameters as a ratio to it, paired by round. Cross-language pipe pairs are left
    out: they belong to no single language."""
    langs = sorted(_single_langs(results))
    if base not in langs:
        raise CompareError(
            f"--against takes a language of the run ({', '.join(langs)}), not {base!r}"
        )
    others = [lang for lang in langs if lang != base]
    tables = []
    for suite in suites.SUITES.values():
        if suite.accompanies_every_run:
            continue
        by_lang = _by_lang(results, suite)
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
                    row.append(_ratio_cell(q, r, rb, metric))
                rows.append((sort_key(rb.cell), row))
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
        for metric in compared_metrics(twin.cell.spec, [first]):
            if metric in twin.metrics:
                q = ratio(twin.metric(metric), first.metric(metric))
                deviations.setdefault((twin.cell.suite, metric), []).append(abs(q.value - 1))
                rows.append([first.cell.key, metric, _ratio_cell(q)])
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
    for suite in suites.SUITES.values():
        if suite.accompanies_every_run:
            continue
        by_build = _grouped(
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
                rows.append((sort_key(rs.cell), [*row, _ratio_cell(q, rt, rs, metric)]))
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


COUNTS = ("instructions", "est_cycles")


def _timed(r: CellResult) -> bool:
    """A cell with timed samples (or no number at all), not only instruction counts."""
    return not r.ok or any(m.kind == "samples" and n not in COUNTS for n, m in r.metrics.items())


def instruction_tables(results: list[CellResult]) -> list[Table]:
    """Per suite, every counted cell's instructions and estimated cycles per iteration
    (instructions.py; for a suite that compares several operations, all of a cell's
    operations together), beside its median time where the run measured one."""
    tables = []
    for suite in suites.SUITES.values():
        counted = [r for r in results if r.cell.suite == suite.name and "instructions" in r.metrics]
        if not counted:
            continue
        names = param_columns(suite, counted)
        rows = []
        for r in counted:
            instr, cycles = (r.summary(m).median for m in COUNTS)
            timed = r.metrics.get(suite.primary)
            rows.append(
                [
                    r.cell.case,
                    r.cell.impl,
                    *(r.cell.param.get(n, "") for n in names),
                    f"{instr:,.0f}",
                    f"{cycles:,.0f}",
                    f"{cycles / instr:.2f}",
                    fmt_value(timed.summary.median, timed.unit) if timed else "-",
                ]
            )
        tables.append(
            Table(
                f"{suite.name}: instructions and estimated cycles per iteration (valgrind, "
                "exact: no interval; user space only, not the kernel's work: pipe I/O, "
                "page faults, system calls)",
                ["case", "impl", *names, "instr", "est. cycles", "cycles/instr", suite.primary],
                rows,
            )
        )
    return tables


def jit_table(results: list[dict]) -> Table | None:
    """The warm-up the drivers did beyond the harness's, from the `jit` they report
    (the JVM's until its JIT settled, docs/methodology.md): per language and role, how
    many processes settled, their rounds and time, and compilations left in the timed
    part (during the samples, or while a server answered its client)."""
    # (lang, role) -> [(jit, compilations timed)]; a driver that warms each operation up
    # on its own (codec) reports a jit per operation, shown as a role of its own.
    groups: dict[tuple[str, str], list[tuple[dict, int]]] = {}
    for r in results:
        for side in (r.get("client"), r.get("server")):
            jit = side.get("jit") if side else None
            if not isinstance(jit, dict):
                continue
            lang = side.get("lang", "?")
            if "rounds" in jit and side.get("role") == "server":
                groups.setdefault((lang, "server"), []).append((jit, side.get("serve_compiles", 0)))
            elif "rounds" in jit:
                groups.setdefault((lang, "client"), []).append(
                    (jit, sum(jit.get("sample_compiles", [])))
                )
            else:
                for op, j in jit.items():
                    if isinstance(j, dict) and "rounds" in j:
                        late = sum(j.get("sample_compiles", []))
                        groups.setdefault((lang, f"client: {op}"), []).append((j, late))
    if not groups:
        return None
    rows = []
    for (lang, role), sides in sorted(groups.items()):
        jits = [j for j, _ in sides]
        late = [n for _, n in sides]
        rounds = [j["rounds"] for j in jits]
        secs = [j.get("warmup_ms", 0) / 1e3 for j in jits]
        rows.append(
            [
                lang,
                role,
                str(len(sides)),
                str(sum(1 for j in jits if j.get("settled"))),
                f"{np.median(rounds):g} ({max(rounds)})",
                f"{np.median(secs):.1f} ({max(secs):.1f})",
                f"{sum(1 for n in late if n)} ({max(late)})",
            ]
        )
    return Table(
        "Warm-up until the JIT settled: median (max) per process",
        [
            "lang",
            "role",
            "processes",
            "settled",
            "rounds",
            "warm-up s",
            "with compilations timed (most)",
        ],
        rows,
    )


JIT_READING = (
    "The JVM driver warms up until its JIT has settled; its table says how long that took "
    "and how often a compilation still fell into timed work."
)


def variance_tables(results: list[CellResult]) -> list[Table]:
    """For a run whose rounds rotated over layout variants: each cell's variance split into
    within a process, between processes and between layouts (variance.py), and the same
    pooled per driver over its cells."""
    from . import variance

    def row(name: str, c) -> list[str]:
        return [
            name,
            str(c.layouts),
            str(c.processes),
            f"{c.within:.1%}",
            f"{c.between_processes:.1%}",
            f"{c.between_layouts:.1%}",
            f"{c.share_layouts:.0%}",
            f"{c.p:.3f}" if c.p == c.p else "-",
        ]

    rows, per_driver = [], {}
    for r in results:
        if not r.ok or len(set(r.layouts.values())) < 2:
            continue
        for metric in compared_metrics(r.cell.spec, [r]):
            c = variance.decompose(variance.by_layout(r.metric(metric).rounds, r.layouts))
            if c is not None:
                rows.append(row(r.cell.key + ("" if metric == "time" else f" ({metric})"), c))
                per_driver.setdefault(r.cell.driver_id, []).append(c)
    if not rows:
        return []
    heads = ["layouts", "processes", "within", "between processes", "between layouts"]
    heads += ["layout share", "p"]
    return [
        Table(
            "Where the variance is, per driver over its cells: the root mean square of the "
            "cells' parts, and their F tests combined (Fisher)",
            ["driver", *heads],
            [row(d, variance.pooled(cs)) for d, cs in sorted(per_driver.items())],
        ),
        Table(
            "Where the variance is, per cell: relative standard deviations within a process "
            "(of its samples), between processes of one layout variant (of their medians), "
            "and between layout variants beyond that (their share of a process's variance, "
            "and the F test's p that they differ at all)",
            ["cell", *heads],
            rows,
        ),
    ]


def build(
    store,
    run_id: int,
    compare: tuple[str, str] | None = None,
    against: str | None = None,
    attachments: bool = True,
) -> Report:
    """Everything a report shows. A run of several languages that include the baseline
    gets the languages-against-baseline tables first (`against` picks another).
    `attachments=False`: the tables only, no charts or logs (docs/results.md shows none)."""
    run = store.run(run_id)
    provenance = json.loads(run["provenance"])
    everything = load(store, run_id)
    # A/A twins only establish the noise floor; every other table leaves them out.
    results = [r for r in everything if "twin" not in r.cell.param]
    aa, floors = aa_table(everything)
    tables = compare_tables(results, *compare) if compare else []
    if against or len(_single_langs(results)) > 1:
        base = against or BASELINE
        tables += headline_tables(results, base)
        try:
            tables += against_tables(results, base)
        except CompareError:
            # Asked for, it must exist; by default, not while no baseline cell has a
            # number yet (or when the run has no C++).
            if against:
                raise
    tables += build_tables(results, floors)
    tables += instruction_tables(results)
    tables += variance_tables(results)
    readings = []
    if aa:
        tables.append(aa)
        shown = ", ".join(f"{s} {m} {f:.1%}" for (s, m), f in floors.items())
        readings.append(AA_READING.format(floors=shown))
    # A suite's own tables set numbers side by side: one set of tables per build, each
    # titled with its build (untitled for a run stored before builds were recorded).
    for suite in suites.SUITES.values():
        for build, same in _per_build([r for r in results if _timed(r)]):
            mine = [r for r in same if r.cell.suite == suite.name]
            if not mine:
                continue
            for t in suite.tables(mine, {"all": same, "provenance": provenance}):
                title = f"{t.title} [build {build}]" if build else t.title
                tables.append(dataclasses.replace(t, title=title, suite=suite.name))
        if suite.reading and any(r.cell.suite == suite.name for r in results):
            readings.append(suite.reading)
    files: dict[str, bytes] = {}

    def processes(cell: Cell) -> list[tuple[int, dict]]:
        rows = store.processes(run_id, cell.key)
        return [(p["rep"], json.loads(p["result"])["client"]) for p in rows if p["status"] == "ok"]

    # Charts draw times: a run that only counted instructions has none to draw.
    timed = [r for r in results if _timed(r)] if attachments else []
    for suite in suites.SUITES.values():
        mine = [r for r in timed if r.cell.suite == suite.name]
        if mine:
            context = {"all": timed, "base": against or BASELINE}
            files.update(suite.attachments(mine, processes, context))
    jit = jit_table(store.results(run_id))
    if jit:
        tables.append(jit)
        readings.append(JIT_READING)
    noisy = [r for r in everything if (s := _noisiest(r)) is not None and s.noisy]
    return Report(
        run=dict(run),
        provenance=provenance,
        results=everything,
        tables=tables,
        readings=readings,
        noisy=noisy,
        errors=[r for r in everything if r.status == "error"],
        pending=[r for r in everything if r.status == "pending"],
        attachments=files,
    )


# -- renderers ---------------------------------------------------------------------------------


def header_lines(rep: Report) -> list[str]:
    run, prov = rep.run, rep.provenance
    git = prov.get("git") or {}
    rev = (git.get("revision") or "unknown")[:12] + (" (dirty)" if git.get("dirty") else "")
    versions = "; ".join(
        f"{lang}: " + ", ".join(f"{k} {v}" for k, v in (d.get("versions") or {}).items())
        for lang, d in (prov.get("drivers") or {}).items()
    )
    builds = "; ".join(f"{k}: {b['flags']}" for k, b in (prov.get("builds") or {}).items())
    n = len(rep.results)
    return [
        f"run {run['id']} ({run['status']}), profile {run['profile']}, "
        f"started {run['started']}, finished {run['finished'] or '-'}",
        f"cells: {n - len(rep.errors) - len(rep.pending)} ok, "
        f"{len(rep.errors)} error, {len(rep.pending)} pending",
        *_repetition_line(rep),
        f"git {rev}; host {prov.get('host')}; CPU {prov.get('cpu')} x{prov.get('cpus')}; "
        f"kernel {prov.get('kernel')}; governor {prov.get('governor') or 'not exposed'}",
        *_machine_line(prov),
        f"versions: {versions or '-'}",
        f"builds: {builds or '-'}",
        f"command: {run['command']}",
    ]


def _machine_line(prov: dict) -> list[str]:
    """What the kernel did to every process (env.machine_settings); older runs lack it."""
    m = prov.get("machine")
    if not m:
        return []
    return [
        f"address randomisation {m.get('aslr')}; transparent huge pages {m.get('thp')}; "
        f"clock source {m.get('clocksource')}; driver environment "
        + (" ".join(f"{k}={v}" for k, v in (prov.get("process_env") or {}).items()) or "-")
    ]


def _repetition_line(rep: Report) -> list[str]:
    """How many processes the cells ran, why some ran more (adaptive.py), and over how
    many layout variants of each driver the rounds rotated."""
    plan = Plan.from_json(json.loads(rep.run["plan"])) if rep.run.get("plan") else None
    reps = [e.reps for e in plan.entries if e.reps] if plan else []
    if not reps:
        return []
    low, high = min(reps), max(reps)
    line = f"processes per cell: {low}" + (f"-{high}" if high > low else "")
    if plan.until:
        budget = f" within {plan.budget:.0f} s" if plan.budget else ""
        more = sum(r > low for r in reps)
        line += (
            f" (adaptive: a pilot of {low} rounds, then a second stage sized from its "
            f"variance gave {more} cells more, for headline ratios wider than "
            f"±{plan.until:.0%}{budget})"
        )
    variants = ", ".join(f"{n} {k}" for n, k in sorted(plan.layouts.items()))
    line += f"; layout variants per driver: {variants or 'none (one binary each)'}"
    if plan.address_seeds:
        line += (
            f"; address placement: {plan.address_seeds} seeds (randomisation off, the stack "
            "moved by seed; a layout in the variance tables is a variant and a seed)"
        )
    else:
        line += "; address placement: randomised by the kernel"
    line += (
        f"; {stats.NO_INTERVAL}: a median of fewer than {stats.MIN_PROCESSES} processes, or "
        "a ratio of one round, has no 95% interval"
    )
    return [line]


def _noisiest(r: CellResult) -> stats.Summary | None:
    """The widest-spread summary among the metrics the cell's suite compares (rpc: time)."""
    if not r.ok:
        return None
    found = [
        m.summary
        for name in suites.SUITES[r.cell.suite].compared_metrics
        if (m := r.metrics.get(name)) is not None and m.kind == "samples"
    ]
    return max(found, key=lambda s: s.spread, default=None)


# Above these a cell's numbers are marked: the hypervisor took over 1% of a process's
# wall time from its CPUs, or other programs kept a quarter of a CPU busy on average.
STEAL_LIMIT, LOAD_LIMIT = 0.01, 0.25


def _lists(rep: Report, bullet: str) -> list[str]:
    out = []
    stolen = [r for r in rep.results if (r.steal or 0) > STEAL_LIMIT]
    if stolen:
        out += ["", f"Cells measured under steal (over {STEAL_LIMIT:.0%} of a process's time):"]
        out += [f"{bullet}{r.cell.key}: up to {r.steal:.1%}" for r in stolen]
    loaded = [r for r in rep.results if (r.other_load or 0) > LOAD_LIMIT]
    if loaded:
        out += ["", f"Cells measured while other programs ran (over {LOAD_LIMIT} CPU busy):"]
        out += [f"{bullet}{r.cell.key}: up to {r.other_load:.2f} CPU" for r in loaded]
    if rep.noisy:
        out += ["", f"Cells with spread above {stats.SPREAD_LIMIT:.0%}:"]
        out += [f"{bullet}{r.cell.key}: {_noisiest(r).spread * 100:.1f}%" for r in rep.noisy]
    if rep.errors:
        out += ["", "Errors (these cells have no number):"]
        out += [f"{bullet}{r.cell.key}: {r.error}" for r in rep.errors]
    if rep.pending:
        out += [
            "",
            f"{len(rep.pending)} cells not finished: "
            f"`wirebench run --resume {rep.run['id']}` completes them.",
        ]
    return out


def markdown(rep: Report) -> str:
    out = [f"# wirebench report: run {rep.run['id']}", ""]
    out += [f"- {line}" for line in header_lines(rep)]
    out += [""]
    for reading in rep.readings:
        out += [reading, ""]
    for t in rep.tables:
        out += [
            f"## {t.title}",
            "",
            "| " + " | ".join(t.headers) + " |",
            "|" + "|".join("---" for _ in t.headers) + "|",
        ]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in t.rows]
        out += [""]
    charts = sorted(n for n in rep.attachments if n.endswith(".svg"))
    if charts:
        out += ["## Charts", ""]
        out += [f"![{n.removesuffix('.svg')}]({rep.files_dir}/{n})" for n in charts]
        out += [""]
    logs = sorted({str(Path(n).parent) for n in rep.attachments if n.endswith(".hlog")})
    if logs:
        count = sum(n.endswith(".hlog") for n in rep.attachments)
        where = ", ".join(f"`{rep.files_dir}/{d}/`" for d in logs)
        out += [
            f"Per-second interval histograms of every process: {count} HdrHistogram logs "
            f"in {where}.",
            "",
        ]
    out += _lists(rep, bullet="- ")
    return "\n".join(out).rstrip() + "\n"


def print_terminal(rep: Report, console) -> None:
    from rich.table import Table as RichTable

    for line in header_lines(rep):
        console.print(line, highlight=False, markup=False)
    for t in rep.tables:
        table = RichTable(title=t.title, title_justify="left", show_lines=False)
        for h in t.headers:
            table.add_column(h, overflow="fold")
        for row in t.rows:
            table.add_row(*row)
        console.print(table)
    for line in _lists(rep, bullet="  "):
        console.print(line, highlight=False, markup=False)


def metric_json(m: MetricData) -> dict:
    out: dict = {"unit": m.unit, "kind": m.kind}
    if m.kind == "histogram":
        out["percentiles"] = [
            {"p": p.percentile, "value": p.value, "ci95": [p.low, p.high]} for p in m.percentiles
        ]
        out["processes"] = len(m.histograms)
        return out
    s = m.summary
    if m.kind == "samples":
        out["per"] = "iteration"
    out.update(
        {
            "median": s.median,
            "ci95": stats.ci_json(s.low, s.high),
            "min": s.min,
            "spread": s.spread,
            "noisy": s.noisy,
            "samples": s.n_samples,
            "processes": s.n_processes,
        }
    )
    return out


def cell_json(r: CellResult) -> dict:
    """A cell with every metric's summary, interval and unit (JSON reports and exports)."""
    return {
        "key": r.cell.key,
        **r.cell.to_json(),
        "status": r.status,
        "error": r.error,
        "iters": r.iters,
        "metrics": {name: metric_json(m) for name, m in r.metrics.items()},
        "cpu_ns": r.cpu_ns,
        "max_rss_kb": r.max_rss_kb,
        "steal": r.steal,
        "other_load": r.other_load,
    }


RUN_FIELDS = ("id", "status", "profile", "started", "finished", "command")


def as_json(rep: Report) -> dict:
    run = rep.run
    return {
        "run": {k: run[k] for k in RUN_FIELDS},
        "provenance": rep.provenance,
        "cells": [cell_json(r) for r in rep.results],
        "tables": [{"title": t.title, "headers": t.headers, "rows": t.rows} for t in rep.tables],
    }
