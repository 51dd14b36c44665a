"""The history site: `wirebench site DIR` renders a whole store (SQLite or PostgreSQL) as
static pages that work from the file system (html.py's page, with no network):

- index.html: every run, as a sortable, filterable table (host, revision, suites, profile,
  whether it is an A/B run, its cells, its command), each run linking to its report;
- run-N/: the run's report, as `wirebench report --html` writes it;
- history-SUITE.html: every cell of the suite that ran in two runs or more, its compared
  metric across the runs, in the order of `--by` (the date, the wirebench revision, or
  the library's version as its driver reported it),
  with its 95% interval: one line per host, an A/B run's points hollow.

A cell's identity across runs is its key (suite, case, implementation, parameters,
build, library variant), so a line never joins two different things; a library
variant's cells are lines of their own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from . import charts, html, model, registry, report, suite

BY = ("date", "revision", "version")


@dataclass(frozen=True)
class Point:
    run: int
    started: str
    revision: str
    host: str
    version: str  # the cell's library as its driver reported it
    ab: bool  # measured in an A/B run
    median: float
    low: float
    high: float


def _runs(store) -> list[dict]:
    out = []
    for row in store.runs():
        if row["status"] == "running":
            continue
        run = store.run(row["id"])
        prov = json.loads(run["provenance"])
        plan = store.plan(row["id"])
        git = prov.get("git") or {}
        out.append(
            {
                "id": row["id"],
                "uid": run["uid"],
                "started": row["started"],
                "status": row["status"],
                "profile": row["profile"],
                "command": row["command"],
                "host": str(prov.get("host")),
                "revision": (git.get("revision") or "unknown")[:10]
                + ("+" if git.get("dirty") else ""),
                "ab": bool(plan.ab),
                "suites": ", ".join(sorted({e.cell.suite for e in plan.entries}, key=_suite_rank)),
                "drivers": prov.get("drivers") or {},  # what each driver reported (versions)
            }
        )
    return out


def _fleet_table(store) -> model.Table | None:
    """Every distributed run's progress, by worker: its units done, leased, with failed
    processes and redone (running runs too: the site is where a fleet is watched)."""
    rows = []
    for row in store.runs():
        if "distributed" not in json.loads(row["provenance"]):
            continue
        progress = store.unit_progress(row["id"])
        for host, c in sorted(progress["workers"].items()):
            counts = [str(c[k]) for k in ("done", "leased", "failed", "redone")]
            rows.append([str(row["id"]), row["status"], host, *counts])
        rows.append([str(row["id"]), row["status"], "(queued)", str(progress["queued"]), *[""] * 3])
    if not rows:
        return None
    return model.Table(
        "Distributed runs: each worker's units of work",
        ["run", "status", "worker", "done", "leased", "with failed processes", "redone"],
        rows,
    )


def history(store, runs: list[dict]) -> dict[str, dict[str, list[Point]]]:
    """suite -> cell key -> its points, one per run that measured it (its compared
    metric: the suite's first timed one)."""
    out: dict[str, dict[str, list[Point]]] = {}
    for run in runs:
        reported = run["drivers"]
        for r in model.load(store, run["id"]):
            if not r.ok or "twin" in r.cell.param:
                continue
            metrics = suite.compared_metrics(registry.of(r.cell), [r])
            if not metrics or metrics[0] not in r.metrics:
                continue
            s = r.summary(metrics[0])
            point = Point(
                run["id"],
                run["started"],
                run["revision"],
                run["host"],
                str(
                    (reported.get(r.cell.driver_id) or {}).get("versions", {}).get(r.cell.lib, "-")
                ),
                run["ab"],
                s.median,
                s.low,
                s.high,
            )
            out.setdefault(r.cell.suite, {}).setdefault(r.cell.key, []).append(point)
    return out


def _chart(key: str, points: list[Point], by: str, unit: str, runs: list[dict]) -> bytes:
    fig, axes = charts.figure(7.5, 2.6)
    ax = axes[0][0]
    # Along x: every run of the store by date (so that all charts line up: a gap is a run
    # without the cell), or the cell's runs grouped by library version (naturally sorted:
    # 0.9 before 0.10), each group by date.
    if by == "version":
        group = {p.run: _natural(p.version) for p in points}
        order = sorted({(group[p.run], p.started, p.run) for p in points})
    else:
        order = sorted(("", r["started"], r["id"]) for r in runs)
    x_of = {run: i for i, (_, _, run) in enumerate(order)}
    text = {"date": lambda p: p.started[:16].replace("T", " "), "revision": lambda p: p.revision}
    labels = {p.run: text.get(by, lambda p: p.version)(p) for p in points}
    hosts = sorted({p.host for p in points})
    for n, host in enumerate(hosts):
        mine = sorted((p for p in points if p.host == host), key=lambda p: x_of[p.run])
        xs = [x_of[p.run] for p in mine]
        ys = [p.median for p in mine]
        err = charts.whiskers(ys, [p.low for p in mine], [p.high for p in mine])
        line = ax.errorbar(xs, ys, yerr=err, label=host, capsize=3, marker="o", color=f"C{n}")
        ab = [i for i, p in enumerate(mine) if p.ab]
        if ab:
            hollow_x, hollow_y = [xs[i] for i in ab], [ys[i] for i in ab]
            ax.plot(hollow_x, hollow_y, "o", mfc="white", color=line[0].get_color(), ms=8)
    ticks = [f"{labels[run]}\nrun {run}" if run in labels else "" for _, _, run in order]
    ax.set_xticks(range(len(order)), ticks, fontsize=7)
    ax.set_ylabel(unit)
    ax.set_ylim(bottom=0)
    ax.set_title(key, fontsize=8, loc="left")
    ax.legend(fontsize=7, loc="lower left")
    return charts.svg(fig)


def _suite_rank(name: str) -> int:
    return list(registry.SUITES).index(name) if name in registry.SUITES else len(registry.SUITES)


def _natural(text: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _slug(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@=+-]+", "_", key)[:180]


def write(store, out_dir: Path, by: str = "date") -> list[Path]:
    """The site of every finished run of the store into out_dir; the pages written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    page = html._env().get_template("page.html")
    runs = _runs(store)
    points = history(store, runs)
    measured: dict[int, int] = {}  # cells with a number, per run
    for cells in points.values():
        for pts in cells.values():
            for p in pts:
                measured[p.run] = measured.get(p.run, 0) + 1
    suites = [s for s in registry.SUITES if s in points]
    nav = [("index.html", "runs")] + [(f"history-{s}.html", f"{s} history") for s in suites]

    def links(here: str) -> list[dict]:
        return [{"href": h, "text": t, "here": h == here} for h, t in nav]

    written = []
    for run in runs:
        rep = report.build(store, run["id"])
        where = out_dir / f"run-{run['id']}"
        for name, content in rep.attachments.items():
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            (where / name).write_bytes(content)
        html.write(rep, where)
    table = model.Table(
        "Runs",
        ["run", "started", "status", "host", "revision", "suites", "profile", "A/B", "cells ok"]
        + ["command"],
        [
            [
                str(r["id"]),
                r["started"][:19].replace("T", " "),
                r["status"],
                r["host"],
                r["revision"],
                r["suites"],
                r["profile"],
                "A/B" if r["ab"] else "",
                str(measured.get(r["id"], 0)),
                r["command"],
            ]
            for r in runs
        ],
    )
    tables = [html._table(table)]
    fleet = _fleet_table(store)
    if fleet:
        tables.append(html._table(fleet))
    index = out_dir / "index.html"
    index.write_text(
        page.render(
            title=f"wirebench history: {len(runs)} runs of {store.name}",
            nav=links("index.html"),
            counts=[{"text": f"{len(runs)} runs", "cls": ""}],
            links_title="Each run's report",
            provenance=[],
            suites=[
                {
                    "name": f"run {r['id']}",
                    "href": f"run-{r['id']}/index.html",
                    "summary": f"{r['started'][:16]} on {r['host']}, {r['revision']}, {r['uid']}",
                }
                for r in runs
            ],
            readings=[
                "Every finished run of the store. Each run's report is linked above; each "
                "suite's history page draws every cell measured in two runs or more."
            ],
            tables=tables,
            charts=[],
            logs=[],
            lists=[],
        )
    )
    written.append(index)
    for s in suites:
        spec = registry.SUITES[s]
        chart_list = []
        for key, pts in points[s].items():
            if len({p.run for p in pts}) < 2:
                continue
            name = f"history/{_slug(key)}.svg"
            (out_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (out_dir / name).write_bytes(_chart(key, pts, by, _unit(spec), runs))
            chart_list.append({"src": name, "name": key})
        path = out_dir / f"history-{s}.html"
        path.write_text(
            page.render(
                title=f"wirebench history: {s}",
                nav=links(path.name),
                counts=[{"text": f"{len(chart_list)} cells in two runs or more", "cls": ""}],
                provenance=[],
                suites=[],
                readings=[
                    f"Each cell's {_unit(spec)} per iteration in every run that measured it, "
                    f"by {by}, with its 95% interval; one line per host; hollow points come "
                    "from A/B runs."
                ],
                tables=[],
                charts=chart_list,
                logs=[],
                lists=[],
            )
        )
        written.append(path)
    return written


def _unit(spec) -> str:
    name = spec.compared_metrics[0] if spec.compared_metrics else spec.primary
    m = next((m for m in spec.metrics if m.name == name), None)
    return f"{name} ({m.unit})" if m else name
