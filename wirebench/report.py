"""Reports: a stored run as terminal tables and a Markdown file (and JSON for scripts).

Every rpc table shows, beside each library, the floor (the hand-written `null` library)
and the machine's limit (the time memcpy takes to move the same bytes), so a reader sees
how far a library is from what the machine can do. Times are per iteration (one request
and its response); the interval is the 95% bootstrap interval of the median.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass

import numpy as np

from . import catalog, stats
from .matrix import Cell, sort_key

LIMIT_BLOCK = "1MiB"  # the memcpy block used for the limit column: cache-sized copies


@dataclass
class CellResult:
    cell: Cell
    status: str
    error: str | None
    iters: int
    bytes: int | None  # per sample
    summary: stats.Summary | None  # per-iteration nanoseconds
    groups: list[list[float]]  # per-iteration ns, by process
    cpu_ns: int | None
    max_rss_kb: int | None

    @property
    def bytes_per_iter(self) -> float | None:
        return self.bytes / self.iters if self.bytes is not None else None


def load(store, run_id: int) -> list[CellResult]:
    results = []
    for row in store.cells(run_id):
        cell = Cell.make(
            row["suite"],
            row["case"],
            row["lang"],
            row["lib"],
            json.loads(row["params"]),
            row["server_lang"],
        )
        groups = [[s / row["iters"] for s in g] for g in json.loads(row["samples_ns"] or "[]")]
        ok = row["status"] == "ok" and any(groups)
        results.append(
            CellResult(
                cell=cell,
                status=row["status"],
                error=row["error"],
                iters=row["iters"],
                bytes=row["bytes"],
                summary=stats.summarize(groups) if ok else None,
                groups=groups,
                cpu_ns=row["cpu_ns"],
                max_rss_kb=row["max_rss_kb"],
            )
        )
    return sorted(results, key=lambda r: sort_key(r.cell))


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


def _params_text(cell: Cell, names=("mode", "compression", "reuse", "placement")) -> list[str]:
    p = cell.param
    return [p.get(n, "") for n in names]


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]


def memcpy_bandwidth(results: list[CellResult]) -> dict[str, float]:
    """Bytes per nanosecond (GB/s) by block size, from the limit cells."""
    bw = {}
    for r in results:
        if r.cell.suite == "limit" and r.summary:
            bw.setdefault(r.cell.param["block"], r.bytes_per_iter / r.summary.median)
    return bw


def rpc_tables(results: list[CellResult]) -> list[Table]:
    bandwidth = memcpy_bandwidth(results)
    floors = {
        (
            r.cell.lang,
            r.cell.case,
            r.cell.param.get("mode"),
            r.cell.param.get("reuse"),
            r.cell.param.get("placement"),
        ): r
        for r in results
        if r.cell.lib == "null" and r.summary
    }
    tables = []
    for case in catalog.CASES["rpc"]:
        rows = []
        for r in results:
            if r.cell.suite != "rpc" or r.cell.case != case:
                continue
            head = [r.cell.impl, *_params_text(r.cell)]
            if not r.summary:
                rows.append(head + [r.status.upper()] + [""] * 7)
                continue
            s = r.summary
            p = r.cell.param
            floor = floors.get(
                (r.cell.lang, case, p.get("mode"), p.get("reuse"), p.get("placement"))
            )
            vs_null = "-"
            if floor and floor is not r:
                q = stats.ratio(r.groups, floor.groups)
                vs_null = f"{q.value:.2f}x [{q.low:.2f}-{q.high:.2f}]"
            bpi = r.bytes_per_iter or 0
            limit = (
                fmt_time(bpi / bandwidth[LIMIT_BLOCK]) if bpi and LIMIT_BLOCK in bandwidth else "-"
            )
            rows.append(
                head
                + [
                    fmt_time(s.median),
                    f"{fmt_time(s.low)} - {fmt_time(s.high)}",
                    fmt_time(s.min),
                    f"{s.spread * 100:.1f}%" + (" !" if s.noisy else ""),
                    fmt_bytes(bpi) if bpi else "-",
                    f"{bpi / s.median * 1e3:.0f}" if bpi else "-",
                    vs_null,
                    limit,
                ]
            )
        if rows:
            tables.append(
                Table(
                    title=f"rpc / {case}: time per request+response",
                    headers=[
                        "impl",
                        "mode",
                        "compression",
                        "reuse",
                        "placement",
                        "median",
                        "95% CI",
                        "min",
                        "spread",
                        "bytes/iter",
                        "MB/s",
                        "vs null",
                        "memcpy",
                    ],
                    rows=rows,
                )
            )
    return tables


def limit_table(results: list[CellResult]) -> Table | None:
    rows = []
    for r in results:
        if r.cell.suite != "limit":
            continue
        if not r.summary:
            rows.append([r.cell.impl, r.cell.param.get("block", ""), r.status.upper(), "", ""])
            continue
        s, b = r.summary, r.bytes_per_iter
        rows.append(
            [
                r.cell.impl,
                r.cell.param["block"],
                f"{b / s.median:.2f}",
                f"{b / s.high:.2f} - {b / s.low:.2f}",
                f"{s.spread * 100:.1f}%",
            ]
        )
    if not rows:
        return None
    return Table(
        "Machine limit: memcpy bandwidth", ["impl", "block", "GB/s", "95% CI", "spread"], rows
    )


class CompareError(ValueError):
    pass


def compare_table(results: list[CellResult], a: str, b: str) -> Table:
    """Side by side, the way the published comparisons are drawn: every rpc cell of A
    beside the same cell of B, and A/B with its paired 95% interval. A and B are two
    languages (rust:cpp: same library, same parameters) or two libraries (capnp:protobuf:
    same language, same parameters)."""
    langs = {r.cell.lang for r in results}
    libs = {r.cell.lib for r in results}
    if {a, b} <= langs:
        by, other = "lang", "lib"
    elif {a, b} <= libs:
        by, other = "lib", "lang"
    else:
        raise CompareError(
            f"--compare takes two languages ({', '.join(sorted(langs))}) or two libraries "
            f"({', '.join(sorted(libs))}) of the run, not {a}:{b}"
        )

    def side(r: CellResult) -> str | None:
        c = r.cell
        if c.server_lang not in (None, c.lang):
            return None  # a cross-language pair belongs to neither side
        return getattr(c, by)

    def match_key(r: CellResult):
        c = r.cell
        return (c.case, getattr(c, other), c.params)

    sides = {a: {}, b: {}}
    for r in results:
        if r.cell.suite == "rpc" and r.summary and side(r) in sides:
            sides[side(r)][match_key(r)] = r
    rows = []
    for key, ra in sides[a].items():
        rb = sides[b].get(key)
        if rb is None:
            continue
        q = stats.ratio(ra.groups, rb.groups)
        sa, sb = ra.summary, rb.summary
        rows.append(
            (
                sort_key(ra.cell),
                [
                    ra.cell.case,
                    getattr(ra.cell, other),
                    *_params_text(ra.cell),
                    f"{fmt_time(sa.median)} [{fmt_time(sa.low)} - {fmt_time(sa.high)}]",
                    f"{fmt_time(sb.median)} [{fmt_time(sb.low)} - {fmt_time(sb.high)}]",
                    f"{q.value:.2f} [{q.low:.2f}-{q.high:.2f}]",
                ],
            )
        )
    if not rows:
        raise CompareError(f"no cell of the run has both a {a} and a {b} side")
    return Table(
        title=f"{a} against {b}: time per iteration, and {a}/{b} (below 1: {a} faster)",
        headers=["case", other, "mode", "compression", "reuse", "placement", a, b, f"{a}/{b}"],
        rows=[row for _, row in sorted(rows)],
    )


def jit_table(results: list[dict]) -> Table | None:
    """The warm-up the drivers did beyond the harness's, from the `jit` they report
    (the JVM's until its JIT settled, docs/methodology.md): per language and role, how
    many processes settled, their rounds and time, and compilations left in the timed
    part (during the samples, or while a server answered its client)."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in results:
        for side in (r.get("client"), r.get("server")):
            if side and isinstance(side.get("jit"), dict) and "rounds" in side["jit"]:
                role = "server" if side.get("role") == "server" else "client"
                groups.setdefault((side.get("lang", "?"), role), []).append(side)
    if not groups:
        return None
    rows = []
    for (lang, role), sides in sorted(groups.items()):
        jits = [s["jit"] for s in sides]
        rounds = [j["rounds"] for j in jits]
        secs = [j.get("warmup_ms", 0) / 1e3 for j in jits]
        if role == "server":
            late = [s.get("serve_compiles", 0) for s in sides]
        else:
            late = [sum(j.get("sample_compiles", [])) for j in jits]
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


BASELINE = "cpp"  # the reference implementation every language is read against


def _single_langs(results: list[CellResult]) -> set[str]:
    """The languages with rpc cells of their own (not only cross-language pairs)."""
    return {
        r.cell.lang
        for r in results
        if r.cell.suite == "rpc" and r.cell.server_lang in (None, r.cell.lang)
    }


def against_table(results: list[CellResult], base: str) -> Table:
    """Every language against one (the C++ reference by default): each rpc cell of the
    baseline with its median, and beside it every other language's time for the same
    library and parameters as a ratio to it, with the paired 95% interval. Cross-language
    pipe pairs are left out: they belong to no single language."""
    langs = sorted(_single_langs(results))
    if base not in langs:
        raise CompareError(
            f"--against takes a language of the run ({', '.join(langs)}), not {base!r}"
        )
    others = [lang for lang in langs if lang != base]
    by_lang: dict[str, dict] = {lang: {} for lang in langs}
    for r in results:
        c = r.cell
        if c.suite == "rpc" and r.summary and c.server_lang in (None, c.lang):
            by_lang[c.lang][(c.case, c.lib, c.params)] = r
    rows = []
    for key, rb in by_lang[base].items():
        sb = rb.summary
        row = [
            rb.cell.case,
            rb.cell.lib,
            *_params_text(rb.cell),
            f"{fmt_time(sb.median)} [{fmt_time(sb.low)} - {fmt_time(sb.high)}]",
        ]
        for lang in others:
            r = by_lang[lang].get(key)
            if r is None:
                row.append("-")
                continue
            q = stats.ratio(r.groups, rb.groups)
            row.append(f"{q.value:.2f} [{q.low:.2f}-{q.high:.2f}]")
        rows.append((sort_key(rb.cell), row))
    if not rows:
        raise CompareError(f"the run has no rpc cell of {base}")
    return Table(
        title=f"Languages against {base}: {base}'s time per iteration, every other "
        f"language's as a ratio to it (below 1: faster than {base})",
        headers=["case", "lib", "mode", "compression", "reuse", "placement", base]
        + [f"{lang}/{base}" for lang in others],
        rows=[row for _, row in sorted(rows)],
    )


def build(
    store,
    run_id: int,
    compare: tuple[str, str] | None = None,
    against: str | None = None,
) -> dict:
    """Everything a report shows, as plain data. A run of several languages that include
    the baseline gets the languages-against-baseline table first (`against` picks
    another baseline)."""
    run = store.run(run_id)
    results = load(store, run_id)
    tables = [compare_table(results, *compare)] if compare else []
    if against:
        tables.append(against_table(results, against))
    elif len(_single_langs(results)) > 1:
        # Not while no baseline cell has a number yet (or when the run has no C++).
        with contextlib.suppress(CompareError):
            tables.append(against_table(results, BASELINE))
    tables += rpc_tables(results)
    limits = limit_table(results)
    if limits:
        tables.append(limits)
    jit = jit_table(store.results(run_id))
    if jit:
        tables.append(jit)
    noisy = [r for r in results if r.summary and r.summary.noisy]
    errors = [r for r in results if r.status == "error"]
    pending = [r for r in results if r.status == "pending"]
    return {
        "run": run,
        "provenance": json.loads(run["provenance"]),
        "plan": json.loads(run["plan"]),
        "results": results,
        "tables": tables,
        "noisy": noisy,
        "errors": errors,
        "pending": pending,
    }


def _header_lines(data: dict) -> list[str]:
    run, prov = data["run"], data["provenance"]
    git = prov.get("git") or {}
    rev = (git.get("revision") or "unknown")[:12] + (" (dirty)" if git.get("dirty") else "")
    versions = "; ".join(
        f"{lang}: " + ", ".join(f"{k} {v}" for k, v in (d.get("versions") or {}).items())
        for lang, d in (prov.get("drivers") or {}).items()
    )
    n = len(data["results"])
    return [
        f"run {run['id']} ({run['status']}), profile {run['profile']}, "
        f"started {run['started']}, finished {run['finished'] or '-'}",
        f"cells: {n - len(data['errors']) - len(data['pending'])} ok, "
        f"{len(data['errors'])} error, {len(data['pending'])} pending",
        f"git {rev}; host {prov.get('host')}; CPU {prov.get('cpu')} x{prov.get('cpus')}; "
        f"kernel {prov.get('kernel')}; governor {prov.get('governor') or 'not exposed'}",
        f"versions: {versions or '-'}",
        f"command: {run['command']}",
    ]


READING = (
    "Times are per iteration (one request built, sent, handled, answered and checked); "
    "median of all samples of all processes, with its 95% bootstrap interval (processes "
    "and samples resampled). `spread` is the interquartile range over the median; `!` "
    f"marks spread above {stats.SPREAD_LIMIT:.0%}, not to be trusted. `vs null` is the "
    "ratio to the hand-written null library in the same mode (the floor); `memcpy` is "
    f"the time memcpy ({LIMIT_BLOCK} blocks) takes to move the same bytes (the limit). "
    "`placement` says where a pipe cell's two processes ran. The JVM driver warms up "
    "until its JIT has settled; its table says how long that took and how often a "
    "compilation still fell into timed work."
)


def markdown(data: dict) -> str:
    out = [f"# wirebench report: run {data['run']['id']}", ""]
    out += [f"- {line}" for line in _header_lines(data)]
    out += ["", READING, ""]
    for t in data["tables"]:
        out += [
            f"## {t.title}",
            "",
            "| " + " | ".join(t.headers) + " |",
            "|" + "|".join("---" for _ in t.headers) + "|",
        ]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in t.rows]
        out += [""]
    out += _lists(data, bullet="- ")
    return "\n".join(out).rstrip() + "\n"


