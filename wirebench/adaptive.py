"""Adaptive repetition in two stages: a pilot, then as many rounds as its variance asks.

A run asked for `--until W` first runs a pilot of at least PILOT rounds of every cell.
From the pilot alone it then sizes the second stage, once (Stein's two-stage procedure,
1945): each headline ratio (headline.headline_ratios: each language against the baseline,
per suite, metric and build over all the suite's libraries) whose 95% interval is wider
than ±W needs, in all,

    N = ceil((t(0.975, df) * s / ln(1 + W))^2)

rounds, where s is its standard deviation per round and df its degrees of freedom in the
pilot. The cells behind it get N rounds (at most MAX_REPS); then the run ends, whatever
the final intervals look like. Never stopping the moment an interval looks narrow is
what keeps the intervals honest: a rule that stops then reports the narrow accidents
(simulated here: 61-89% coverage instead of 95%); a rule that fixes the count from the
pilot's variance does not (tests/test_coverage.py, through this code).

The budget (`--budget`) goes to the ratios it can narrow all the way, the cheapest first
(N - pilot rounds x a round of their cells), then, with what is left, to as many rounds
of the remaining ratios as fit, cheapest round first: also decided from the pilot only.
A cell shared by two ratios gets the larger count. The grown plan is stored, marked as
sized (with the pilot's number of rounds), before its processes run, so that `--resume`
finishes it without sizing again, and so that the report takes each interval's variance
from the pilot's rounds, as Stein's procedure does (stats.py).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

from . import design, headline, model, stats
from .cells import Plan

PILOT = 6  # rounds a cell's pilot has, unless the budget sizes it down (size_pilot)
MIN_PILOT = 4  # and at least: Stein's count from fewer rounds pays t(0.975, 2) = 4.3
MAX_REPS = 40  # processes per cell at most, whatever the budget
# The pilot may take this share of a budget by the design's costs (design.estimate); the
# rest is the second stage's, and a plan whose pilot leaves it less is told so up front.
PILOT_SHARE = 0.6


@dataclass(frozen=True)
class Stage:
    """The second stage: what it adds and why."""

    plan: Plan  # the plan with each cell's final number of processes and its pilot
    keys: frozenset[str]  # the cells that get more
    wide: tuple[headline.HeadlineRatio, ...]  # the ratios it narrows to ±until
    partial: tuple[headline.HeadlineRatio, ...]  # those it narrows as far as the budget goes
    left_wide: int  # wide ratios that get nothing (budget, MAX_REPS)
    seconds: float  # its estimated wall time


def rounds_needed(log: stats.LogRatio, rounds: int, until: float) -> int:
    """Stein's count: the rounds in all for a t interval of half-width ln(1 + until), from
    a pilot of `rounds` rounds whose mean had standard error log.se on log.df degrees of
    freedom. Never fewer than the pilot."""
    from scipy.stats import t

    if not math.isfinite(log.se) or log.df < 1:
        return rounds
    per_round = log.se * math.sqrt(rounds)
    quantile = t.ppf(1 - (1 - stats.CONFIDENCE) / 2, log.df)
    return max(rounds, math.ceil((quantile * per_round / math.log1p(until)) ** 2))


def targets(
    ratios: list[headline.HeadlineRatio],
    reps: dict[str, int],
    cost: dict[str, float],
    until: float,
    seconds: float,
) -> tuple[dict[str, int], list, list, int]:
    """Each cell's final number of rounds, from the pilot's headline ratios: (the cells'
    targets, the ratios narrowed all the way, those narrowed part of the way, how many
    wide ones get nothing). `reps`: each cell's rounds so far; `cost`: seconds per
    process; `seconds`: what the stage may take (inf: no budget)."""
    wide = [h for h in ratios if h.ratio.width > until]
    plans = []
    for h in wide:
        now = min(reps.get(k, MAX_REPS) for k in h.keys)
        need = min(MAX_REPS, rounds_needed(h.log, now, until))
        per_round = sum(cost.get(k, 0.0) for k in h.keys)
        if need > now:
            plans.append((h, now, need, per_round))
    target: dict[str, int] = {}
    full, partial, spent = [], [], 0.0
    for h, now, need, per_round in sorted(plans, key=lambda p: (p[2] - p[1]) * p[3]):
        if spent + (need - now) * per_round <= seconds:
            full.append(h)
            spent += (need - now) * per_round
            for k in h.keys:
                target[k] = max(target.get(k, 0), need)
    for h, now, need, per_round in sorted(plans, key=lambda p: p[3]):
        if any(h is f for f in full) or per_round <= 0:
            continue
        more = min(need - now, int((seconds - spent) // per_round))
        if more > 0:
            partial.append(h)
            spent += more * per_round
            for k in h.keys:
                target[k] = max(target.get(k, 0), now + more)
    return target, full, partial, len(wide) - len(full) - len(partial)


def second_stage(
    store, run_id: int, plan: Plan, deadline: float | None, overhead: float = 0.0
) -> Stage:
    """The second stage of a run whose pilot has finished. `deadline` is a
    time.monotonic() by which the run should end, None: no budget; `overhead` is what the
    harness adds to each process's own wall time, in seconds."""
    results = [r for r in model.load(store, run_id) if "twin" not in r.cell.param]
    ratios = headline.headline_ratios(results, headline.BASELINE, overall_only=True)
    reps = {e.cell.key: e.reps for e in plan.entries}
    cost = {k: s + overhead for k, s in store.mean_walls(run_id).items()}
    left = math.inf if deadline is None else deadline - time.monotonic()
    target, full, partial, left_wide = targets(ratios, reps, cost, plan.until, left)
    entries = tuple(
        replace(e, reps=max(e.reps, target.get(e.cell.key, 0)), pilot=e.reps) for e in plan.entries
    )
    grown = {e.cell.key for e in entries} & {k for k, n in target.items() if n > reps.get(k, 0)}
    seconds = sum((target[k] - reps[k]) * cost.get(k, 0.0) for k in grown)
    pilot = min((e.reps for e in plan.entries if e.reps), default=0)
    return Stage(
        replace(plan, entries=entries, pilot=pilot),
        frozenset(grown),
        tuple(full),
        tuple(partial),
        left_wide,
        seconds,
    )


