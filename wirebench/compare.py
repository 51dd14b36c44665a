"""Comparisons a CI job can act on: two runs (before and after a change, or two machines)
or two drivers or libraries within one run, cell by cell, each judged faster, slower or
no different.

The second side is read against the first (the base): B/A of the median per iteration,
with its 95% interval and a Mann-Whitney U test on the samples. A cell is called slower
or faster only when all three agree:
- the ratio is farther from 1 than the threshold (default ±10%: this machine's processes
  differ by more than 5% from run to run, docs/methodology.md "Comparing runs");
- its 95% interval excludes 1. Between two runs the ratio is unpaired (each side's
  processes resampled on their own, stats.unpaired_ratio), since their rounds did not
  run side by side; within one run it is paired by round;
- the U test's two-sided p is below alpha. Samples of one process are not independent,
  so the test alone would call a shift between two processes a difference: it is a
  guard on the interval, never the verdict alone.

Instruction counts (valgrind, exact) are compared beside the time where both sides
counted, and are the compared metric of a run that only counted (no U test: a count
does not vary by chance, only the threshold and the interval apply).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import mannwhitneyu

from . import report, stats, suites
from .cells import sort_key

DEFAULT_THRESHOLD = 0.10
DEFAULT_ALPHA = 0.05
SLOWER, FASTER, SAME = "slower", "faster", "no difference"


class CompareError(ValueError):
    pass


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a run, or one driver or library of a run."""

    label: str
    run: dict
    provenance: dict
    results: dict[tuple, report.CellResult]  # by the key the two sides are matched on


@dataclass(frozen=True)
class Row:
    cell: str  # the base side's cell key
    metric: str
    unit: str
    a: stats.Summary
    b: stats.Summary
    ratio: stats.Ratio  # B/A
    p_value: float | None  # None: an exact count, not tested
    verdict: str
    instructions: float | None = None  # B/A of instructions, where both sides counted

    def to_json(self) -> dict:
        q = self.ratio
        return {
            "cell": self.cell,
            "metric": self.metric,
            "unit": self.unit,
            "a": _summary_json(self.a),
            "b": _summary_json(self.b),
            "ratio": q.value,
            "ci95": [q.low, q.high],
            "paired": q.paired,
            "p_value": self.p_value,
            "verdict": self.verdict,
            "instructions_ratio": self.instructions,
        }


@dataclass
class Comparison:
    a: Side
    b: Side
    threshold: float
    alpha: float
    rows: list[Row] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    failed: list[tuple[str, str, str]] = field(default_factory=list)  # (cell, side, error)
    notes: list[str] = field(default_factory=list)

    def count(self, verdict: str) -> int:
        return sum(r.verdict == verdict for r in self.rows)

    def regressed(self, fail_on: str) -> bool:
        """Whether a CI job should fail: a slower cell, or a cell with a number on the base
        side and none on the other (fail_on "slower"); any difference ("any"); never."""
        if fail_on == "never":
            return False
        broke = any(side == "B" for _, side, _ in self.failed)
        if fail_on == "any":
            return broke or self.count(SLOWER) + self.count(FASTER) > 0
        return broke or self.count(SLOWER) > 0


def _summary_json(s: stats.Summary) -> dict:
    return {
        "median": s.median,
        "ci95": [s.low, s.high],
        "samples": s.n_samples,
        "processes": s.n_processes,
    }


def verdict(q: stats.Ratio, p: float | None, threshold: float, alpha: float) -> str:
    if abs(q.value - 1) <= threshold or q.low <= 1 <= q.high:
        return SAME
    if p is not None and p >= alpha:
        return SAME
    return SLOWER if q.value > 1 else FASTER


def _u_test(a: report.MetricData, b: report.MetricData) -> float | None:
    xa = [v for g in a.groups for v in g]
    xb = [v for g in b.groups for v in g]
    if len(xa) < 2 or len(xb) < 2:
        return None
    if np.ptp(xa + xb) == 0:
        return 1.0  # every sample equal on both sides: nothing to test
    return float(mannwhitneyu(xb, xa, alternative="two-sided").pvalue)


def _compared(ra: report.CellResult, rb: report.CellResult) -> list[str]:
    """The metrics two cells are compared on: the suite's timed ones both have, or for
    runs that only counted instructions, the count."""
    spec = suites.SUITES[ra.cell.suite]
    timed = [m for m in spec.compared_metrics if m in ra.metrics and m in rb.metrics]
    counted = "instructions" in ra.metrics and "instructions" in rb.metrics
    return timed or (["instructions"] if counted else [])


