"""The registry of suites: every suite the harness runs, by name, in reading order.

Adding a suite is one module in wirebench/suites/ and one line in SUITES
(docs/adding-a-suite.md). Everything that needs to know which suites exist (the matrix,
the runner, the report, the command line) asks here; the suites themselves never do.
"""

from __future__ import annotations

from .cells import Cell
from .suite import CORE_PARAMS, Suite
from .suites import codec, limit, queue, readbytes, rpc

# The suites, in reading order: a suite is its import above and its line here.
SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        rpc.SUITE,
        codec.SUITE,
        queue.SUITE,
        readbytes.SUITE,
        limit.SUITE,
    )
}


def get(name: str) -> Suite:
    try:
        return SUITES[name]
    except KeyError:
        raise KeyError(f"unknown suite {name!r}; known: {', '.join(SUITES)}") from None


def all_params() -> dict[str, tuple[str, ...]]:
    """Every parameter name of every suite, with the union of its legal values (in reading
    order): the command line's filters."""
    out: dict[str, list[str]] = {}
    for suite in SUITES.values():
        for p in suite.all_params:
            values = out.setdefault(p.name, [])
            values += [v for v in p.values if v not in values]
    return {k: tuple(v) for k, v in out.items()}


def param_help(name: str) -> str:
    core = next((p for p in CORE_PARAMS if p.name == name), None)
    if core is not None:
        return core.help
    return "; ".join(
        f"{s.name}: {s.param(name).help}" for s in SUITES.values() if s.param(name) is not None
    )


def of(cell: Cell) -> Suite:
    """The suite a cell belongs to."""
    return get(cell.suite)


def sort_key(cell: Cell):
    """Reading order: suite, case, library (the floor first), implementation, parameters
    in their suite's order of values."""
    order = list(SUITES)
    spec = SUITES.get(cell.suite)
    if spec is None:
        return (len(order), cell.key)
    p = cell.param
    return (
        order.index(cell.suite),
        list(spec.cases).index(cell.case) if cell.case in spec.cases else 99,
        *spec.lib_rank(cell.lib),
        cell.lang,
        cell.toolchain or "",
        cell.server_lang or "",
        [q.values.index(p[q.name]) if p.get(q.name) in q.values else 99 for q in spec.all_params],
    )
