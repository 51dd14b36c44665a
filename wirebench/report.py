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
from pathlib import Path

from . import headline, model, registry, stats
from .cells import Cell, Plan
from .comparisons import (
    AA_READING,
    CompareError,
    aa_table,
    against_tables,
    build_tables,
    compare_tables,
    headline_chart,
    headline_tables,
)
from .counts import JIT_READING, instruction_tables, is_timed, jit_table, variance_tables
from .headline import single_langs
from .model import CellResult, MetricData, Table
from .runner import QUIET_LOAD


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
    # The cells the headline's ratios read: a noisy one of them moves the answer.
    in_headline: frozenset[str] = frozenset()
    # The quiet gate's work (store.remeasured): processes measured again, attempts set aside.
    remeasured: tuple[int, int] = (0, 0)

    @property
    def files_dir(self) -> str:
        """The directory the attachments go in, beside the report's Markdown."""
        return f"report-{self.run['id']}"


def load(store, run_id: int) -> list[CellResult]:
    """A stored run's cells (model.load) in reading order."""
    return sorted(model.load(store, run_id), key=lambda r: registry.sort_key(r.cell))


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
    files: dict[str, bytes] = {}
    in_headline: set[str] = set()
    # A distributed run's headline once per host (model.per_host): no ratio, and no
    # geometric mean of them, spans two machines.
    for host, mine in model.per_host(results):
        if not (against or len(single_langs(mine)) > 1):
            continue
        suffix = f" [host {host}]" if host else ""
        base = against or headline.BASELINE
        tables += _titled(headline_tables(mine, base), suffix)
        overall = headline.headline_ratios(mine, base, overall_only=True)
        for h in overall:
            in_headline |= h.keys
        chart = (
            headline_chart(overall, base) if attachments and "headline.svg" not in files else None
        )
        if chart:
            files["headline.svg"] = chart  # html.HEADLINE_CHART (a fleet's: its first host)
        try:
            tables += _titled(against_tables(mine, base), suffix)
        except CompareError:
            # Asked for, it must exist; by default, not while no baseline cell has a
            # number yet (or when the run has no C++).
            if against:
                raise
    hosts = store.hosts(run_id)
    tables += model.host_tables(results, hosts)
    fleet = model.fleet_table(store.plan(run_id), store.mean_walls(run_id)) if hosts else None
    tables += [fleet] if fleet else []
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
    for suite in registry.SUITES.values():
        for build, host, same in model.per_build_and_host([r for r in results if is_timed(r)]):
            mine = [r for r in same if r.cell.suite == suite.name]
            if not mine:
                continue
            for t in suite.tables(mine, {"all": same, "provenance": provenance}):
                title = t.title + "".join(
                    f" [{k} {v}]" for k, v in (("build", build), ("host", host)) if v
                )
                tables.append(dataclasses.replace(t, title=title, suite=suite.name))
        if suite.reading and any(r.cell.suite == suite.name for r in results):
            readings.append(suite.reading)

    # The processes of each cell (a distributed run's: on its host).
    where = {
        r.cell: {i for m in r.metrics.values() for i in (*m.rounds, *m.histograms)} for r in results
    }

    def processes(cell: Cell) -> list[tuple[int, dict]]:
        # A distributed run's cell per host: the stored cell's processes on that host.
        mine = where.get(cell) if "host" in cell.param else None
        rows = store.processes(run_id, cell.with_param("host", None).key)
        return [
            (p["rep"], json.loads(p["result"])["client"])
            for p in rows
            if p["status"] == "ok" and (mine is None or p["rep"] in mine)
        ]

    # Charts draw times: a run that only counted instructions has none to draw.
    timed = [r for r in results if is_timed(r)] if attachments else []
    for suite in registry.SUITES.values():
        mine = [r for r in timed if r.cell.suite == suite.name]
        if mine:
            context = {"all": timed, "base": against or headline.BASELINE, "provenance": provenance}
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
        in_headline=frozenset(in_headline),
        remeasured=store.remeasured(run_id),
    )


def _titled(tables: list[Table], suffix: str) -> list[Table]:
    return [dataclasses.replace(t, title=t.title + suffix) for t in tables] if suffix else tables


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
        # Each cell's own pilot (size_pilot); a run stored before entries kept theirs had
        # one pilot for all, its fewest processes.
        sized = [e for e in plan.entries if e.reps and e.pilot is not None]
        pilots = [e.pilot for e in sized] or [low]
        more = sum(e.reps > e.pilot for e in sized) if sized else sum(r > low for r in reps)
        p_low, p_high = min(pilots), max(pilots)
        rounds = f"{p_low}" + (f"-{p_high}" if p_high > p_low else "")
        line += (
            f" (adaptive: a pilot of {rounds} rounds, then a second stage sized from its "
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
    if plan.design:
        line += f"; samples and sample lengths: the design of dimensioning run {plan.design}"
    if plan.quiet:
        n, tries = rep.remeasured
        line += (
            f"; quiet gate: {n} processes measured again ({tries} attempts set aside: other "
            f"programs kept over {QUIET_LOAD} CPU busy)"
            if n
            else f"; quiet gate: no process ran beside over {QUIET_LOAD} CPU of other load"
        )
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
        for name in registry.SUITES[r.cell.suite].compared_metrics
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
