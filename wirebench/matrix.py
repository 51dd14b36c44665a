"""The matrix: from the drivers' lists and the user's filters to the cells of a run.

Filters are generic: `suite`, `case`, `lang`, `lib`, and every parameter any suite
declares; a filter on a parameter applies to the cells of the suites that have it
(`toolchain` chooses drivers before their cells are listed). What a listed cell becomes
is its suite's business (`Suite.expand`: rpc's pipe cells get a placement and a server
driver each).
"""

from __future__ import annotations

from . import registry
from .cells import Cell, builds_asked
from .protocol import ResultError
from .suite import ExpandContext, signature


class MatrixError(ValueError):
    """A filter names something that does not exist, or selects nothing."""


FILTER_NAMES = ("suite", "case", "lang", "toolchain", "lib", *registry.all_params())


def parse_filter(name: str, text: str | None) -> frozenset[str] | None:
    """'a,b' -> {'a','b'}; validates against the suites where they know the words."""
    if not text:
        return None
    values = frozenset(v.strip() for v in text.split(",") if v.strip())
    known: tuple[str, ...] | None = None
    if name == "suite":
        known = tuple(registry.SUITES)
    elif name == "case":
        known = tuple(c for s in registry.SUITES.values() for c in s.cases)
    elif name in registry.all_params():
        known = registry.all_params()[name]
    if known is not None:
        unknown = sorted(values - set(known))
        if unknown:
            raise MatrixError(
                f"unknown {name} {', '.join(repr(u) for u in unknown)}; known: {', '.join(known)}"
            )
    return values


def parse_pairs(text: str | None) -> frozenset[tuple[str, str]] | None:
    """'rust:cpp,cpp:rust' -> {('rust', 'cpp'), ('cpp', 'rust')}: client and server."""
    if not text:
        return None
    pairs = set()
    for item in (v.strip() for v in text.split(",") if v.strip()):
        client, sep, server = item.partition(":")
        if not sep or not client or not server or ":" in server:
            raise MatrixError(f"a pair is CLIENT:SERVER (like rust:cpp), not {item!r}")
        pairs.add((client, server))
    return frozenset(pairs)


def expand(
    listed: dict[str, list[dict]],
    filters: dict[str, frozenset[str] | None],
    include_limits: bool = True,
    pairs: frozenset[tuple[str, str]] | None = None,
    profile: str | None = None,
    identities: dict[str, tuple[str, str | None]] | None = None,
) -> list[Cell]:
    """Expands the drivers' listed cells under the filters.

    `listed` maps a driver to its `list` output; `identities` maps a driver to its
    (language, toolchain or None for the language's primary driver), by default the
    driver's name and None. `profile` names the profile whose cross-language pipe cells
    the suites add (None: none). The suites that accompany every run (limit) are added
    for every selected driver whatever the suite filter, unless `include_limits` is false.
    """
    identities = identities or {d: (d, None) for d in listed}
    if pairs:
        unknown = sorted({d for pair in pairs for d in pair} - set(listed))
        if unknown:
            raise MatrixError(
                f"unknown language in --pair: {', '.join(unknown)}; "
                f"known here: {', '.join(sorted(listed))}"
            )
    for name, known in (
        ("lang", {lang for lang, _ in identities.values()}),
        ("lib", {c["lib"] for cs in listed.values() for c in cs}),
    ):
        wanted = filters.get(name)
        if wanted and not wanted <= known:
            raise MatrixError(
                f"unknown {name} {', '.join(repr(v) for v in sorted(wanted - known))}; "
                f"known here: {', '.join(sorted(known)) or 'none (no driver built)'}"
            )

    def keep(value: str | None, name: str) -> bool:
        wanted = filters.get(name)
        return wanted is None or value in wanted

    ctx = ExpandContext(
        supported={d: frozenset(signature(e) for e in entries) for d, entries in listed.items()},
        filters=filters,
        pairs=pairs,
        pairs_of_profile=profile,
    )
    chosen = filters.get("suite")
    builds = builds_asked(filters.get("build"))
    cells: list[Cell] = []

    def add(suite, case, lang, lib, params, server, toolchain):
        for build in builds:  # the same cell in every build asked for
            params = {**params, "build": build}
            cells.append(Cell.make(suite.name, case, lang, lib, params, server, toolchain))

    for driver, entries in listed.items():
        lang, toolchain = identities[driver]
        if not keep(lang, "lang"):
            continue
        for entry in entries:
            suite = registry.SUITES.get(entry["suite"])
            if suite is None:
                continue  # a suite this harness does not know yet
            try:
                suite.listed(driver, entry)
            except ResultError as e:
                raise MatrixError(str(e)) from None
            if not all(keep(v, k) for k, v in entry["params"].items()):
                continue
            case, lib = entry["case"], entry["lib"]
            if suite.accompanies_every_run:
                if include_limits or (chosen and suite.name in chosen):
                    add(suite, case, lang, lib, entry["params"], None, toolchain)
                continue
            if not (keep(suite.name, "suite") and keep(case, "case") and keep(lib, "lib")):
                continue
            for params, server in suite.expand(driver, entry, ctx):
                add(suite, case, lang, lib, params, server, toolchain)
    cells = sorted(set(cells), key=registry.sort_key)
    only_accompanying = chosen and all(registry.SUITES[s].accompanies_every_run for s in chosen)
    if not only_accompanying and not [
        c for c in cells if not registry.SUITES[c.suite].accompanies_every_run
    ]:
        raise MatrixError("the filters select no cell; `wirebench list` shows what exists")
    return cells
