"""The result model: a stored run's cells with their metrics over processes, the tables
a report is made of, and how numbers are written in them.

On the floor below the suites (tests/test_structure.py): suites build their tables from
these words, and the report lays them out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property

from . import stats
from .cells import BUILDS, Cell, Plan


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


def ratio(a: MetricData, b: MetricData) -> stats.Ratio:
    """A/B of one metric of two cells of one run, paired by round (stats.paired_ratio)."""
    return stats.paired_ratio(a.rounds, b.rounds, a.pilot)


def geomean_log(pairs: list[tuple[MetricData, MetricData]]) -> stats.LogRatio:
    """The geometric mean of several cells' paired A/B (stats.paired_geomean_log)."""
    return stats.paired_geomean_log([(a.rounds, b.rounds) for a, b in pairs], pairs[0][0].pilot)


def per_build(results: list[CellResult]) -> list[tuple[str | None, list[CellResult]]]:
    """The results split by build, in BUILDS order: no table sets two builds side by side.
    A run stored before builds were recorded is one part, build None."""
    recorded = {r.cell.param.get("build") for r in results}
    return [
        (b, [r for r in results if r.cell.param.get("build") == b])
        for b in (*BUILDS, None)
        if b in recorded
    ]


def load(store, run_id: int) -> list[CellResult]:
    """A stored run's cells with their metrics, in the store's order (report.load sorts
    them for reading). `store` is any Store: this reads only through its methods."""
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
    return results


# -- formatting ------------------------------------------------------------------------


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
