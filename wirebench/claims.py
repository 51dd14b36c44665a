"""The seed reports' claims, judged by a run (docs/claims.toml; docs/results.md shows them).

A claim names what it compares and the seed's figure:

- `a` and `b`: two cells of one run, each a pattern `suite/case/lang/lib param=value ...`
  that must match exactly one cell (parameters left out take any value, but only one cell
  may match; twins and non-stock builds match only when asked for);
- `figure`: the seed's a/b of `metric` (time: a's time over b's; with `throughput = true`
  the seed's MB/s of a over b's, which we compute from our time ratio and the two cells'
  encoding sizes), or
- `direction`: "<" (a takes less) or ">" (more) where the seed gives no number, or
- `value` with `tolerance`: one cell's figure (a size) against the seed's, or
- `unmeasurable`: why this run cannot test it (a compiler Debian lacks, an API gone).

The verdict is computed, never written: *reproduced* when our 95% interval of the paired
ratio meets the seed's figure give or take a factor of 1.05 (`band`: a seed's figure
comes from one run without an interval, rounded; ours may be far narrower), or lies
wholly on the claimed side of 1;
*contradicted* when it does not (or lies wholly on the other side), printed with the
interval; *not resolved* when a direction's interval holds 1; *cannot be measured here*
with the claim's reason.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import model, registry, stats

REPRODUCED, CONTRADICTED, UNRESOLVED, UNMEASURABLE = (
    "reproduced",
    "contradicted",
    "not resolved",
    "cannot be measured here",
)
VERDICTS = (REPRODUCED, CONTRADICTED, UNRESOLVED, UNMEASURABLE)


class ClaimError(ValueError):
    """A claim the file states wrongly, or whose cells the run lacks."""


@dataclass(frozen=True)
class Claim:
    seed: str  # the seed report's number (../shared/seeds/NNN_*)
    says: str  # the claim, in the seed's words or close to them
    run: str  # the published run that judges it (docs/data/RUN.json.gz)
    a: str | None = None
    b: str | None = None
    metric: str = "time"
    figure: float | None = None
    direction: str | None = None
    throughput: bool = False
    value: float | None = None
    tolerance: float = 0.1
    band: float = 0.05  # a figure's own uncertainty: it is reproduced within a factor 1.05
    unmeasurable: str | None = None
    note: str | None = None  # what a reader should know to read the verdict


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    verdict: str
    ours: str  # our figure with its interval, as printed
    differs: str = ""  # what a and b differ in: the subject of the comparison


def load(path: Path) -> list[Claim]:
    try:
        entries = tomllib.loads(Path(path).read_text())["claim"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as e:
        raise ClaimError(f"{path}: {e}") from None
    claims = []
    for i, e in enumerate(entries, 1):
        try:
            c = Claim(**e)
        except TypeError as err:
            raise ClaimError(f"{path}: claim {i}: {err}") from None
        kinds = [c.figure is not None, c.direction is not None, c.value is not None]
        if c.unmeasurable is None and (sum(kinds) != 1 or c.a is None):
            raise ClaimError(
                f"{path}: claim {i} ({c.says!r}) needs `a` and one of figure, direction, "
                "value, or says why it is unmeasurable"
            )
        if (c.figure is not None or c.direction is not None) and c.b is None:
            raise ClaimError(f"{path}: claim {i} ({c.says!r}) compares: it needs `b`")
        if c.direction not in (None, "<", ">"):
            raise ClaimError(f"{path}: claim {i}: direction is '<' or '>', not {c.direction!r}")
        claims.append(c)
    return claims


def _pattern(p: str) -> tuple[str, dict[str, str]]:
    head, *params = p.split()
    try:
        return head, dict(kv.split("=", 1) for kv in params)
    except ValueError:
        raise ClaimError(f"{p!r}: parameters are written name=value") from None


def matches(cell, pattern: str) -> bool:
    """Whether `pattern` names `cell` (among others, perhaps): suite/case/driver/lib as
    in its key (cpp is g++, cpp@clang++ clang), then the parameters it fixes."""
    head, params = _pattern(pattern)
    params.setdefault("build", "stock")
    if head != f"{cell.suite}/{cell.case}/{cell.impl}":
        return False
    if "twin" in cell.param and "twin" not in params:
        return False
    implied = registry.of(cell).implied
    return all(cell.param.get(k, implied.get(k)) == v for k, v in params.items())


def cell_patterns(claims: list[Claim]) -> list[str]:
    """The cells the claims compare: what `wirebench run --claims` runs."""
    return [p for c in claims if c.unmeasurable is None for p in (c.a, c.b) if p]


def find(results: list[model.CellResult], pattern: str) -> model.CellResult:
    """The one cell of `results` that `pattern` names."""
    found = [r for r in results if matches(r.cell, pattern)]
    if len(found) != 1:
        which = "no cell" if not found else f"{len(found)} cells ({found[0].cell.key}, ...)"
        raise ClaimError(f"{pattern!r} names {which} of the run")
    return found[0]


def comparable(a, b) -> str:
    """What two cells set side by side differ in (their language, library, a parameter),
    refusing what a table must never mix silently: two build profiles."""
    pa, pb = dict(a.param), dict(b.param)
    if pa.get("build") != pb.get("build"):
        raise ClaimError(f"{a.key} and {b.key} are of different build profiles: compare within one")
    parts = [
        name
        for name, x, y in (
            ("driver", a.impl.rpartition("/")[0], b.impl.rpartition("/")[0]),
            ("case", a.case, b.case),
            ("library", a.lib, b.lib),
        )
        if x != y
    ]
    parts += [k for k in sorted(pa.keys() | pb.keys()) if pa.get(k) != pb.get(k)]
    return ", ".join(parts) or "nothing (an A/A pair)"


def judge(claim: Claim, results: list[model.CellResult]) -> Verdict:
    if claim.unmeasurable:
        return Verdict(claim, UNMEASURABLE, claim.unmeasurable)
    a = find(results, claim.a)
    if not a.ok:
        return Verdict(claim, UNMEASURABLE, f"{a.cell.key} failed in this run: {a.error}")
    if claim.value is not None:
        ours = a.summary(claim.metric).median
        ok = abs(ours / claim.value - 1) <= claim.tolerance
        return Verdict(claim, REPRODUCED if ok else CONTRADICTED, model.fmt_bytes(ours))
    b = find(results, claim.b)
    if not b.ok:
        return Verdict(claim, UNMEASURABLE, f"{b.cell.key} failed in this run: {b.error}")
    differs = comparable(a.cell, b.cell)
    q = model.ratio(a.metric(claim.metric), b.metric(claim.metric))
    if claim.throughput:  # MB/s a over b = (size a / time a) / (size b / time b)
        sizes = a.summary("size").median / b.summary("size").median
        q = stats.Ratio(sizes / q.value, sizes / q.high, sizes / q.low, q.paired)
    text = q.text()
    if not q.has_interval:
        verdict = UNRESOLVED
    elif claim.figure is not None:
        near = claim.figure / (1 + claim.band), claim.figure * (1 + claim.band)
        verdict = REPRODUCED if q.low <= near[1] and near[0] <= q.high else CONTRADICTED
    elif q.low <= 1 <= q.high:
        verdict = UNRESOLVED
    else:
        verdict = REPRODUCED if (q.high < 1) == (claim.direction == "<") else CONTRADICTED
    return Verdict(claim, verdict, text, differs)


def seed_figure(c: Claim) -> str:
    if c.figure is not None:
        return f"{c.figure:.3g}" + (" (MB/s)" if c.throughput else "")
    if c.direction is not None:
        return "a faster" if c.direction == "<" else "a slower"
    if c.value is not None:
        return f"{model.fmt_bytes(c.value)} ±{c.tolerance:.0%}"
    return "-"
