"""The seed reports' claims, judged by a run (docs/claims.toml; docs/results.md shows them).

A claim names what it compares and the seed's figure:

- `a` and `b`: two cells of one run, each a pattern `suite/case/lang/lib param=value ...`
  that must match exactly one cell (parameters left out take any value, but only one cell
  may match; twins and non-stock builds match only when asked for);
- optionally `c` and `d`: two more, for a relative statement ("Rust's relative
  performance degrades when it does I/O"): the claim is then about (a/b) / (c/d), paired
  within the run (stats.paired_ratio_of_ratios);
- `figure`: the seed's a/b of `metric` (time: a's time over b's; with `throughput = true`
  the seed's MB/s of a over b's, which we compute from our time ratio and the two cells'
  encoding sizes), or
- `direction`: "<" (a takes less) or ">" (more) where the seed gives no number, or
- `value` with `tolerance`: one cell's figure (a size, exact) against the seed's, or
- `unmeasurable`: why this run cannot test it (a compiler Debian lacks, an API gone).

The verdict is computed, never written, from our 95% interval of the paired ratio:

- a figure is one run's, without an interval: it stands for any truth within the
  scatter one run of that pair shows, its *band*: the figure times or divided by our own
  single-round 95% prediction range (stats.one_round_range), never less than `band`
  (0.05: the seed's rounding) and never more than MAX_BAND. *Reproduced* when our
  interval lies inside the band; *contradicted* when it lies wholly outside: *in
  direction* when the band lies wholly on one side of 1 and our interval on the other,
  *in size* otherwise; *not resolved* when it crosses an edge of the band;
- a direction: *reproduced* when the interval lies wholly on the claimed side of 1,
  *contradicted in direction* when wholly on the other, *not resolved* when it holds 1;
- a value (exact: sizes): *reproduced* within `tolerance`, else *contradicted in size*;
- *cannot be measured here* with the claim's reason.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import model, registry, stats

REPRODUCED = "reproduced"
WRONG_DIRECTION = "contradicted: direction"
WRONG_SIZE = "contradicted: size"
UNRESOLVED = "not resolved"
UNMEASURABLE = "cannot be measured here"
VERDICTS = (REPRODUCED, WRONG_DIRECTION, WRONG_SIZE, UNRESOLVED, UNMEASURABLE)


class ClaimError(ValueError):
    """A claim the file states wrongly, or whose cells the run lacks."""


@dataclass(frozen=True)
class Claim:
    seed: str  # the seed report's number (../shared/seeds/NNN_*)
    says: str  # the claim, in the seed's words or close to them
    run: str  # the published run that judges it (docs/data/RUN.json.gz)
    a: str | None = None
    b: str | None = None
    c: str | None = None  # with d: the claim is about (a/b) / (c/d)
    d: str | None = None
    metric: str = "time"
    figure: float | None = None
    direction: str | None = None
    throughput: bool = False
    value: float | None = None
    tolerance: float = 0.1
    band: float = 0.05  # the least band about a figure: its rounding
    unmeasurable: str | None = None
    note: str | None = None  # what a reader should know to read the verdict
    # Why this one is shown beside the seed's claim rather than counted as it: the same
    # statement judged on a setup of ours the seed did not run.
    beside: str | None = None


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    verdict: str
    ours: str  # our figure with its interval, as printed
    differs: str = ""  # what a and b differ in: the subject of the comparison
    within: str = ""  # a figure's band, as printed


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
        if (c.c is None) != (c.d is None) or (c.c and (c.value is not None or c.throughput)):
            raise ClaimError(
                f"{path}: claim {i} ({c.says!r}): `c` and `d` come together, for a figure or "
                "direction of (a/b) / (c/d) in time"
            )
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
    return [p for c in claims if c.unmeasurable is None for p in (c.a, c.b, c.c, c.d) if p]


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
    cells = [find(results, p) for p in (claim.a, claim.b, claim.c, claim.d) if p]
    failed = [r for r in cells if not r.ok]
    if failed:
        r = failed[0]
        return Verdict(claim, UNMEASURABLE, f"{r.cell.key} failed in this run: {r.error}")
    if claim.value is not None:
        ours = cells[0].summary(claim.metric).median
        ok = abs(ours / claim.value - 1) <= claim.tolerance
        return Verdict(claim, REPRODUCED if ok else WRONG_SIZE, model.fmt_bytes(ours))
    a, b = cells[0], cells[1]
    differs = comparable(a.cell, b.cell)
    m = [r.metric(claim.metric) for r in cells]
    if len(cells) == 4:
        comparable(cells[2].cell, cells[3].cell)
        log, rounds = stats.paired_ratio_of_ratios(
            (m[0].rounds, m[1].rounds),
            (m[2].rounds, m[3].rounds),
            m[0].pilot,
            tuple(x.layouts for x in m),
        )
        q = log.ratio()[0]
        differs = f"{differs}; against {comparable(cells[2].cell, a.cell)}"
    else:
        q = model.ratio(m[0], m[1])
        rounds = stats.round_logs(m[0].rounds, m[1].rounds)
    if claim.throughput:  # MB/s a over b = (size a / time a) / (size b / time b)
        sizes = a.summary("size").median / b.summary("size").median
        q = stats.Ratio(sizes / q.value, sizes / q.high, sizes / q.low, q.paired)
    if not q.has_interval:
        return Verdict(claim, UNRESOLVED, q.text(), differs)
    if claim.figure is None:
        if q.low <= 1 <= q.high:
            verdict = UNRESOLVED
        else:
            verdict = REPRODUCED if (q.high < 1) == (claim.direction == "<") else WRONG_DIRECTION
        return Verdict(claim, verdict, q.text(), differs)
    low, high = band(claim, rounds)
    return Verdict(claim, figure_verdict(low, high, q), q.text(), differs, f"{low:.2f}-{high:.2f}")


# The widest band a figure gets: one round here can scatter 3x (readbytes, a host whose
# neighbour slows a process 1.7x at times), which the seeds' long single runs on their own
# machines did not; a band that wide would call a figure reproduced by a ratio half or
# twice its size, which no careful reader would.
MAX_BAND = 0.25


def band(claim: Claim, rounds) -> tuple[float, float]:
    """The truths a single-run figure stands for: the figure times or divided by one
    round's 95% prediction range here, at least the figure's rounding and at most
    MAX_BAND."""
    spread = stats.one_round_range(rounds)
    spread = min(spread, math.log1p(MAX_BAND)) if math.isfinite(spread) else 0.0
    half = max(math.log1p(claim.band), spread)
    return claim.figure * math.exp(-half), claim.figure * math.exp(half)


def figure_verdict(low: float, high: float, q: stats.Ratio) -> str:
    """Our interval against a figure's band [low, high]."""
    if low <= q.low and q.high <= high:
        return REPRODUCED
    if low <= q.high and q.low <= high:
        return UNRESOLVED
    band_side, our_side = (high < 1) - (low > 1), (q.high < 1) - (q.low > 1)
    return WRONG_DIRECTION if band_side and our_side and band_side != our_side else WRONG_SIZE


def seed_figure(c: Claim) -> str:
    if c.figure is not None:
        return f"{c.figure:.3g}" + (" (MB/s)" if c.throughput else "")
    if c.direction is not None and c.c:
        return "a/b below c/d" if c.direction == "<" else "a/b above c/d"
    if c.direction is not None:
        return "a faster" if c.direction == "<" else "a slower"
    if c.value is not None:
        return f"{model.fmt_bytes(c.value)} ±{c.tolerance:.0%}"
    return "-"
