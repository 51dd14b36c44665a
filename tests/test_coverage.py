"""Do the 95% intervals cover the truth 95% of the time, and does an A/B of identical code
call as few cells as its verdict claims? Simulated through the real code.

Synthetic cells whose processes behave as this machine's do (the machine drifting from
round to round, whole processes in a fast or a slow mode, a little noise within each,
and, where a case says so, code layouts: round r runs layout variant r mod K of each
side's binary, each variant moving a cell by a between-layout spread of its own, or
every cell of a driver alike), with a known true ratio: a pilot of adaptive.PILOT
rounds, the second stage adaptive.targets sizes from it, then the interval the report
prints. The intervals come from stats.clustered_mean and stats.t_interval, which every
report path (stats.paired_ratio, headline.headline_ratios, compare.compare and
ab.comparison) goes through; test_the_fast_path_is_the_report_path checks that they
agree interval for interval, so that the thousands of trials here can run as arrays.

Each case runs TRIALS seeded trials and requires FLOOR: at 4000 trials a binomial
proportion's standard deviation is 0.0034-0.004, so an interval that truly covers 93%
passes with probability 0.7%, one whose standard error is 10% too small (92-93%) less,
and one that covers 95% fails with probability 0.2% (test_the_checks_fail_what_they_must shows
the first two failing).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from wirebench import ab, adaptive, compare, headline, model, stats
from wirebench.cells import Cell

TRIALS = 4000
FLOOR = 0.94  # the bound is 93%: this is stricter
UNTIL = 0.05  # the default run's: most trials need a second stage, of varying size
PILOT = adaptive.PILOT
MAX = adaptive.MAX_REPS


# -- the simulated machine ------------------------------------------------------------------


def process_effects(rng, shape, noise: str) -> np.ndarray:
    """log of processes' speed: normal, or bimodal (a third of them 15% slower)."""
    if noise == "normal":
        return rng.normal(0, 0.06, shape)
    return np.where(rng.random(shape) < 0.3, math.log(1.15), 0.0) + rng.normal(0, 0.02, shape)


def layout_effects(rng, shape, k: int, spread: float, shared: float) -> np.ndarray:
    """log of k layout variants' effect on each cell of one binary: (..., cells, k), a
    part `shared` of the variance the same for every cell of the binary."""
    own = rng.normal(0, spread, (*shape, k)) * math.sqrt(1 - shared)
    common = rng.normal(0, spread, (*shape[:-1], 1, k)) * math.sqrt(shared)
    return own + common


def simulate(
    rng,
    trials: int,
    cells: int,
    rounds: int,
    noise: str = "normal",
    k: int | None = None,
    spread: float = 0.0,
    shared: float = 0.0,
    corr: float = 0.0,
    process_sd: float | None = None,
) -> np.ndarray:
    """(trials, cells, rounds): each round's log(median of side a's process / median of
    side b's), no true difference (a truth is added by the caller). The machine's drift of
    a round touches both sides alike and cancels. k: layout variants per binary (None: a
    fresh layout every round); spread: their effect's standard deviation on a side;
    shared: the part of it every cell of a binary shares; corr: the correlation of the
    cells' process effects within a round (a neighbour that slows one side's processes
    of the round alike; normal noise only); process_sd: normal process effects of this
    standard deviation instead of `noise`'s."""
    shape = (trials, cells, rounds)

    def side() -> np.ndarray:
        if process_sd is not None:
            effects = rng.normal(0, process_sd, shape)
        else:
            effects = process_effects(rng, shape, noise)
        within = np.median(rng.normal(0, 0.01, (*shape, 3)), axis=-1)  # 3 samples' median
        return effects + within

    d = side() - side()
    if corr:
        common = process_effects(rng, (trials, 1, rounds), "normal") * math.sqrt(2)
        d = d * math.sqrt(1 - corr) + common * math.sqrt(corr)
    if spread:
        kk = k or rounds
        variant = np.arange(rounds) % kk
        a = layout_effects(rng, (trials, cells), kk, spread, shared)
        b = layout_effects(rng, (trials, cells), kk, spread, shared)
        d = d + (a - b)[..., variant]
    return d


