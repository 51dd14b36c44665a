"""The result model: a stored run's cells with their metrics over processes, the tables
a report is made of, and how numbers are written in them.

On the floor below the suites (tests/test_structure.py): suites build their tables from
these words, and the report lays them out.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

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
    # Per round, the layout variants it ran of binaries that other rounds run too
    # (stats.Layouts): rounds that share one are a cluster in every interval.
    layouts: dict[int, tuple] = field(default_factory=dict)

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
    return stats.paired_ratio(a.rounds, b.rounds, a.pilot, (a.layouts, b.layouts))


def difference(a: MetricData, b: MetricData) -> stats.Difference:
    """A - B of one metric of two cells of one run, paired by round
    (stats.paired_difference), rounds of one layout a cluster as in `ratio`."""
    return stats.paired_difference(a.rounds, b.rounds, a.pilot, (a.layouts, b.layouts))


def geomean_log(pairs: list[tuple[MetricData, MetricData]]) -> stats.LogRatio:
    """The geometric mean of several cells' paired A/B (stats.paired_geomean_log)."""
    return stats.paired_geomean_log(
        [(a.rounds, b.rounds) for a, b in pairs],
        pairs[0][0].pilot,
        [(a.layouts, b.layouts) for a, b in pairs],
    )


def round_layouts(plan: Plan, cell: Cell, reps, ran: dict[int, int]) -> dict[int, tuple]:
    """MetricData.layouts of a cell's rounds `reps`: (driver, build, variant) of each of
    its drivers (the client, a pipe's server of another driver) that rotates over
    several layouts (Plan.layouts), the client's variant as its process row stored it
    (`ran`), else as the plan has it. A driver of one binary, or the JVM, which lays its
    code out anew in every process, puts none: its rounds share nothing an interval can
    count (one binary's layout is a bias no number of rounds shows: docs/methodology.md,
    "Layout variants")."""
    client, server = cell.driver_id, cell.server_driver_id
    out: dict[int, tuple] = {}
    for rep in reps:
        variants = []
        if plan.layouts.get(client, 1) > 1:
            variants.append((client, cell.build, ran.get(rep, plan.layout(client, rep))))
        if cell.is_pipe and server != client and plan.layouts.get(server, 1) > 1:
            variants.append((server, cell.build, plan.layout(server, rep)))
        if variants:
            out[rep] = tuple(variants)
    return out


def per_build(results: list[CellResult]) -> list[tuple[str | None, list[CellResult]]]:
    """The results split by build, in BUILDS order: no table sets two builds side by side.
    A run stored before builds were recorded is one part, build None."""
    recorded = {r.cell.param.get("build") for r in results}
    return [
        (b, [r for r in results if r.cell.param.get("build") == b])
        for b in (*BUILDS, None)
        if b in recorded
    ]


def per_host(results: list[CellResult]) -> list[tuple[str | None, list[CellResult]]]:
    """The results split by host (a distributed run's; None: the run's own machine)."""
    hosts = sorted({r.cell.param.get("host") for r in results}, key=lambda h: h or "")
    return [(h, [r for r in results if r.cell.param.get("host") == h]) for h in hosts]


def per_build_and_host(results: list[CellResult]) -> list[tuple[str | None, str | None, list]]:
    """per_build, each part split by host (a distributed run's; None: the run's machine):
    no table sets two builds, or two hosts, side by side."""
    return [(b, h, mine) for b, same in per_build(results) for h, mine in per_host(same)]


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
    ran = layouts = store.layouts(run_id)
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
        if ok and plan and plan.layouts:
            for m in metrics.get(row["key"], {}).values():
                m.layouts = round_layouts(plan, cell, m.rounds, ran.get(row["key"], {}))
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
    where = store.process_hosts(run_id)
    if not where:
        return results
    # A distributed run: the host is a factor of every table, never pooled silently.
    classes = {h["host"]: h["hw_class"] for h in store.hosts(run_id)}
    per_host = split_hosts(results, where)
    held = {c.name for c in class_checks(per_host, classes) if c.holds}
    if not held:
        return per_host
    label = {h: c if c in held else h for h, c in classes.items()}
    return split_hosts(results, where, label)


# -- hosts: a distributed run's factor ----------------------------------------------------


def split_hosts(
    results: list[CellResult], where: dict[str, dict[int, str]], label: dict | None = None
) -> list[CellResult]:
    """Each cell as one cell per host (`label`: per group of hosts, a hardware class)
    with the processes that ran there, its `host` parameter saying which. A cell that
    has no number (failed, pending) stays one."""
    label = label or {}
    out = []
    for r in results:
        reps = where.get(r.cell.key) or {}
        groups: dict[str, set[int]] = {}
        for rep, host in reps.items():
            groups.setdefault(label.get(host) or host, set()).add(rep)
        if not r.ok or not groups:
            out.append(r)
            continue
        for name, mine in sorted(groups.items()):
            metrics = {
                k: dataclasses.replace(
                    m,
                    rounds={i: v for i, v in m.rounds.items() if i in mine},
                    histograms={i: v for i, v in m.histograms.items() if i in mine},
                )
                for k, m in r.metrics.items()
            }
            out.append(
                dataclasses.replace(
                    r,
                    cell=r.cell.with_param("host", name),
                    metrics=metrics,
                    layouts={i: v for i, v in r.layouts.items() if i in mine},
                )
            )
    return out