def size_pilot(entries, chosen: design.Design | None, budget: float | None) -> tuple:
    """The pilot's rounds per cell, sized to leave the second stage its share of `budget`.

    A pilot of PILOT rounds everywhere that would take more than PILOT_SHARE of the budget
    by the design's costs gives cells fewer rounds (never fewer than MIN_PILOT), in
    Neyman's allocation: a cell's rounds in proportion to its process's standard deviation
    over the square root of its process's cost, which spends the pilot where a round buys
    the most precision (a JVM process costs 20-60 times a native one here and varies less).
    Entries without a design, a budget, or the need are returned as they are."""
    if chosen is None or not budget or not entries:
        return tuple(entries)
    share = PILOT_SHARE * budget
    cost = [design.estimate(chosen, [replace(e, reps=1)]) for e in entries]
    if sum(e.reps * c for e, c in zip(entries, cost, strict=True)) <= share:
        return tuple(entries)
    every = [v.per_process for v in chosen.levels.values()]
    sd = []
    for e in entries:
        level = chosen.level(e.cell.suite, e.cell.base_driver_id)
        sd.append(level.per_process if level else max(every))
    weight = [s / math.sqrt(max(c, 1e-6)) for s, c in zip(sd, cost, strict=True)]

    def sized(scale: float) -> list[int]:
        return [
            min(e.reps, max(MIN_PILOT, math.floor(scale * w)))
            for e, w in zip(entries, weight, strict=True)
        ]

    lo, hi = 0.0, max(e.reps for e in entries) / max(min(weight), 1e-9)
    for _ in range(60):  # the largest scale whose pilot fits
        mid = (lo + hi) / 2
        fits = sum(n * c for n, c in zip(sized(mid), cost, strict=True)) <= share
        lo, hi = (mid, hi) if fits else (lo, mid)
    return tuple(replace(e, reps=min(e.reps, n)) for e, n in zip(entries, sized(lo), strict=True))


def pilot_fits(plan: Plan, chosen: design.Design | None) -> tuple[float, str | None]:
    """The pilot's estimated seconds by the design's costs (NaN without a design), and,
    when it would leave the second stage less than its share of the budget, what to say
    before the run starts."""
    pilot = design.estimate(chosen, plan.entries)
    if not plan.budget or not math.isfinite(pilot) or pilot <= PILOT_SHARE * plan.budget:
        return pilot, None
    need = math.ceil(pilot / PILOT_SHARE / 10) * 10
    return pilot, (
        f"the pilot alone takes about {pilot:.0f} s by the design's costs, "
        f"{pilot / plan.budget:.0%} of the {plan.budget:.0f} s budget: too little is left "
        f"for a second stage; --budget {need} leaves it {1 - PILOT_SHARE:.0%}"
    )