def clusters(rounds: int, k: int | None) -> np.ndarray:
    """Each round's cluster, as stats.round_clusters numbers them: its layout variant."""
    return np.arange(rounds) % (k or rounds)


def interval(d, k, pilot=None, present=None):
    """The interval the report prints for per-round log ratios d (..., cells, rounds):
    stats.clustered_mean, then stats.t_interval. (value, low, high, se, df)."""
    rounds = d.shape[-1]
    present = np.ones(d.shape[-2:], dtype=bool) if present is None else present
    value, se, df = stats.clustered_mean(d, present, clusters(rounds, k), pilot)
    low, high, _ = stats.t_interval(value, se, df)
    return value, low, high, se, df


def covers(low, high, truth) -> np.ndarray:
    return (low <= truth) & (truth <= high)


def sized(value: float, se: float, df: float, until: float) -> int:
    """The rounds adaptive.targets gives a ratio whose pilot has this mean log, standard
    error and degrees of freedom (a headline ratio as it reads one)."""
    log = stats.LogRatio(value, se, df, True)
    ratio = SimpleNamespace(ratio=log.ratio()[0], keys={"cell"}, log=log)
    target, *_ = adaptive.targets([ratio], {"cell": PILOT}, {"cell": 1.0}, until, math.inf)
    return target.get("cell", PILOT)


def two_stage(d, k, until, truth, grow=None):
    """A pilot of PILOT rounds, the second stage adaptive.targets sizes from it (the
    cells `grow` selects get it; all of them by default), the final interval with the
    pilot's variance. Whether each trial's interval covers `truth`, its half-width, how
    many trials grew, and (for test_the_checks_fail_what_they_must) whether the same
    rounds' interval without the pilot rule covers."""
    trials, cells, _ = d.shape
    value, _, _, se, df = interval(d[..., :PILOT], k)
    need = np.array([sized(float(value[i]), float(se[i]), df, until) for i in range(trials)])
    covered = np.zeros(trials, dtype=bool)
    pooled = np.zeros(trials, dtype=bool)
    width = np.zeros(trials)
    for n in np.unique(need):
        at = need == n
        present = np.ones((cells, n), dtype=bool)
        if grow is not None:
            present[~grow, PILOT:] = False
        v, low, high, _, _ = interval(d[at][..., :n], k, PILOT, present)
        covered[at] = covers(low, high, truth[at])
        width[at] = np.expm1((high - low) / 2)
        _, low, high, _, _ = interval(d[at][..., :n], k, None, present)
        pooled[at] = covers(low, high, truth[at])
    return covered, width, need > PILOT, pooled


def rate(hits) -> float:
    return float(np.mean(hits))


def at_least(what: str, covered: float) -> None:
    """Asserts a coverage of FLOOR and prints it (pytest -s: the figures
    docs/methodology.md quotes)."""
    print(f"\n{what}: {covered:.4f}", end="")
    assert covered >= FLOOR, f"{what}: {covered:.4f}"


# -- without layouts: a fresh one every round ---------------------------------------------


@pytest.mark.parametrize("noise", ["normal", "bimodal"])
def test_a_single_cells_ratio_covers_after_two_stages(noise):
    rng = np.random.default_rng(2026)
    truth = rng.uniform(-0.3, 0.3, TRIALS)
    d = simulate(rng, TRIALS, 1, MAX, noise) + truth[:, None, None]
    covered, _, grew, _ = two_stage(d, None, UNTIL, truth)
    at_least(f"one cell, two stages, {noise}", rate(covered))
    assert rate(grew) > 0.5  # the second stage was exercised


@pytest.mark.parametrize("noise", ["normal", "bimodal"])
def test_the_headline_geometric_mean_covers_after_two_stages(noise):
    rng = np.random.default_rng(1945)
    truths = rng.uniform(-0.5, 0.5, (TRIALS, 8))
    d = simulate(rng, TRIALS, 8, MAX, noise) + truths[..., None]
    covered, width, grew, _ = two_stage(d, None, 0.02, truths.mean(-1))
    at_least(f"headline of 8 cells, two stages at ±2%, {noise}", rate(covered))
    assert rate(grew) > 0.5
    assert np.median(width[grew]) < 0.021  # fresh layouts: the second stage narrows


