"""Comparisons a CI job can act on: two runs (before and after a change, or two machines)
or two drivers or libraries within one run, cell by cell, each judged faster, slower or
no different.

The unit is the process, as in the headline ratios (docs/methodology.md, "Comparing
runs"): processes of one cell differ here by far more than the samples within one, so
samples are not independent measurements. The second side is read against the first
(the base): B/A of the geometric means of the process medians, with a Student t 95%
interval on their logs and the t test's p (stats.process_log_ratio: paired by round within
one run, rounds that ran one layout variant of a binary counted as one cluster; Welch's
between two runs). A comparison tests hundreds of cells at once, and at
p < 0.05 each a rerun of the same code would call one in twenty different: the p values
are adjusted for that (Benjamini-Hochberg, the false discovery rate). A cell is called
slower or faster only when
- the ratio is farther from 1 than the threshold (default ±10%), and
- its adjusted p (q) is below alpha (default 0.05).
What that can call is printed with it (smallest_line): the smallest change of one cell
the verdict calls with 80% power, the threshold and the adjustment included.

A rank test (Mann-Whitney U) was the first choice and is not used: on the three to five
process medians a cell has, its smallest possible p (0.1 at three a side, 0.008 at five)
cannot survive the adjustment over hundreds of cells, and on the pooled samples it
counts every sample of a process as an independent measurement.

Instruction counts (valgrind, exact) are compared beside the time where both sides
counted, and are the compared metric of a run that only counted; a count does not vary
by chance, so it takes the threshold alone.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field

import numpy as np

from . import model, registry, report, stats

DEFAULT_THRESHOLD = 0.10
# An A/B run's sides share every round, which leaves far less noise than two runs do: a
# change of a few percent is within its reach, and a library author's concern. Its
# intervals count code layouts (every round on variants of its own: stats.clustered_mean),
# so the threshold need not stand in for a layout's shift (an untouched cell moved 1.7%
# when six variants were counted as eighteen rounds): 1%, so that a 2% change can be
# called with 80% power at all (stats.verdict_power).
AB_THRESHOLD = 0.01
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
    results: dict[tuple, model.CellResult]  # by the key the two sides are matched on


@dataclass(frozen=True)
class Row:
    cell: str  # the base side's cell key
    metric: str
    unit: str
    a: stats.Summary
    b: stats.Summary
    raw: float  # B/A
    ratio: stats.Ratio | None  # B/A over the run's shift (the same without one), judged
    p_value: float | None  # the t test's; None: an exact count, or one process a side
    instructions: float | None = None  # B/A of instructions, where both sides counted
    q_value: float | None = None  # p adjusted for the comparison's many cells
    verdict: str = ""
    # The smallest change of this cell alone the verdict calls, 80% power (stats.detectable)
    detectable: float | None = None

    def to_json(self) -> dict:
        q = self.ratio
        return {
            "cell": self.cell,
            "metric": self.metric,
            "unit": self.unit,
            "a": _summary_json(self.a),
            "b": _summary_json(self.b),
            "ratio": self.raw,
            "relative": q.value,
            "ci95": stats.ci_json(q.low, q.high),
            "paired": q.paired,
            "p_value": self.p_value,
            "p_adjusted": self.q_value,
            "verdict": self.verdict,
            "detectable": self.detectable,
            "instructions_ratio": self.instructions,
        }


@dataclass(frozen=True)
class Shift:
    """Two runs: how every cell moved together (the median of their ratios, with a
    bootstrap interval over the cells), and how much more the cells scatter about it than
    their processes explain (a relative standard deviation)."""

    ratio: stats.Ratio
    scatter: float
    verdict: str


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
    shift: Shift | None = None  # two runs of enough cells: how the whole run moved
    # One run's two sides (an A/B): the geometric mean of B/A over every timed
    # comparison, paired by round, with its 95% interval.
    geomean: stats.Ratio | None = None

    def count(self, verdict: str) -> int:
        return sum(r.verdict == verdict for r in self.rows)

    def regressed(self, fail_on: str) -> bool:
        """Whether a CI job should fail: a slower cell, or a cell with a number on the base
        side and none on the other (fail_on "slower"); any difference ("any"); never."""
        if fail_on == "never":
            return False
        broke = any(side == "B" for _, side, _ in self.failed)
        overall = self.shift.verdict if self.shift else SAME
        if fail_on == "any":
            return broke or overall != SAME or self.count(SLOWER) + self.count(FASTER) > 0
        return broke or overall == SLOWER or self.count(SLOWER) > 0


def _summary_json(s: stats.Summary) -> dict:
    return {
        "median": s.median,
        "ci95": stats.ci_json(s.low, s.high),
        "samples": s.n_samples,
        "processes": s.n_processes,
    }


def verdict(q: stats.Ratio, p_adjusted: float | None, threshold: float, alpha: float) -> str:
    """Slower or faster only when the change is beyond the threshold and its adjusted p
    says it is not chance; an exact count (an interval of one point) needs no test."""
    if abs(q.value - 1) <= threshold:
        return SAME
    exact = q.low == q.value == q.high
    if not exact and (p_adjusted is None or p_adjusted >= alpha):
        return SAME
    return SLOWER if q.value > 1 else FASTER


def adjust(p_values, axis: int = -1) -> np.ndarray:
    """The p values adjusted for the comparison's many cells (Benjamini-Hochberg: q), along
    `axis` (the coverage tests adjust thousands of simulated comparisons at once)."""
    from scipy.stats import false_discovery_control  # seconds to import: only here

    return false_discovery_control(np.asarray(p_values, dtype=float), axis=axis)


MIN_CELLS = 8  # the fewest timed comparisons a run's shift and scatter are read from


def between_runs(logs: list[stats.LogRatio]) -> tuple[float, float, stats.Ratio]:
    """What two runs differ by beyond the processes of each. Every cell moves with the
    machine's state between the runs (steal, other tenants), which no process of either run
    shows: the median of the cells' log ratios is that shift, and their robust spread about
    it (1.4826 median absolute deviations), less the part their processes explain, a
    standard deviation each cell's interval is widened by, as a random-effects
    meta-analysis widens for heterogeneity. Both are robust: a change in a few cells moves
    neither. A change in most cells is the shift, judged on its own line."""
    d = np.array([log.value for log in logs])
    shift = float(np.median(d))
    spread = 1.4826 * float(np.median(np.abs(d - shift)))
    own = float(np.median([log.se**2 for log in logs if np.isfinite(log.se)] or [0.0]))
    rng = np.random.default_rng(0x5EED)
    boots = np.median(d[rng.integers(0, len(d), (stats.BOOTSTRAP, len(d)))], axis=1)
    low, high = np.exp(np.quantile(boots, [0.025, 0.975]))
    ratio = stats.Ratio(float(np.exp(shift)), float(low), float(high), paired=False)
    return shift, float(np.sqrt(max(0.0, spread**2 - own))), ratio


def _compared(ra: model.CellResult, rb: model.CellResult) -> list[str]:
    """The metrics two cells are compared on: the suite's timed ones both have, or for
    runs that only counted instructions, the count."""
    spec = registry.SUITES[ra.cell.suite]
    timed = [m for m in spec.compared_metrics if m in ra.metrics and m in rb.metrics]
    counted = "instructions" in ra.metrics and "instructions" in rb.metrics
    return timed or (["instructions"] if counted else [])


def compare(a: Side, b: Side, threshold=DEFAULT_THRESHOLD, alpha=DEFAULT_ALPHA) -> Comparison:
    """Every cell the two sides share, judged; the cells of one side only, and the failed."""
    out = Comparison(a, b, threshold, alpha)
    paired = a.run["uid"] == b.run["uid"]  # one run (ids differ between stores)
    logs: dict[int, stats.LogRatio] = {}  # by row: the timed comparisons
    rounds: list[tuple[dict, dict]] = []  # and their rounds, B's and A's
    layouts: list[tuple[dict, dict]] = []  # and the layouts of those rounds
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
            v = mb.summary.median / ma.summary.median
            instr = None
            if metric != "instructions" and all("instructions" in r.metrics for r in (ra, rb)):
                instr = rb.summary("instructions").median / ra.summary("instructions").median
            exact = stats.Ratio(v, v, v, paired)  # a count: no interval, no test
            if metric != "instructions":
                logs[len(out.rows)] = stats.process_log_ratio(
                    mb.rounds,
                    ma.rounds,
                    paired,
                    mb.pilot if paired else None,
                    (mb.layouts, ma.layouts),
                )
                rounds.append((mb.rounds, ma.rounds))
                layouts.append((mb.layouts, ma.layouts))
            out.rows.append(
                Row(ra.cell.key, metric, ma.unit, ma.summary, mb.summary, v, exact, None, instr)
            )
    shift = scatter = 0.0
    if paired and rounds:
        out.geomean = stats.paired_geomean_ratio(rounds, layouts=layouts)
    if not paired and len(logs) >= MIN_CELLS:
        shift, scatter, whole = between_runs(list(logs.values()))
        moved = SAME
        if abs(whole.value - 1) > threshold and not whole.low <= 1 <= whole.high:
            moved = SLOWER if whole.value > 1 else FASTER
        out.shift = Shift(whole, scatter, moved)
    relative = {i: dataclasses.replace(log, value=log.value - shift) for i, log in logs.items()}
    for i, log in relative.items():
        q, p = log.ratio(extra_var=scatter**2)
        raw = float(np.exp(logs[i].value))
        out.rows[i] = dataclasses.replace(out.rows[i], raw=raw, ratio=q, p_value=p)
    tested = [i for i, r in enumerate(out.rows) if r.p_value is not None]
    if tested:
        adjusted = adjust([out.rows[i].p_value for i in tested])
        for i, qv in zip(tested, adjusted, strict=True):
            out.rows[i] = dataclasses.replace(out.rows[i], q_value=float(qv))
    for i, log in relative.items():
        # What the verdict below can call: its threshold, and q < alpha over the tests.
        seen = stats.detectable(log, scatter**2, 0.8, threshold, alpha, max(len(tested), 1))
        out.rows[i] = dataclasses.replace(out.rows[i], detectable=seen)
    out.rows = [
        dataclasses.replace(r, verdict=verdict(r.ratio, r.q_value, threshold, alpha))
        for r in out.rows
    ]
    out.notes = _notes(a, b)
    if not paired and logs and out.shift is None:
        out.notes.append(
            f"fewer than {MIN_CELLS} cells compared: how the whole run moved cannot be read, "
            "and the intervals leave it out"
        )
    return out


def _order(a: Side, b: Side, key):
    r = a.results.get(key) or b.results.get(key)
    return registry.sort_key(r.cell)


def _notes(a: Side, b: Side) -> list[str]:
    """What differs between the two sides beyond the cells: the reader must know."""
    notes = []
    if a.run["uid"] == b.run["uid"]:
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


def _cells(store, run_id: int) -> list[model.CellResult]:
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
    """Two drivers (cpp:rust, cpp:cpp-clang++, rust:rust+capnp@0.26.0: same library and
    work), two libraries (protobuf:capnp: same driver and work) or two builds
    (stock:tuned) of one run, matched cell by cell; cross-language pipe cells belong to
    neither."""
    row = _run(store, run_id)
    results = [r for r in _cells(store, run_id) if r.cell.server_lang in (None, r.cell.lang)]
    drivers_ = {r.cell.driver_id for r in results}
    libs = {r.cell.lib for r in results}
    builds = {r.cell.build for r in results}
    if {first, second} <= drivers_:  # a library variant is a driver of its own
        group = lambda c: c.driver_id  # noqa: E731
        match = lambda c: (c.suite, c.case, c.lib, c.work, c.build)  # noqa: E731
    elif {first, second} <= libs:
        group = lambda c: c.lib  # noqa: E731
        match = lambda c: (c.suite, c.case, c.driver_id, c.work, c.build)  # noqa: E731
    elif {first, second} <= builds:
        group = lambda c: c.build  # noqa: E731
        match = lambda c: (c.suite, c.case, c.lib, c.driver_id, c.work)  # noqa: E731
    else:
        raise CompareError(
            f"--between takes two drivers ({', '.join(sorted(drivers_))}), two libraries "
            f"({', '.join(sorted(libs))}) or two builds ({', '.join(sorted(builds))}) of run "
            f"{run_id}, not {first}:{second}"
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
    pairing = "paired by round" if c.a.run["uid"] == c.b.run["uid"] else "Welch's"
    tested = sum(r.p_value is not None for r in c.rows)
    shift = (
        " Between two runs each cell is judged against how the whole run moved (the shift "
        "below: `÷ shift`), with its interval widened by how much more the cells scatter "
        "than their processes explain."
        if c.shift
        else ""
    )
    return (
        "B/A is the ratio of the geometric means of the cells' process medians (time per "
        f"iteration), with a Student t 95% interval ({pairing}); p is the t test's, q the "
        f"same adjusted for the {tested} comparisons tested (Benjamini-Hochberg).{shift} A "
        f"cell is slower or faster when its ratio is beyond ±{c.threshold:.0%} and "
        f"q < {c.alpha:g}; instruction counts are exact and take the threshold alone."
    )


def shift_line(c: Comparison) -> str:
    w = c.shift
    if w is None:
        return ""
    q = w.ratio
    return (
        f"**The whole run: B/A {q.value:.3f} [{q.low:.3f}-{q.high:.3f}], {w.verdict}** (the "
        f"median over the cells: the machines' drift between the runs, or a change that "
        f"touches everything); the cells scatter about it by ±{w.scatter:.1%} beyond their "
        "processes' noise."
    )


def smallest_line(c: Comparison) -> str:
    """What the verdict can call: the smallest slowdown of one cell (the others unchanged)
    that it calls with 80% power, beyond the threshold and with q < alpha, which asks of
    a lone change p < alpha / the number of comparisons tested (stats.detectable)."""
    tested = sum(r.p_value is not None for r in c.rows)
    sizes = sorted(r.detectable for r in c.rows if r.detectable is not None)
    if not sizes:
        return ""
    never = sum(r.p_value is not None and r.detectable is None for r in c.rows)
    return (
        f"The smallest change the verdict calls in a cell with 80% power (that cell alone "
        f"changed: beyond ±{c.threshold:.0%}, and q < {c.alpha:g} over {tested} "
        f"comparisons, which asks p < {c.alpha / max(tested, 1):.2g} of it): median "
        f"±{np.median(sizes):.1%}, from ±{sizes[0]:.1%} to ±{sizes[-1]:.1%}"
        + (f"; {never} comparisons can call none." if never else ".")
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
    if c.shift:
        out += [shift_line(c), ""]
    line = smallest_line(c)
    if line:
        out += [line, ""]
    if c.geomean:
        g = c.geomean
        out += [
            f"**All {sum(r.metric != 'instructions' for r in c.rows)} timed comparisons "
            f"together: B/A {g.value:.3f} "
            f"({stats.fmt_interval(g.low, g.high, lambda v: f'{v:.3f}')}), the geometric "
            "mean paired by round.**",
            "",
        ]
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
        out += _table(rows, shifted=c.shift is not None) + [""]
        if folded:
            out += ["</details>", ""]
    for title, keys in (("Only in A", c.only_a), ("Only in B", c.only_b)):
        if keys:
            out += [f"### {title} ({len(keys)})", ""] + [f"- {k}" for k in keys] + [""]
    if c.failed:
        out += [f"### Failed ({len(c.failed)})", ""]
        out += [f"- {key} (in {side}): {err}" for key, side, err in c.failed] + [""]
    return "\n".join(out).rstrip() + "\n"


def summary(c: Comparison, by: str) -> str:
    """The comparison in one table, its rows grouped by the value of one parameter of
    their cells (`mode`: object, bytes, ...): verdicts, the median B/A and the range of
    the changes called, and the median smallest change the verdict can call in one of them
    (smallest_line)."""
    groups: dict[str, list[Row]] = {}
    for r in c.rows:
        found = re.search(rf"(?:^| ){re.escape(by)}=(\S+)", r.cell)
        groups.setdefault(found[1] if found else "-", []).append(r)
    head = [by, "comparisons", SLOWER, FASTER, SAME, "median B/A", "called", "can call (median)"]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for value, rows in groups.items():
        called = sorted(r.ratio.value for r in rows if r.verdict != SAME)
        sizes = [r.detectable for r in rows if r.detectable is not None]
        out.append(
            "| "
            + " | ".join(
                [
                    value,
                    str(len(rows)),
                    *(str(sum(r.verdict == v for r in rows)) for v in (SLOWER, FASTER, SAME)),
                    f"{np.median([r.ratio.value for r in rows]):.3f}",
                    f"{called[0]:.3f}-{called[-1]:.3f}" if called else "none",
                    f"±{np.median(sizes):.1%}" if sizes else "-",
                ]
            )
            + " |"
        )
    if c.geomean:
        g = c.geomean
        interval = stats.fmt_interval(g.low, g.high, lambda v: f"{v:.3f}")
        out += ["", f"All together: B/A {g.value:.3f} ({interval}), paired by round."]
    return "\n".join(out)


def _table(rows: list[Row], shifted: bool) -> list[str]:
    instr = any(r.instructions is not None for r in rows)
    judged = "÷ shift [95% CI]" if shifted else "B/A [95% CI]"
    head = ["cell", "metric", "A median", "B median"] + (["B/A"] if shifted else [])
    head += [judged, "p", "q"] + (["instr B/A"] if instr else [])
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        q = r.ratio
        cells = [
            r.cell.replace("|", "\\|"),
            r.metric,
            model.fmt_value(r.a.median, r.unit),
            model.fmt_value(r.b.median, r.unit),
        ]
        if shifted:
            cells.append(f"{r.raw:.3f}")
        cells += [
            f"{q.value:.3f} [{q.low:.3f}-{q.high:.3f}]" if q.low == q.low else f"{q.value:.3f}",
            "-" if r.p_value is None else f"{r.p_value:.2g}",
            "-" if r.q_value is None else f"{r.q_value:.2g}",
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
        "geomean": None
        if c.geomean is None
        else {"ratio": c.geomean.value, "ci95": stats.ci_json(c.geomean.low, c.geomean.high)},
        "shift": None
        if c.shift is None
        else {
            "ratio": c.shift.ratio.value,
            "ci95": stats.ci_json(c.shift.ratio.low, c.shift.ratio.high),
            "scatter": c.shift.scatter,
            "verdict": c.shift.verdict,
        },
        "rows": [r.to_json() for r in c.rows],
        "only_a": c.only_a,
        "only_b": c.only_b,
        "failed": [{"cell": k, "side": s, "error": e} for k, s, e in c.failed],
        "notes": c.notes,
    }