def host_tables(results: list[CellResult], hosts: list) -> list[Table]:
    """A distributed run's tables of its hosts: each declared class's check, and every
    cell measured on several hosts across them (cross-host: its interval the envelope of
    the hosts', so that the host-to-host scatter is in it)."""
    if not hosts:
        return []
    tables = []
    classes = {h["host"]: h["hw_class"] for h in hosts}
    checks = class_checks(results, classes)
    if checks:
        tables.append(
            Table(
                "Hosts declared identical (worker --class): an A/A test across them",
                [
                    "class",
                    "hosts",
                    "tests",
                    "hosts differ (p < 0.01)",
                    "p (more than chance)",
                    "tables",
                ],  # fmt: skip
                [
                    [
                        c.name,
                        ", ".join(c.hosts),
                        str(c.tests),
                        f"{c.differ} ({c.differ / c.tests:.0%})" if c.tests else "-",
                        f"{c.p:.3g}" if c.tests else "-",
                        "pooled as one"
                        if c.holds
                        else "per host: "
                        + (
                            "the check fails"
                            if c.tests
                            else "too few processes on each host to check"
                        ),
                    ]
                    for c in checks
                ],
            )
        )
    by_cell: dict[Cell, list[CellResult]] = {}
    for r in results:
        if r.ok and "host" in r.cell.param:
            by_cell.setdefault(r.cell.with_param("host", None), []).append(r)
    rows = []
    for cell, there in by_cell.items():
        if len(there) < 2:
            continue
        for name, m in there[0].metrics.items():
            summaries = [r.metrics[name].summary for r in there if name in r.metrics]
            if m.kind != "samples" or len(summaries) < 2:
                continue
            medians = [s.median for s in summaries]
            lows, highs = [s.low for s in summaries], [s.high for s in summaries]
            if any(math.isnan(v) for v in lows + highs):
                envelope = "- (too few processes on a host for its interval)"
            else:
                envelope = f"{fmt_value(min(lows), m.unit)}-{fmt_value(max(highs), m.unit)}"
            rows.append(
                [
                    cell.key,
                    name,
                    ", ".join(
                        f"{r.cell.param['host']} {fmt_value(s.median, m.unit)}"
                        for r, s in zip(there, summaries, strict=True)
                    ),
                    fmt_value(float(np.median(medians)), m.unit),
                    envelope,
                    f"{max(medians) / min(medians):.2f}x" if min(medians) > 0 else "-",
                ]
            )
    if rows:
        tables.append(
            Table(
                "Cross-host: each cell on every host that measured it (host-to-host scatter "
                "included; compare within a host, not across)",
                [
                    "cell",
                    "metric",
                    "per host (median)",
                    "across hosts",
                    "envelope of the hosts' 95% intervals",
                    "slowest / fastest host",
                ],  # fmt: skip
                rows,
            )
        )
    return tables


FLEET_SIZES = (1, 2, 4, 8, 16, 32)


def fleet_table(plan: Plan, walls: dict[str, float]) -> Table | None:
    """How a fleet's wall time scales, from the run's own process times (`walls`: each
    cell's mean seconds per process): a unit is the indivisible piece, so W workers
    take at least the larger of the total over W and the longest unit."""
    units = [sum(walls.get(t.cell.key, 0.0) for _, t, _ in tasks) for _, tasks in plan.units()]
    if not units or not any(units):
        return None
    total, longest = sum(units), max(units)
    return Table(
        f"Fleet: {len(units)} units of work, {total:.0f} s of processes, the longest unit "
        f"{longest:.1f} s; the least wall time of W workers (queue overhead excluded)",
        [f"W = {w}" for w in FLEET_SIZES],
        [[f"{max(total / w, longest):.0f} s" for w in FLEET_SIZES]],
    )


@dataclass(frozen=True)
class HostClass:
    """Hosts a fleet declared identical (`worker --class`), checked as an A/A test: in
    each cell and timed metric, do the hosts' processes differ (Kruskal-Wallis of their
    medians, p < ALPHA)? Among identical hosts about ALPHA of the tests do by chance; the
    class holds unless significantly more do (binomial test, p <= ALPHA)."""

    name: str
    hosts: tuple[str, ...]
    tests: int
    differ: int
    p: float

    ALPHA = 0.01

    @property
    def holds(self) -> bool:
        return self.tests > 0 and self.p > self.ALPHA


def class_checks(per_host: list[CellResult], classes: dict[str, str | None]) -> list[HostClass]:
    """The check of each declared class of two or more hosts, over the per-host results."""
    from scipy.stats import binomtest, kruskal

    checks = []
    for name in sorted({c for c in classes.values() if c}):
        hosts = tuple(sorted(h for h, c in classes.items() if c == name))
        if len(hosts) < 2:
            continue
        by_cell: dict[Cell, dict[str, CellResult]] = {}
        for r in per_host:
            host = r.cell.param.get("host")
            if r.ok and host in hosts:
                by_cell.setdefault(r.cell.with_param("host", None), {})[host] = r
        tests = differ = 0
        for there in by_cell.values():
            for metric in next(iter(there.values())).metrics.values():
                if metric.kind != "samples":
                    continue
                medians = [
                    [float(np.median(v)) for v in r.metrics[metric.name].groups]
                    for r in there.values()
                    if metric.name in r.metrics
                ]
                medians = [m for m in medians if len(m) >= 2]
                if len(medians) < 2 or len({x for m in medians for x in m}) < 2:
                    continue
                tests += 1
                differ += int(kruskal(*medians).pvalue < HostClass.ALPHA)
        p = binomtest(differ, tests, HostClass.ALPHA, alternative="greater").pvalue if tests else 1
        checks.append(HostClass(name, hosts, tests, differ, float(p)))
    return checks


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