def test_a_headline_whose_second_stage_grew_some_cells_covers():
    """Half the cells get the second stage, half keep the pilot's rounds (the headline
    then weighs a grown cell's rounds less)."""
    rng = np.random.default_rng(77)
    d = simulate(rng, TRIALS, 8, MAX, "normal")
    grow = np.arange(8) < 4
    covered, _, grew, _ = two_stage(d, None, 0.02, np.zeros(TRIALS), grow)
    at_least("headline, half its cells grown", rate(covered))
    assert rate(grew) > 0.5


def test_cells_of_unequal_rounds_cover():
    """Rounds missing from some cells (failed processes), no second stage."""
    rng = np.random.default_rng(78)
    d = simulate(rng, TRIALS, 6, 10, "normal")
    present = np.ones((6, 10), dtype=bool)
    present[0, 7:], present[1, :3], present[2, ::2] = False, False, False
    _, low, high, _, _ = interval(d, None, None, present)
    at_least("cells of unequal rounds", rate(covers(low, high, 0.0)))


def test_a_headline_of_cells_that_move_together_within_a_round_covers():
    """Ten cells whose processes correlate 0.1 within a round: adding the cells'
    variances as if independent (what the headline did) roughly halves the variance it
    should have; the per-round means over the cells carry it."""
    rng = np.random.default_rng(10)
    d = simulate(rng, TRIALS, 10, 8, "normal", corr=0.1)
    _, low, high, _, _ = interval(d, None)
    at_least("headline of 10 cells correlated 0.1 in a round", rate(covers(low, high, 0.0)))


@pytest.mark.parametrize("noise", ["normal", "bimodal"])
def test_a_cells_median_interval_covers_or_is_not_given(noise):
    """The median of a cell's process medians, from exactly MIN_PROCESSES processes (the
    fewest that have an interval); with one fewer the interval is absent, not narrow."""
    rng = np.random.default_rng(6)
    # The population median of a process's median, from a large sample of processes.
    truth = float(np.median(1000 * np.exp(process_effects(rng, 400_000, noise))))
    covered = 0
    effects = process_effects(rng, (TRIALS, stats.MIN_PROCESSES), noise)
    noise_within = 1 + rng.normal(0, 0.001, (TRIALS, stats.MIN_PROCESSES, 3))
    for trial in range(TRIALS):
        groups = list(1000 * np.exp(effects[trial])[:, None] * noise_within[trial])
        s = stats.summarize(groups)
        covered += s.low <= truth <= s.high
        if trial < 100:
            assert not stats.summarize(groups[:-1]).has_interval
    at_least(f"a cell's median, {noise}", covered / TRIALS)


# -- layouts: rounds that share a layout variant -------------------------------------------

# The case: a 3% between-layout spread, K = 6 and 12 rounds.
SPREAD, K = 0.03, 6


@pytest.mark.parametrize(
    "cells, shared",
    [(1, 0.0), (8, 0.0), (8, 1.0)],
    ids=["one cell", "headline", "headline, one layout moves every cell of a driver"],
)
def test_ratios_over_reused_layouts_cover(cells, shared):
    rng = np.random.default_rng(1009 + cells + int(shared))
    truths = rng.uniform(-0.3, 0.3, (TRIALS, cells))
    d = simulate(rng, TRIALS, cells, 12, k=K, spread=SPREAD, shared=shared) + truths[..., None]
    _, low, high, _, df = interval(d, K)
    assert df == K - 1  # the layouts are the unit: six of them
    at_least(
        f"K=6, 12 rounds, {cells} cells, shared {shared}", rate(covers(low, high, truths.mean(-1)))
    )