def compare(a: Side, b: Side, threshold=DEFAULT_THRESHOLD, alpha=DEFAULT_ALPHA) -> Comparison:
    """Every cell the two sides share, judged; the cells of one side only, and the failed."""
    out = Comparison(a, b, threshold, alpha)
    paired = a.run["id"] == b.run["id"]
    for key in sorted(a.results.keys() | b.results.keys(), key=lambda k: _order(a, b, k)):
        ra, rb = a.results.get(key), b.results.get(key)
        if ra is None or rb is None:
            (out.only_a if rb is None else out.only_b).append((ra or rb).cell.key)
            continue
        if not (ra.ok and rb.ok):
            for side, r in (("A", ra), ("B", rb)):
                if not r.ok:
                    out.failed.append((r.cell.key, side, r.error or r.status))
            continue
        for metric in _compared(ra, rb):
            ma, mb = ra.metric(metric), rb.metric(metric)
            if paired:
                q = stats.paired_ratio(mb.rounds, ma.rounds)
            else:
                q = stats.unpaired_ratio(mb.groups, ma.groups)
            p = None if metric == "instructions" else _u_test(ma, mb)
            instr = None
            if metric != "instructions" and all("instructions" in r.metrics for r in (ra, rb)):
                instr = rb.summary("instructions").median / ra.summary("instructions").median
            out.rows.append(
                Row(
                    ra.cell.key,
                    metric,
                    ma.unit,
                    ma.summary,
                    mb.summary,
                    q,
                    p,
                    verdict(q, p, threshold, alpha),
                    instr,
                )
            )
    out.notes = _notes(a, b)
    return out


def _order(a: Side, b: Side, key):
    r = a.results.get(key) or b.results.get(key)
    return sort_key(r.cell)


def _notes(a: Side, b: Side) -> list[str]:
    """What differs between the two sides beyond the cells: the reader must know."""
    notes = []
    if a.run["id"] == b.run["id"]:
        return notes
    if a.run["profile"] != b.run["profile"]:
        notes.append(
            f"the runs used different profiles ({a.run['profile']}, {b.run['profile']}): "
            "times per iteration are compared, over different counts"
        )
    host_a, host_b = (s.provenance.get("host") for s in (a, b))
    if host_a != host_b:
        notes.append(
            f"the runs are of two machines ({host_a}, {host_b}): a difference is the "
            "machines' as much as the code's"
        )
    for s in (a, b):
        if s.run["status"] != "complete":
            notes.append(f"{s.label} is {s.run['status']}: only its finished cells count")
    return notes


# -- the sides -------------------------------------------------------------------------------


def _cells(store, run_id: int) -> list[report.CellResult]:
    """A run's cells without its A/A twins (measuring instruments, not work)."""
    return [r for r in report.load(store, run_id) if "twin" not in r.cell.param]


def run_side(store, run_id: int) -> Side:
    row = _run(store, run_id)
    return Side(
        f"run {run_id}",
        dict(row),
        json.loads(row["provenance"]),
        {r.cell.key: r for r in _cells(store, run_id)},
    )


def within_sides(store, run_id: int, first: str, second: str) -> tuple[Side, Side]:
    """Two drivers (cpp:rust, cpp:cpp-clang++: same library and parameters) or two
    libraries (protobuf:capnp: same driver and parameters) of one run, matched cell by
    cell; cross-language pipe cells belong to neither."""
    row = _run(store, run_id)
    results = [r for r in _cells(store, run_id) if r.cell.server_lang in (None, r.cell.lang)]
    drivers_ = {r.cell.driver_id for r in results}
    libs = {r.cell.lib for r in results}
    if {first, second} <= drivers_:
        group = lambda c: c.driver_id  # noqa: E731
        match = lambda c: (c.suite, c.case, c.lib, c.params)  # noqa: E731
    elif {first, second} <= libs:
        group = lambda c: c.lib  # noqa: E731
        match = lambda c: (c.suite, c.case, c.driver_id, c.params)  # noqa: E731
    else:
        raise CompareError(
            f"--between takes two drivers ({', '.join(sorted(drivers_))}) or two libraries "
            f"({', '.join(sorted(libs))}) of run {run_id}, not {first}:{second}"
        )
    prov = json.loads(row["provenance"])
    return tuple(
        Side(
            f"run {run_id} {name}",
            dict(row),
            prov,
            {match(r.cell): r for r in results if group(r.cell) == name},
        )
        for name in (first, second)
    )