def _lists(data: dict, bullet: str) -> list[str]:
    out = []
    if data["noisy"]:
        out += ["", f"Cells with spread above {stats.SPREAD_LIMIT:.0%}:"]
        out += [f"{bullet}{r.cell.key}: {r.summary.spread * 100:.1f}%" for r in data["noisy"]]
    if data["errors"]:
        out += ["", "Errors (these cells have no number):"]
        out += [f"{bullet}{r.cell.key}: {r.error}" for r in data["errors"]]
    if data["pending"]:
        out += [
            "",
            f"{len(data['pending'])} cells not finished: "
            f"`wirebench run --resume {data['run']['id']}` completes them.",
        ]
    return out


def print_terminal(data: dict, console) -> None:
    from rich.table import Table as RichTable

    for line in _header_lines(data):
        console.print(line, highlight=False, markup=False)
    for t in data["tables"]:
        table = RichTable(title=t.title, title_justify="left", show_lines=False)
        for h in t.headers:
            table.add_column(h, overflow="fold")
        for row in t.rows:
            table.add_row(*row)
        console.print(table)
    for line in _lists(data, bullet="  "):
        console.print(line, highlight=False, markup=False)


def as_json(data: dict) -> dict:
    def cell_json(r: CellResult) -> dict:
        s = r.summary
        return {
            "key": r.cell.key,
            **r.cell.to_json(),
            "status": r.status,
            "error": r.error,
            "iters": r.iters,
            "bytes_per_iter": r.bytes_per_iter,
            "ns_per_iter": None
            if s is None
            else {
                "median": s.median,
                "ci95": [s.low, s.high],
                "min": s.min,
                "spread": s.spread,
                "noisy": s.noisy,
                "samples": s.n_samples,
                "processes": s.n_processes,
            },
            "cpu_ns": r.cpu_ns,
            "max_rss_kb": r.max_rss_kb,
        }

    run = data["run"]
    return {
        "run": {k: run[k] for k in ("id", "status", "profile", "started", "finished", "command")},
        "provenance": data["provenance"],
        "cells": [cell_json(r) for r in data["results"]],
        "tables": [
            {"title": t.title, "headers": t.headers, "rows": t.rows} for t in data["tables"]
        ],
    }