@pytest.mark.parametrize("cells", [1, 8])
def test_a_two_stage_run_at_2_percent_over_reused_layouts_covers(cells):
    """The pilot's six rounds are six layouts; the second stage runs them again. Its
    rounds cannot tell the layouts' variance from the processes', so the interval keeps
    the pilot's (wide: it errs wide, never narrow); with a fresh layout every round
    the same run narrows to what it was sized for."""
    rng = np.random.default_rng(42 + cells)
    d = simulate(rng, TRIALS, cells, MAX, k=K, spread=SPREAD, shared=1.0)
    covered, width, grew, _ = two_stage(d, K, 0.02, np.zeros(TRIALS))
    at_least(f"K=6, two stages at ±2%, {cells} cells", rate(covered))
    assert rate(grew) > 0.5
    fresh = simulate(rng, TRIALS, cells, MAX, spread=SPREAD, shared=1.0)
    covered, fresh_width, grew, _ = two_stage(fresh, None, 0.02, np.zeros(TRIALS))
    at_least(f"fresh layouts, two stages at ±2%, {cells} cells", rate(covered))
    assert np.median(fresh_width[grew]) < np.median(width[grew])
    if cells > 1:  # (one cell would need more than MAX rounds for ±2%)
        assert np.median(fresh_width[grew]) < 0.021 < np.median(width[grew])


# -- A/B of identical code: the verdict's error rates ----------------------------------------

CELLS = 40  # the issue's: a 40-cell A/B run
AB_RUNS = 2000  # 80,000 cells


def ab_verdicts(d, k, threshold=compare.AB_THRESHOLD, alpha=compare.DEFAULT_ALPHA):
    """An A/B run's verdicts as compare.compare gives them, per simulated run (rows) and
    cell (columns): each cell's paired interval and p (stats), the p values adjusted over
    the run's cells (compare.adjust), compare.verdict. Also the unadjusted p."""
    runs, cells, rounds = d.shape
    value, low, high, se, df = interval(d.reshape(runs * cells, 1, rounds), k)
    _, _, p = stats.t_interval(value, se, df)
    p = p.reshape(runs, cells)
    q = compare.adjust(p)
    value, low, high = (np.exp(x).reshape(runs, cells) for x in (value, low, high))
    verdicts = np.array(
        [
            compare.verdict(stats.Ratio(v, lo, hi, True), qq, threshold, alpha)
            for v, lo, hi, qq in zip(value.flat, low.flat, high.flat, q.flat, strict=True)
        ]
    ).reshape(runs, cells)
    return verdicts != compare.SAME, p, se.reshape(runs, cells), df


@pytest.mark.parametrize(
    "rounds, k", [(18, None), (18, 6)], ids=["a layout every round (--ab)", "K = 6"]
)
def test_an_ab_of_identical_code_calls_no_more_than_it_claims(rounds, k):
    """Each side's binary has layouts of its own (a 3% spread, half of it shared by
    every cell of the side), 2% process noise on each side. Per cell, the t test's p is
    below 0.05 in at most 5% (its interval covers); the verdict (beyond ±2%, q < 0.05)
    calls at most 5% of cells, and at most 5% of runs call any (q controls the false
    discovery rate, which, where nothing changed, is the chance of calling anything)."""
    rng = np.random.default_rng(35 + rounds + (k or 0))
    d = simulate(rng, AB_RUNS, CELLS, rounds, k=k, spread=SPREAD, shared=0.5, process_sd=0.02)
    called, p, _, _ = ab_verdicts(d, k)
    at_least(f"A/B {rounds} rounds K={k}: a cell's t interval", rate(p >= 0.05))
    assert rate(called) <= 0.05, f"cells called: {rate(called):.4f}"
    per_run = rate(called.any(axis=1))
    print(f"; cells called {rate(called):.5f}, runs calling any {per_run:.4f}", end="")
    assert per_run <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / AB_RUNS), f"runs: {per_run:.4f}"


