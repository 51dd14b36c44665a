"""Cells and the matrix: from the drivers' lists and the user's filters to the cells of a run."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import catalog


class MatrixError(ValueError):
    """A filter names something that does not exist, or selects nothing."""


@dataclass(frozen=True, order=True)
class Cell:
    """One point of the matrix: suite, case, implementation (lang/lib) and parameters.

    A pipe cell has a client and a server process; `server_lang` is the server's language
    (the library is the same on both ends, since they must share a wire format).
    """

    suite: str
    case: str
    lang: str
    lib: str
    params: tuple[tuple[str, str], ...] = field(default=())
    server_lang: str | None = None

    @staticmethod
    def make(suite, case, lang, lib, params: dict[str, str], server_lang=None) -> Cell:
        return Cell(suite, case, lang, lib, tuple(sorted(params.items())), server_lang)

    @property
    def param(self) -> dict[str, str]:
        return dict(self.params)

    @property
    def impl(self) -> str:
        if self.server_lang and self.server_lang != self.lang:
            return f"{self.lang}:{self.server_lang}/{self.lib}"
        return f"{self.lang}/{self.lib}"

    @property
    def is_pipe(self) -> bool:
        return self.param.get("mode") in catalog.PIPE_MODES

    @property
    def driver_params(self) -> dict[str, str]:
        return {k: v for k, v in self.params if k not in catalog.HARNESS_PARAMS}

    @property
    def key(self) -> str:
        params = " ".join(f"{k}={v}" for k, v in self.params)
        return f"{self.suite}/{self.case}/{self.impl}" + (f" {params}" if params else "")

    def to_json(self) -> dict:
        return {
            "suite": self.suite,
            "case": self.case,
            "lang": self.lang,
            "lib": self.lib,
            "params": self.param,
            "server_lang": self.server_lang,
        }

    @staticmethod
    def from_json(d: dict) -> Cell:
        return Cell.make(d["suite"], d["case"], d["lang"], d["lib"], d["params"], d["server_lang"])


FILTER_NAMES = ("suite", "case", "lang", "lib", *catalog.PARAMS)


def parse_filter(name: str, text: str | None) -> frozenset[str] | None:
    """'a,b' -> {'a','b'}; validates against the catalogue where it knows the words."""
    if not text:
        return None
    values = frozenset(v.strip() for v in text.split(",") if v.strip())
    known: tuple[str, ...] | None = None
    if name == "suite":
        known = tuple(catalog.SUITES)
    elif name == "case":
        known = tuple(c for cases in catalog.CASES.values() for c in cases)
    elif name in catalog.PARAMS:
        known = catalog.PARAMS[name]
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


def _signature(entry: dict) -> tuple:
    return (entry["suite"], entry["case"], entry["lib"], tuple(sorted(entry["params"].items())))


def expand(
    listed: dict[str, list[dict]],
    filters: dict[str, frozenset[str] | None],
    include_limits: bool = True,
    pairs: frozenset[tuple[str, str]] | None = None,
    pair_filter: dict[str, tuple[str, ...]] | None = None,
) -> list[Cell]:
    """Expands the drivers' listed cells under the filters.

    `listed` maps a language to its driver's `list` output. Pipe cells get one cell per
    selected placement (default: catalog.DEFAULT_PLACEMENT) and per server language:
    with `pairs`, exactly those client:server pairs (and no other cells); without, the
    client's own language, plus every other language that lists the same cell when the
    cell's library and parameters pass `pair_filter` (the profile's cross-language pairs:
    name -> values allowed, for `lib` and any parameter). The `limit`
    suite's cells are added for every selected language, whatever the suite filter,
    unless `include_limits` is false: they are the rows every report is read against.
    """
    if pairs:
        unknown = sorted({lang for pair in pairs for lang in pair} - set(listed))
        if unknown:
            raise MatrixError(
                f"unknown language in --pair: {', '.join(unknown)}; "
                f"known here: {', '.join(sorted(listed))}"
            )
    supported = {lang: {_signature(e) for e in entries} for lang, entries in listed.items()}
    for name in ("lang", "lib"):
        known = set(listed) if name == "lang" else {c["lib"] for cs in listed.values() for c in cs}
        wanted = filters.get(name)
        if wanted and not wanted <= known:
            raise MatrixError(
                f"unknown {name} {', '.join(repr(v) for v in sorted(wanted - known))}; "
                f"known here: {', '.join(sorted(known)) or 'none (no driver built)'}"
            )

    def keep(value: str | None, name: str) -> bool:
        wanted = filters.get(name)
        return wanted is None or value in wanted

    placements = sorted(filters.get("placement") or {catalog.DEFAULT_PLACEMENT})
    suites = filters.get("suite")
    cells: list[Cell] = []
    for lang, entries in listed.items():
        if not keep(lang, "lang"):
            continue
        for entry in entries:
            suite, case, lib, params = entry["suite"], entry["case"], entry["lib"], entry["params"]
            if suite == "limit":
                wanted = include_limits or (suites and "limit" in suites)
                if wanted and keep(params.get("block"), "block"):
                    cells.append(Cell.make(suite, case, lang, lib, params))
                continue
            if not (keep(suite, "suite") and keep(case, "case") and keep(lib, "lib")):
                continue
            if not all(keep(v, k) for k, v in params.items()):
                continue
            if params.get("mode") in catalog.PIPE_MODES:
                serves = [s for s, sigs in supported.items() if _signature(entry) in sigs]
                if pairs:
                    servers = [s for s in serves if (lang, s) in pairs]
                elif pair_filter is not None and all(
                    {"lib": lib, **params}.get(k) in allowed for k, allowed in pair_filter.items()
                ):
                    servers = serves
                else:
                    servers = [lang]
                for server in servers:
                    for placement in placements:
                        with_place = {**params, "placement": placement}
                        cells.append(Cell.make(suite, case, lang, lib, with_place, server))
            elif not pairs:
                cells.append(Cell.make(suite, case, lang, lib, params))
    cells = sorted(set(cells), key=sort_key)
    if not [c for c in cells if c.suite != "limit"] and suites != frozenset({"limit"}):
        raise MatrixError("the filters select no cell; `wirebench list` shows what exists")
    return cells


_ORDER = {v: i for values in catalog.PARAMS.values() for i, v in enumerate(values)}
_CASE_ORDER = {c: i for cases in catalog.CASES.values() for i, c in enumerate(cases)}
_LIB_ORDER = {"null": 0, "capnp": 1, "protobuf": 2, "memcpy": 3}


def sort_key(cell: Cell):
    """Reading order: suite, case, library (null first: the floor), mode, the rest."""
    p = cell.param
    return (
        list(catalog.SUITES).index(cell.suite),
        _CASE_ORDER.get(cell.case, 99),
        _LIB_ORDER.get(cell.lib, 50),
        cell.lib,
        cell.lang,
        cell.server_lang or "",
        [_ORDER.get(p.get(k, ""), 99) for k in ("mode", "compression", "reuse", "placement")],
        _ORDER.get(p.get("block", ""), 99),
    )