def _run(store, run_id: int):
    row = store.run(run_id)
    if row is None:
        raise CompareError(f"no run {run_id} in the results database; `wirebench runs` lists them")
    return row


# -- renderers -------------------------------------------------------------------------------


def _revision(prov: dict) -> str:
    git = prov.get("git") or {}
    return (git.get("revision") or "unknown")[:12] + (" (dirty)" if git.get("dirty") else "")


def rule(c: Comparison) -> str:
    return (
        f"A cell is slower or faster when B/A of its median per iteration is beyond "
        f"±{c.threshold:.0%}, its 95% interval excludes 1, and a two-sided Mann-Whitney U "
        f"test on the samples gives p < {c.alpha:g} (instruction counts: no test, exact)."
    )


def markdown(c: Comparison) -> str:
    a, b = c.a, c.b
    out = [f"## wirebench compare: {b.label} (B) against {a.label} (A)", ""]
    out += ["| | A | B |", "|---|---|---|"]
    for name, get in (
        ("run", lambda s: f"{s.run['id']} ({s.run['status']})"),
        ("revision", lambda s: _revision(s.provenance)),
        ("host", lambda s: f"{s.provenance.get('host')}, {s.provenance.get('cpu')}"),
        ("profile", lambda s: s.run["profile"]),
        ("started", lambda s: s.run["started"]),
    ):
        out.append(f"| {name} | {get(a)} | {get(b)} |")
    out += ["", rule(c), ""]
    out.append(
        f"**{c.count(SLOWER)} slower, {c.count(FASTER)} faster, {c.count(SAME)} no "
        f"difference** ({len(c.rows)} comparisons); {len(c.only_a)} cells only in A, "
        f"{len(c.only_b)} only in B, {len(c.failed)} failed."
    )
    out += [""] + [f"- Note: {n}" for n in c.notes] + ([""] if c.notes else [])
    for title, verdict_, folded in (
        ("Slower", SLOWER, False),
        ("Faster", FASTER, False),
        ("No difference", SAME, True),
    ):
        rows = [r for r in c.rows if r.verdict == verdict_]
        if not rows:
            continue
        if folded:
            out += [f"<details><summary>{title} ({len(rows)})</summary>", ""]
        else:
            out += [f"### {title} ({len(rows)})", ""]
        out += _table(rows) + [""]
        if folded:
            out += ["</details>", ""]
    for title, keys in (("Only in A", c.only_a), ("Only in B", c.only_b)):
        if keys:
            out += [f"### {title} ({len(keys)})", ""] + [f"- {k}" for k in keys] + [""]
    if c.failed:
        out += [f"### Failed ({len(c.failed)})", ""]
        out += [f"- {key} (in {side}): {err}" for key, side, err in c.failed] + [""]
    return "\n".join(out).rstrip() + "\n"


def _table(rows: list[Row]) -> list[str]:
    instr = any(r.instructions is not None for r in rows)
    head = ["cell", "metric", "A", "B", "B/A [95% CI]", "p"] + (["instr B/A"] if instr else [])
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        q = r.ratio
        cells = [
            r.cell.replace("|", "\\|"),
            r.metric,
            report.fmt_value(r.a.median, r.unit),
            report.fmt_value(r.b.median, r.unit),
            f"{q.value:.3f} [{q.low:.3f}-{q.high:.3f}]",
            "-" if r.p_value is None else f"{r.p_value:.2g}",
        ]
        if instr:
            cells.append("-" if r.instructions is None else f"{r.instructions:.3f}")
        out.append("| " + " | ".join(cells) + " |")
    return out


def as_json(c: Comparison) -> dict:
    def side(s: Side) -> dict:
        return {
            "label": s.label,
            "run": s.run["id"],
            "status": s.run["status"],
            "profile": s.run["profile"],
            "revision": (s.provenance.get("git") or {}).get("revision"),
            "host": s.provenance.get("host"),
        }

    return {
        "a": side(c.a),
        "b": side(c.b),
        "threshold": c.threshold,
        "alpha": c.alpha,
        "summary": {v: c.count(v) for v in (SLOWER, FASTER, SAME)},
        "rows": [r.to_json() for r in c.rows],
        "only_a": c.only_a,
        "only_b": c.only_b,
        "failed": [{"cell": k, "side": s, "error": e} for k, s, e in c.failed],
        "notes": c.notes,
    }