@pytest.mark.parametrize("rounds", [6, 18])
def test_the_smallest_change_printed_is_what_the_verdict_calls(rounds):
    """One cell of 40 changed, the A/B's design (a fresh layout every round, 2% process
    noise, 1% layout spread a side). The line a comparison prints (compare.smallest_line:
    the median over the cells of stats.detectable, 80% power of the verdict as printed)
    is planted in one cell: the verdict calls it in 80% of runs. A planted 2% and 5% are
    called as often as stats.verdict_power says."""
    rng = np.random.default_rng(80 + rounds)
    d = simulate(rng, AB_RUNS, CELLS, rounds, spread=0.01, process_sd=0.02)
    _, _, se, df = ab_verdicts(d, None)
    threshold, alpha = compare.AB_THRESHOLD, compare.DEFAULT_ALPHA
    # Every cell has the same degrees of freedom: the median of their detectable changes
    # is that of their median standard error (detectable rises with it).
    printed = np.array(
        [
            stats.detectable(stats.LogRatio(0.0, s, df, True), 0.0, 0.8, threshold, alpha, CELLS)
            for s in np.median(se, axis=1)
        ]
    )
    truth_se = math.sqrt(d.var(axis=-1, ddof=1).mean() / rounds)  # the rounds' true spread
    for change, expect in [
        (printed, 0.8),
        *((c, stats.verdict_power(c, truth_se, df, threshold, alpha, CELLS)) for c in (0.02, 0.05)),
    ]:
        planted = d.copy()
        planted[:, 0, :] += np.log1p(change if np.ndim(change) == 0 else change[:, None])
        called, *_ = ab_verdicts(planted, None)
        power = rate(called[:, 0])
        print(f"\n{rounds} rounds: {np.median(change):.2%} called {power:.3f}", end="")
        print(f" (expected {expect:.3f})", end="")
        assert abs(power - expect) < 0.04, f"{rounds} rounds, {np.median(change):.3f}: {power}"


# -- the checks are sensitive, and the fast path is the report's -----------------------------


def test_the_checks_fail_what_they_must():
    """An interval whose standard error is 10% too small, and the variance of all rounds
    after a variance-sized second stage (93% at 1000 trials before), both fall below the
    floor; the same cases' intervals pass."""
    rng = np.random.default_rng(93)
    d = simulate(rng, TRIALS, 1, 12, "normal")
    value, low, high, se, df = interval(d, None)
    assert rate(covers(low, high, 0.0)) >= FLOOR
    low, high, _ = stats.t_interval(value, 0.9 * se, df)
    print(f"\nstandard error 10% too small: {rate(covers(low, high, 0.0)):.4f}", end="")
    assert rate(covers(low, high, 0.0)) < FLOOR, rate(covers(low, high, 0.0))
    d = simulate(rng, TRIALS, 1, MAX, "normal")
    covered, _, _, pooled = two_stage(d, None, UNTIL, np.zeros(TRIALS))
    print(f"\nall rounds' variance after two stages: {rate(pooled):.4f}", end="")
    assert rate(covered) >= FLOOR > rate(pooled), (rate(covered), rate(pooled))


