"""Adaptive repetition: more rounds for the cells whose headline ratio is still too wide.

A run asked for `--until W` first runs the planned rounds of every cell. Then, round by
round, it reads the headline ratios (report.headline_ratios: each language against the
baseline, per suite, metric and build over all the suite's libraries) and gives one more
process to every cell behind a ratio whose 95% interval is wider than ±W, on both sides
of the ratio, until every ratio is narrow enough, the run's time budget would be
overrun, or the cells reach MAX_REPS. The budget goes to the ratios it can narrow to
±W, the cheapest to narrow first (next_round says how), so that a JVM ratio that would
need ten rounds of its slow processes does not take the time in which a dozen native
ratios reach the target.

An extra round runs like a planned one: the cells of one comparison back to back, in
the plan's order, so that they stay paired by round. The grown plan is stored before
its processes run, so that `--resume` finishes it.

Stopping when an interval has become narrow is optional stopping: it makes an interval
that happens to be narrow a little more likely to be reported than a fixed design
would. Every cell therefore first runs its planned rounds (3 in the default run), and
the report's header says how many processes the cells ran and how many got more.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

from . import report
from .cells import Plan

MAX_REPS = 40  # processes per cell at most, whatever the budget


@dataclass(frozen=True)
class Round:
    """What one more round measures and why."""

    plan: Plan  # the plan with one more process for each cell of the round
    keys: frozenset[str]  # the cells that get one
    wide: tuple[report.HeadlineRatio, ...]  # the ratios it is for
    left_wide: int  # wide ratios the budget (or MAX_REPS) leaves as they are
    seconds: float  # its estimated wall time


def process_seconds(store, run_id: int) -> dict[str, float]:
    """Each cell's mean wall time per process so far, in seconds."""
    return store.mean_walls(run_id)


def rounds_to_narrow(h: report.HeadlineRatio, rounds: int, until: float) -> int:
    """How many more rounds the ratio needs to be within ±until, if its interval narrows
    as one over the square root of its rounds (at least one)."""
    return max(1, math.ceil(rounds * ((h.width / until) ** 2 - 1)))


def next_round(
    store, run_id: int, plan: Plan, deadline: float | None, overhead: float = 0.0
) -> Round | None:
    """The next round, or None when no headline ratio is wider than plan.until or none of
    the wide ones can have another round (budget, MAX_REPS). `deadline` is a
    time.monotonic() by which the run should end, None: no budget; `overhead` is what the
    harness adds to each process's own wall time, in seconds.

    The budget goes first to the ratios it can narrow all the way, those that cost least
    to narrow first (rounds_to_narrow x a round of their cells); only when it can narrow
    none does it buy single rounds, the cheapest ratios first. A cell shared by two
    chosen ratios runs once."""
    results = [r for r in report.load(store, run_id) if "twin" not in r.cell.param]
    ratios = report.headline_ratios(results, report.BASELINE, overall_only=True)
    wide = [h for h in ratios if h.width > plan.until]
    if not wide:
        return None
    reps = {e.cell.key: e.reps for e in plan.entries}
    cost = {k: s + overhead for k, s in process_seconds(store, run_id).items()}
    left = float("inf") if deadline is None else deadline - time.monotonic()

    def growing(h) -> set[str]:
        """The ratio's cells that may still get a process."""
        return {k for k in h.keys if reps.get(k, MAX_REPS) < MAX_REPS}

    def round_cost(h) -> float:
        return sum(cost.get(k, 0.0) for k in growing(h))

    def to_narrow(h) -> float:
        return rounds_to_narrow(h, min(reps[k] for k in h.keys), plan.until) * round_cost(h)

    wide_open = [h for h in wide if growing(h)]

    taken, spent = [], 0.0
    for seconds, h in sorted(((to_narrow(h), h) for h in wide_open), key=lambda x: x[0]):
        if spent + seconds <= left:
            taken.append(h)
            spent += seconds
    if not taken:
        for h in sorted(wide_open, key=round_cost):
            if spent + round_cost(h) <= left:
                taken.append(h)
                spent += round_cost(h)
    chosen = {k for h in taken for k in growing(h)}
    if not chosen:
        return None
    entries = tuple(
        replace(e, reps=e.reps + 1) if e.cell.key in chosen else e for e in plan.entries
    )
    return Round(
        replace(plan, entries=entries),
        frozenset(chosen),
        tuple(taken),
        len(wide) - len(taken),
        sum(cost.get(k, 0.0) for k in chosen),
    )
