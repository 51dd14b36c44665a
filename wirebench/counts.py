"""The report's tables of where the time goes: instruction counts beside times, the JIT's
evidence, and the variance of a cell taken apart (between layouts, processes, samples)."""

from __future__ import annotations

import numpy as np

from . import registry, variance
from .model import CellResult, Table, fmt_value
from .suite import compared_metrics, param_columns

COUNTS = ("instructions", "est_cycles")


def is_timed(r: CellResult) -> bool:
    """A cell with timed samples (or no number at all), not only instruction counts."""
    return not r.ok or any(m.kind == "samples" and n not in COUNTS for n, m in r.metrics.items())


def instruction_tables(results: list[CellResult]) -> list[Table]:
    """Per suite, every counted cell's instructions and estimated cycles per iteration
    (instructions.py; for a suite that compares several operations, all of a cell's
    operations together), beside its median time where the run measured one."""
    tables = []
    for suite in registry.SUITES.values():
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
        for metric in compared_metrics(registry.of(r.cell), [r]):
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