class Cells:
    """One comparison's cells (a language against cpp, in several rpc cases/libraries),
    round by round as the runner would store them, each side over its own K layouts."""

    def __init__(self, rng, true_logs: list[float], k: int | None, spread: float = 0.03):
        self.rng, self.true_logs, self.k = rng, true_logs, k
        self.rounds: list[tuple[dict, dict]] = [({}, {}) for _ in true_logs]
        self.pilot: int | None = None  # Plan.pilot: set once the second stage is sized
        self.layout = {
            lang: rng.normal(0, spread, (len(true_logs), k or MAX)) for lang in ("rust", "cpp")
        }

    def variant(self, r: int) -> int:
        return r % (self.k or MAX)

    def run(self, upto: int) -> None:
        for i, (a, b) in enumerate(self.rounds):
            for r in range(len(a), upto):
                drift = self.rng.normal(0, 0.08)  # the machine this round, both alike
                for side, lang, shift in ((a, "rust", self.true_logs[i]), (b, "cpp", 0.0)):
                    effect = process_effects(self.rng, 1, "normal")[0]
                    effect += self.layout[lang][i, self.variant(r)]
                    centre = 1000.0 * math.exp(drift + effect + shift)
                    side[r] = list(centre * (1 + self.rng.normal(0, 0.01, 3)))

    def results(self) -> list[model.CellResult]:
        out = []
        for i, (a, b) in enumerate(self.rounds):
            case, lib = ["carsales", "catrank", "eval"][i % 3], ["capnp", "protobuf"][i // 3]
            for lang, rounds in (("rust", a), ("cpp", b)):
                cell = Cell.make("rpc", case, lang, lib, {"mode": "bytes"})
                metric = model.MetricData("time", "ns", "samples", 1, dict(rounds))
                metric.pilot = self.pilot
                if self.k:  # as model.round_layouts labels them
                    metric.layouts = {r: ((lang, "stock", self.variant(r)),) for r in rounds}
                out.append(model.CellResult(cell, "ok", None, 1, {"time": metric}, None, None))
        return out

    def logs(self) -> np.ndarray:
        return np.array(
            [
                [math.log(np.median(a[r]) / np.median(b[r])) for r in sorted(a)]
                for a, b in self.rounds
            ]
        )


@pytest.mark.parametrize("k", [None, K])
def test_the_fast_path_is_the_report_path(k):
    """The report's headline (headline.headline_ratios) and per-cell ratio (model.ratio)
    of stored-like cells, after a pilot and a second stage, give the intervals the
    arrays above get from the same rounds; an A/B run's comparison (ab.comparison) gives
    their verdicts, p values and smallest changes."""
    rng = np.random.default_rng(5)
    for _ in range(5):
        cells = Cells(rng, list(rng.uniform(-0.3, 0.3, 6)), k)
        cells.run(PILOT)
        (pilot,) = headline.headline_ratios(cells.results(), "cpp", overall_only=True)
        _, low, high, _, _ = interval(cells.logs(), k)
        assert (pilot.ratio.low, pilot.ratio.high) == pytest.approx(tuple(np.exp([low, high])))
        cells.run(15)
        cells.pilot = PILOT
        (h,) = headline.headline_ratios(cells.results(), "cpp", overall_only=True)
        _, low, high, _, _ = interval(cells.logs(), k, PILOT)
        assert (h.ratio.low, h.ratio.high) == pytest.approx(tuple(np.exp([low, high])))
        a, b = h.pairs[0]
        one = model.ratio(a.metric("time"), b.metric("time"))
        i = [r.cell for r in cells.results()].index(a.cell) // 2
        _, low, high, _, _ = interval(cells.logs()[i : i + 1], k, PILOT)
        assert (one.low, one.high) == pytest.approx(tuple(np.exp([low, high])))
    # An A/B run of two builds of cpp, each side over its own layouts.
    for _ in range(3):
        results, d = [], simulate(rng, 1, 12, 12, k=k, spread=SPREAD, process_sd=0.02)[0]
        d[0] += 0.1  # one cell changed
        for c in range(12):
            cell = Cell.make("rpc", f"case{c}", "cpp", "capnp", {"build": "stock"})
            for build, logs in (("stock", np.zeros(12)), ("tuned", d[c])):
                metric = model.MetricData(
                    "time", "ns", "samples", 1, {r: [100 * math.exp(x)] for r, x in enumerate(logs)}
                )
                metric.layouts = {
                    r: (("cpp", build, r % (k or 12)),) for r in range(12)
                }  # model.round_layouts
                results.append(
                    model.CellResult(
                        cell.with_param("build", build), "ok", None, 1, {"time": metric}, None, None
                    )
                )
        sides = tuple(s.to_json() for s in ab.sides(("build=stock", "build=tuned")))
        run = {"uid": "u", "id": 1, "status": "complete", "profile": "quick", "started": "-"}
        c = ab.comparison(results, run, {}, sides)
        called, p, se, df = ab_verdicts(d[None], k)
        by_case = {r.cell: r for r in c.rows}
        rows = [next(r for key, r in by_case.items() if f"/case{i}/" in key) for i in range(12)]
        assert [r.verdict != compare.SAME for r in rows] == list(called[0])
        assert [r.p_value for r in rows] == pytest.approx(list(p[0]))
        seen = stats.detectable(
            stats.LogRatio(0.0, float(se[0, 1]), df, True),
            0.0,
            0.8,
            compare.AB_THRESHOLD,
            compare.DEFAULT_ALPHA,
            12,
        )
        assert rows[1].detectable == pytest.approx(seen)
        assert "The smallest change the verdict calls in a cell with 80% power" in (
            compare.markdown(c)
        )
