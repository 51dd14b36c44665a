"""The harness's floors (docs/architecture.md): every module imports only modules on its
own floor or below, at the top of the file, with no cycle and no import hidden in a
function or behind TYPE_CHECKING to break one.

Read from the source with the standard library's parser, so that a test run does not
depend on what happens to be imported already.
"""

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "wirebench"

# Each floor may use the floors below it. A module not named here fails the test: a new
# module declares its floor.
FLOORS = {
    # 0: tools that know nothing of wirebench
    "paths": 0,
    "stats": 0,
    "processes": 0,
    "charts": 0,
    "variance": 0,
    "instructions": 0,
    "queue_format": 0,
    "profiles": 0,
    "workloads": 0,
    "codec_records": 0,
    "readbytes_data": 0,
    # 1: the vocabulary: cells, the protocol's words, the result model, the suite contract
    "cells": 1,
    "protocol": 1,
    "model": 1,
    "suite": 1,
    # 2: the suites, on the contract
    "suites": 2,
    "suites.rpc": 2,
    "suites.codec": 2,
    "suites.queue": 2,
    "suites.queue_report": 2,
    "suites.readbytes": 2,
    "suites.readbytes_report": 2,
    "suites.limit": 2,
    # 3: the registry of suites
    "registry": 3,
    # 4: what works on the registry: drivers, the store, the matrix, statistics of a run
    "pgo": 4,
    "drivers": 4,
    "library_variants": 4,
    "store": 4,
    "matrix": 4,
    "headline": 4,
    "design": 4,
    "env": 4,
    # 5: running and reporting
    "adaptive": 5,
    "runner": 5,
    "comparisons": 5,
    "counts": 5,
    "report": 5,
    "compare": 5,
    "ab": 5,
    "claims": 5,
    "export": 5,
    "html": 5,
    "archive": 5,
    # 6: what puts it together
    "orchestrate": 6,
    "distributed": 6,
    "publish": 6,
    "site": 6,
    "cli": 6,
}


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts == ("__init__",):
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _target(name: str, node: ast.ImportFrom, known: dict[str, Path]) -> list[str]:
    """The wirebench modules an import names (`from . import a, b` names two)."""
    package = name if known[name].name == "__init__.py" else name.rpartition(".")[0]
    if node.level:
        base = package.split(".") if package else []
        base = base[: len(base) - node.level + 1]
        stem = ".".join([*base, node.module] if node.module else base)
    elif (node.module or "").startswith("wirebench"):
        stem = node.module.removeprefix("wirebench").lstrip(".")
    else:
        return []
    out = []
    for alias in node.names:
        full = f"{stem}.{alias.name}" if stem else alias.name
        out.append(full if full in known else stem)
    return [t for t in out if t]


def imports(name: str, known: dict[str, Path]) -> tuple[set[str], list[str]]:
    """A module's imports of wirebench modules at its top level, and the places where it
    imports one anywhere else (in a function, or under `if TYPE_CHECKING`)."""
    tree = ast.parse(known[name].read_text())
    top, hidden = set(), []
    top_nodes = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.removeprefix("wirebench.") for a in node.names]
            names = [n for n in names if n in known]
        elif isinstance(node, ast.ImportFrom):
            names = _target(name, node, known)
        else:
            continue
        if not names:
            continue
        if id(node) in top_nodes:
            top.update(n for n in names if n != name)
        else:
            hidden.append(f"{name}:{node.lineno}")
    if "TYPE_CHECKING" in known[name].read_text():
        hidden.append(f"{name}: TYPE_CHECKING")
    return top, hidden


@pytest.fixture(scope="module")
def graph():
    known = modules()
    return known, {name: imports(name, known) for name in known}


def test_every_module_has_a_floor(graph):
    known, _ = graph
    assert sorted(set(known) - set(FLOORS)) == []
    assert sorted(set(FLOORS) - set(known)) == []


def test_no_module_imports_a_floor_above_its_own(graph):
    _, edges = graph
    upward = [
        f"{a} (floor {FLOORS[a]}) imports {b} (floor {FLOORS[b]})"
        for a, (top, _) in edges.items()
        for b in sorted(top)
        if FLOORS[b] > FLOORS[a]
    ]
    assert upward == []


def test_the_harness_has_no_import_cycle(graph):
    _, edges = graph
    try:
        tuple(TopologicalSorter({a: top for a, (top, _) in edges.items()}).static_order())
    except CycleError as e:
        pytest.fail(f"import cycle: {' -> '.join(e.args[1])}")


def test_no_import_is_hidden_in_a_function_or_behind_type_checking(graph):
    _, edges = graph
    assert [h for _, hidden in edges.values() for h in hidden] == []


def test_a_suite_never_asks_the_registry():
    """Suites are below the registry: a suite that needed the list of suites would make
    the registry import itself."""
    known = modules()
    for name in (n for n in known if n.startswith("suites.")):
        top, _ = imports(name, known)
        assert not top & {"registry", "drivers", "report", "runner", "cli"}, name
