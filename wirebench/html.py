"""The report as a static site: an overview page and a page per suite, with the run's
provenance, every table (sortable and filterable in the browser) and every chart.

It works offline from the file system: no CDN, no fonts or scripts fetched, the charts
beside the pages (the report's attachments, written by the caller into the same
directory). Failed and noisy cells are marked, never dropped. Templates:
wirebench/templates/ (Jinja2, autoescaped).
"""

from __future__ import annotations

import json
from pathlib import Path

import jinja2

from . import model, registry, report

MAX_CHOICES = 15  # a column with at most this many distinct values gets a filter menu
HEADLINE_CHART = "headline.svg"  # report.build's, led with on the overview


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("wirebench", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _row_class(cells: list[str]) -> str:
    """Failed: a cell that is a status (ERROR, PENDING) where the numbers would be. Noisy:
    a number the report marked with `!`."""
    if any(c in ("ERROR", "PENDING") for c in cells):
        return "failed"
    return "noisy" if any(c.endswith(" !") or " ! " in c for c in cells) else ""


def _table(t: model.Table) -> dict:
    filters = []
    for col, name in enumerate(t.headers):
        values = sorted({row[col] for row in t.rows if col < len(row)})
        numeric = any(v[:1].isdigit() for v in values)
        usable = 1 < len(values) <= MAX_CHOICES and not numeric
        filters.append({"col": col, "name": name, "choices": values if usable else []})
    return {
        "title": t.title,
        "headers": t.headers,
        "rows": [{"cells": row, "cls": _row_class(row)} for row in t.rows],
        "filters": filters,
    }


def provenance(rep: report.Report) -> list[tuple[str, str]]:
    run, prov = rep.run, rep.provenance
    git = prov.get("git") or {}
    items = [
        ("run", f"{run['id']} ({run['status']}), profile {run['profile']}"),
        ("started, finished", f"{run['started']}, {run['finished'] or '-'}"),
        ("command", run["command"]),
        ("revision", (git.get("revision") or "unknown") + (" (dirty)" if git.get("dirty") else "")),
        ("host", str(prov.get("host"))),
        ("CPU", f"{prov.get('cpu')} x{prov.get('cpus')}"),
        ("kernel, governor", f"{prov.get('kernel')}, {prov.get('governor') or 'not exposed'}"),
    ]
    for name, d in (prov.get("drivers") or {}).items():
        versions = ", ".join(f"{k} {v}" for k, v in (d.get("versions") or {}).items())
        items.append((f"driver {name}", versions or "-"))
    for name, b in (prov.get("builds") or {}).items():
        items.append((f"build {name}", b.get("flags", json.dumps(b))))
    for key in ("storage",):  # suites' own provenance (queue storage)
        if key in prov:
            items.append((key, json.dumps(prov[key])))
    return items


def _suite_of(name: str) -> str:
    """The suite an attachment belongs to, by its name: `rpc-eval-....svg`, `queue/...`
    (the headline chart belongs to none)."""
    return name.split("/")[0].split("-")[0]


def write(rep: report.Report, out_dir: Path) -> list[Path]:
    """Writes index.html and a page per suite of the run into out_dir (where the report's
    attachments are), and returns them."""
    out_dir.mkdir(parents=True, exist_ok=True)
    page = _env().get_template("page.html")
    present = [s for s in registry.SUITES if any(r.cell.suite == s for r in rep.results)]
    nav = [("index.html", "overview")] + [(f"{s}.html", s) for s in present]

    def links(here: str) -> list[dict]:
        return [{"href": h, "text": t, "here": h == here} for h, t in nav]

    def counts(results: list[model.CellResult]) -> list[dict]:
        n = len(results)
        bad = sum(r.status == "error" for r in results)
        pending = sum(r.status == "pending" for r in results)
        noisy = sum(r in rep.noisy for r in results)
        return [
            {"text": f"{n - bad - pending} cells ok", "cls": ""},
            {"text": f"{bad} failed", "cls": "bad" if bad else ""},
            {"text": f"{pending} pending", "cls": "warn" if pending else ""},
            {"text": f"{noisy} noisy", "cls": "warn" if noisy else ""},
        ]

    def lists(results: list[model.CellResult]) -> list[dict]:
        keys = {r.cell.key for r in results}
        out = [
            {
                "title": "Failed cells (no number)",
                "entries": [f"{r.cell.key}: {r.error}" for r in rep.errors if r.cell.key in keys],
            },
            {
                "title": f"Noisy cells in a headline ratio (spread above "
                f"{report.stats.SPREAD_LIMIT:.0%}): they widen the answer",
                "entries": [r.cell.key for r in rep.noisy if r.cell.key in keys & rep.in_headline],
            },
            {
                "title": f"Other noisy cells (spread above {report.stats.SPREAD_LIMIT:.0%}; "
                "no headline ratio reads them)",
                "entries": [r.cell.key for r in rep.noisy if r.cell.key in keys - rep.in_headline],
            },
            {
                "title": "Pending cells (the run did not finish them)",
                "entries": [r.cell.key for r in rep.pending if r.cell.key in keys],
            },
        ]
        return [x for x in out if x["entries"]]

    written = []
    title = f"wirebench run {rep.run['id']}"
    summaries = []
    for s in present:
        mine = [r for r in rep.results if r.cell.suite == s]
        bad = sum(r.status == "error" for r in mine)
        summaries.append(
            {"name": s, "href": f"{s}.html", "summary": f"{len(mine)} cells, {bad} failed"}
        )
    index = out_dir / "index.html"
    index.write_text(
        page.render(
            title=f"{title}: overview",
            nav=links("index.html"),
            lead=True,
            counts=counts(rep.results),
            provenance=provenance(rep),
            suites=summaries,
            readings=rep.readings,
            tables=[_table(t) for t in rep.tables if t.suite is None],
            charts=[
                {"src": HEADLINE_CHART, "name": "the headline: every language against the base"}
            ]
            if HEADLINE_CHART in rep.attachments
            else [],
            logs=[],
            lists=lists(rep.results),
        )
    )
    written.append(index)
    for s in present:
        mine = [r for r in rep.results if r.cell.suite == s]
        names = sorted(n for n in rep.attachments if _suite_of(n) == s)
        path = out_dir / f"{s}.html"
        path.write_text(
            page.render(
                title=f"{title}: {s}",
                nav=links(path.name),
                counts=counts(mine),
                provenance=[],
                suites=[],
                readings=[registry.SUITES[s].reading] if registry.SUITES[s].reading else [],
                tables=[_table(t) for t in rep.tables if t.suite == s],
                charts=[
                    {"src": n, "name": n.removesuffix(".svg")} for n in names if n.endswith(".svg")
                ],
                logs=[n for n in names if not n.endswith(".svg")],
                lists=lists(mine),
            )
        )
        written.append(path)
    return written
