"""A/B in one run: `wirebench run --ab B [--ab A]` measures two sides of the same cells,
both sides of every cell back to back in each round (cells.Plan.tasks: a cell's sides do
the same work, so they share a group, and which goes first rotates from round to round),
and reads B against A cell by cell, paired by round (compare.py), with the geometric
mean of the whole.

A side is
- `committed`: the drivers as committed, in the stock build (A when only B is given);
- `build=tuned` (or `build=stock`): a build profile of the drivers as committed;
- `LANG:NAME=SOURCE`: a library variant of one driver (library_variants.py);
- `patch=FILE`: every driver of the run with a patch applied (a change under test);
- `rev=REVISION`: every driver of the run as a git revision has it (its own worktree).
The last three are in the stock build.

Pairing inside every round is what makes a small change visible here: two separate runs
differ by the machine's drift between them, which no process of either shows
(compare.between_runs); two sides of one round share it (docs/methodology.md, "A/B").
The two sides are two binaries whose layouts differ: an A/B run gives every round a
layout of its own (orchestrate.layouts), else rounds that reran a layout would be one
cluster of the interval (stats.clustered_mean), and its intervals would rest on K of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import compare, drivers, library_variants, model
from .cells import BUILDS, DEFAULT_BUILD, Cell

COMMITTED = "committed"


class ABError(ValueError):
    """An --ab side that cannot be, or two sides that are not an A/B."""


OWN_CODE = (library_variants.PATCH, library_variants.REVISION)


@dataclass(frozen=True)
class Side:
    text: str  # as given
    build: str = DEFAULT_BUILD
    label: str | None = None  # the variant its cells carry; None: the committed drivers
    lang: str | None = None  # a library variant's driver: the side has no other

    def to_json(self) -> dict:
        return {"text": self.text, "build": self.build, "label": self.label, "lang": self.lang}

    @staticmethod
    def from_json(d: dict) -> Side:
        return Side(d["text"], d["build"], d.get("label"), d.get("lang"))

    def holds(self, cell: Cell) -> bool:
        if self.lang is not None and cell.base_driver_id != self.lang:
            return False
        return cell.variant == self.label and cell.build == self.build


def side(text: str) -> Side:
    """One --ab value; a library variant is checked against its driver (built)."""
    if text == COMMITTED:
        return Side(text)
    if text.startswith("build="):
        build = text.removeprefix("build=")
        if build not in BUILDS:
            raise ABError(f"--ab {text!r}: builds are {', '.join(BUILDS)}")
        return Side(text, build=build)
    try:
        name, _, source = text.partition("=")
        if name in OWN_CODE and source:
            resolved = library_variants.resolve(f"--ab {text}", name, source)
            return Side(text, label=library_variants.Variant("", name, resolved).label)
        if is_variant(text):
            v = library_variants.parse(text)
            return Side(text, label=v.label, lang=v.lang)
    except library_variants.VariantError as e:
        raise ABError(str(e)) from None
    raise ABError(
        f"--ab {text!r}: a side is `committed`, `build=stock|tuned`, `patch=FILE`, "
        "`rev=REVISION` or a library variant LANG:NAME=SOURCE"
    )


def sides(texts: tuple[str, ...]) -> tuple[Side, Side]:
    """A and B from --ab B, or --ab A --ab B."""
    if len(texts) not in (1, 2):
        raise ABError(f"--ab takes B, or A and B (given {len(texts)})")
    a, b = (side(COMMITTED), side(texts[0])) if len(texts) == 1 else map(side, texts)
    if (a.build, a.label) == (b.build, b.label):
        raise ABError(f"--ab: A and B are the same ({a.text}, {b.text})")
    langs = {s.lang for s in (a, b) if s.lang}
    if len(langs) > 1:
        raise ABError(f"--ab: two library variants of two languages ({', '.join(sorted(langs))})")
    return a, b


def is_variant(text: str) -> bool:
    return ":" in text and "=" in text and not text.startswith("build=")


def variant_texts(texts: tuple[str, ...], names: list[str]) -> list[str]:
    """The variants the sides need, as --with names them: a library variant, and a patch
    or revision of each driver of the run (`names`) that is its language's own (a
    variant is per language: cpp-clang++, d-gdc and d-ldc2 build another compiler's binary
    of a tree they share, and their cells run on one side only)."""
    out = []
    own = [n for n in names if n not in drivers.DRIVERS or drivers.DRIVERS[n].lang == n]
    for t in texts:
        name, _, source = t.partition("=")
        if name in OWN_CODE and source:
            out += [f"{n}:{t}" for n in own]
        elif is_variant(t):
            out.append(t)
    return out


def builds(texts: tuple[str, ...]) -> set[str]:
    """The builds the sides run (a library variant and `committed`: stock), read without
    building anything: the run's build filter."""
    named = {t.removeprefix("build=") for t in texts if t.startswith("build=")}
    return named | ({DEFAULT_BUILD} if len(texts) == 1 or len(named) < len(texts) else set())


def match(cell: Cell) -> tuple:
    """What a cell's two sides share: all but their build and library variant."""
    return (cell.suite, cell.case, cell.lib, cell.lang, cell.toolchain, cell.server_lang, cell.work)


def keep(cells: list[Cell], a: Side, b: Side) -> list[Cell]:
    """The cells of an A/B run: each cell on both sides, nothing else (no A/A twin)."""
    mine = [c for c in cells if "twin" not in c.param and (a.holds(c) or b.holds(c))]
    on_a = {match(c) for c in mine if a.holds(c)}
    on_b = {match(c) for c in mine if b.holds(c)}
    both = [c for c in mine if match(c) in on_a & on_b]
    if not both:
        raise ABError(f"--ab: the filters select no cell that both {a.text} and {b.text} run")
    return both


def comparison(
    results: list[model.CellResult],
    run: dict,
    provenance: dict,
    plan_sides: tuple[dict, ...],
    threshold: float = compare.AB_THRESHOLD,
    alpha: float = compare.DEFAULT_ALPHA,
) -> compare.Comparison:
    """A stored A/B run's B against its A (its plan's sides), cell by cell, paired by
    round."""
    a, b = (Side.from_json(s) for s in plan_sides)
    sides = (
        compare.Side(
            s.text, run, provenance, {match(r.cell): r for r in results if s.holds(r.cell)}
        )
        for s in (a, b)
    )
    return compare.compare(*sides, threshold=threshold, alpha=alpha)
