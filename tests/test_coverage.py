"""Do the 95% intervals cover the truth 95% of the time? Simulated through the real code.

Synthetic cells whose processes behave as this machine's do (the machine drifting from
round to round, whole processes in a fast or a slow mode, a little noise within each),
with a known true ratio between a language and the baseline: a pilot of
adaptive.PILOT rounds, the second stage adaptive.targets sizes from it, then the
interval the report prints (headline.headline_ratios, stats.paired_ratio,
stats.summarize). Each test counts how often the interval holds the truth over 1000
seeded trials and requires at least 93% (a binomial 95% band around 0.95 at 1000 trials
reaches down to 0.936).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from wirebench import adaptive, headline, model, stats
from wirebench.cells import Cell

TRIALS = 1000
LEAST = 0.93
UNTIL = 0.05  # the default run's: most trials need a second stage, of varying size


def process_effects(rng, n: int, noise: str) -> np.ndarray:
    """log of n processes' speed: normal, or bimodal (a third of them 15% slower)."""
    if noise == "normal":
        return rng.normal(0, 0.06, n)
    return np.where(rng.random(n) < 0.3, math.log(1.15), 0.0) + rng.normal(0, 0.02, n)


class Cells:
    """One comparison's cells (a language against cpp, in several rpc cases/libraries),
    round by round as the runner would store them."""

    def __init__(self, rng, true_logs: list[float], noise: str, base_ns: float = 1000.0):
        self.rng, self.true_logs, self.noise, self.base = rng, true_logs, noise, base_ns
        self.rounds: list[tuple[dict, dict]] = [({}, {}) for _ in true_logs]
        self.pilot: int | None = None  # Plan.pilot: set once the second stage is sized

    def run(self, upto: list[int]) -> None:
        """Runs each cell's rounds until it has upto[i] (both sides, paired)."""
        for i, (a, b) in enumerate(self.rounds):
            for r in range(len(a), upto[i]):
                drift = self.rng.normal(0, 0.08)  # the machine this round, both alike
                ea, eb = process_effects(self.rng, 2, self.noise)
                for side, effect, shift in ((a, ea, self.true_logs[i]), (b, eb, 0.0)):
                    centre = self.base * math.exp(drift + effect + shift)
                    side[r] = list(centre * (1 + self.rng.normal(0, 0.01, 3)))

    def results(self) -> list[model.CellResult]:
        out = []
        libs = ["capnp", "protobuf", "null"]
        cases = ["carsales", "catrank", "eval"]
        for i, (a, b) in enumerate(self.rounds):
            where = dict(case=cases[i % 3], lib=libs[(i // 3) % 3])
            params = {"mode": ["object", "bytes", "pipe"][i // 9], "reuse": "reuse"}
            for lang, rounds in (("rust", a), ("cpp", b)):
                cell = Cell.make("rpc", where["case"], lang, where["lib"], params)
                metric = model.MetricData("time", "ns", "samples", 1, dict(rounds))
                metric.pilot = self.pilot
                out.append(model.CellResult(cell, "ok", None, 1, {"time": metric}, None, None))
        return out


def headline_of(cells: Cells) -> headline.HeadlineRatio:
    (h,) = headline.headline_ratios(cells.results(), "cpp", overall_only=True)
    return h


def two_stage(rng, true_logs, noise, until=UNTIL) -> tuple[headline.HeadlineRatio, bool]:
    """A pilot, the second stage sized from it by the real code, and the final ratio;
    whether the second stage added rounds."""
    cells = Cells(rng, true_logs, noise)
    cells.run([adaptive.PILOT] * len(true_logs))
    pilot = headline_of(cells)
    reps = {k: adaptive.PILOT for k in pilot.keys}
    cost = dict.fromkeys(pilot.keys, 1.0)
    target, *_ = adaptive.targets([pilot], reps, cost, until, math.inf)
    keys = [(a.cell.key, b.cell.key) for a, b in pilot.pairs]
    # Pairs come in the report's order; the simulated cells in theirs: map by key.
    order = {c.cell.key: i // 2 for i, c in enumerate(cells.results())}
    upto = [adaptive.PILOT] * len(true_logs)
    for ka, kb in keys:
        upto[order[ka]] = max(target.get(ka, adaptive.PILOT), target.get(kb, adaptive.PILOT))
    cells.run(upto)
    cells.pilot = adaptive.PILOT  # what report.load sets for a run that was sized
    return headline_of(cells), max(upto) > adaptive.PILOT


@pytest.mark.parametrize("noise", ["normal", "bimodal"])
def test_a_single_cells_ratio_covers_after_two_stages(noise):
    rng = np.random.default_rng(2026)
    covered = grew = 0
    for _ in range(TRIALS):
        truth = rng.uniform(-0.3, 0.3)
        h, more = two_stage(rng, [truth], noise)
        q = h.ratio
        covered += q.low <= math.exp(truth) <= q.high
        grew += more
        # The per-cell ratio the tables print is the same t interval.
        (a, b) = h.pairs[0]
        cell = model.ratio(a.metric("time"), b.metric("time"))
        assert cell.low == pytest.approx(q.low) and cell.high == pytest.approx(q.high)
    assert covered / TRIALS >= LEAST, f"{noise}: {covered / TRIALS:.3f}"
    assert grew > TRIALS / 2  # the second stage was exercised


@pytest.mark.parametrize("noise", ["normal", "bimodal"])
def test_the_headline_geometric_mean_covers_after_two_stages(noise):
    rng = np.random.default_rng(1945)
    covered = grew = 0
    for _ in range(TRIALS):
        truths = list(rng.uniform(-0.5, 0.5, 8))
        h, more = two_stage(rng, truths, noise, until=0.02)
        q = h.ratio
        covered += q.low <= math.exp(np.mean(truths)) <= q.high
        grew += more
    assert covered / TRIALS >= LEAST, f"{noise}: {covered / TRIALS:.3f}"
    assert grew > TRIALS / 2


@pytest.mark.parametrize("noise", ["normal", "bimodal"])
def test_a_cells_median_interval_covers_or_is_not_given(noise):
    """The median of a cell's process medians, from exactly MIN_PROCESSES processes (the
    fewest that have an interval); with one fewer the interval is absent, not narrow."""
    rng = np.random.default_rng(6)
    # The population median of a process's median, from a large sample of processes.
    truth = float(np.median(1000 * np.exp(process_effects(rng, 400_000, noise))))
    covered = 0
    for _ in range(TRIALS):
        effects = process_effects(rng, stats.MIN_PROCESSES, noise)
        groups = [list(1000 * math.exp(e) * (1 + rng.normal(0, 0.001, 3))) for e in effects]
        s = stats.summarize(groups)
        covered += s.low <= truth <= s.high
        assert not stats.summarize(groups[:-1]).has_interval
    assert covered / TRIALS >= LEAST, f"{noise}: {covered / TRIALS:.3f}"
