import math

import numpy as np
import pytest
from hdrh.histogram import HdrHistogram
from scipy.stats import t

from wirebench import stats


def test_summary_of_constant_samples():
    s = stats.summarize([[10.0, 10.0, 10.0], [10.0, 10.0, 10.0]])
    assert (s.median, s.low, s.high, s.min, s.spread) == (10.0, 10.0, 10.0, 10.0, 0.0)
    assert not s.noisy and s.n_samples == 6 and s.n_processes == 2


def test_interval_contains_the_median_and_is_deterministic():
    rng = np.random.default_rng(1)
    groups = [list(100 + rng.normal(0, 2, 5)) for _ in range(6)]
    a, b = stats.summarize(groups), stats.summarize(groups)
    assert a == b
    assert a.low <= a.median <= a.high
    assert a.min == min(min(g) for g in groups)


def test_the_median_interval_is_the_order_statistics_of_the_process_medians():
    # 6 processes: [min, max] of the medians covers 1 - 2/64 = 97%; 9: the 2nd and 8th
    # (1 - 2 * P(B(9, 1/2) <= 1) = 96%); 5 processes are too few for 95% at all.
    medians = [10.0, 30.0, 20.0, 60.0, 50.0, 40.0]
    s = stats.summarize([[m, m + 1, m - 1] for m in medians])
    assert (s.low, s.high) == (10.0, 60.0)
    assert stats.median_interval(range(1, 10)) == (2.0, 8.0)
    low, high = stats.median_interval(range(5))
    assert math.isnan(low) and math.isnan(high)


def test_too_few_processes_have_no_interval_rather_than_a_narrow_one():
    s = stats.summarize([[90, 90.1, 89.9], [100, 100.1, 99.9], [110, 110.1, 109.9]])
    assert not s.has_interval and s.interval(str) == stats.NO_INTERVAL
    assert s.median == 100.0 and s.n_processes == 3


def test_process_to_process_differences_widen_the_interval():
    tight = stats.summarize([[100, 100.1, 99.9], [100.05, 100, 100.1]] * 3)
    apart = stats.summarize([[90 + 4 * i, 90.1 + 4 * i, 89.9 + 4 * i] for i in range(6)])
    assert (apart.high - apart.low) > 10 * (tight.high - tight.low)


def test_spread_flags_noisy_cells():
    s = stats.summarize([[100, 80, 120, 100, 90, 110]])
    assert s.spread > stats.SPREAD_LIMIT and s.noisy


def test_unequal_group_sizes():
    s = stats.summarize([[1.0], [2.0, 2.0, 2.0, 2.0]] * 3)
    assert 1.0 <= s.low <= s.high <= 2.0


def rounds(groups):
    return dict(enumerate(groups))


def test_ratio_of_a_cell_to_itself_and_to_a_double():
    a = [[100, 101, 99], [100, 102, 98]]
    b = [[200, 202, 198], [200, 204, 196]]
    same = stats.paired_ratio(rounds(a), rounds(a))
    assert same.value == 1.0 and same.low <= 1.0 <= same.high and same.paired
    half = stats.paired_ratio(rounds(a), rounds(b))
    assert half.value == 0.5 and half.low <= 0.5 <= half.high


def test_paired_ratio_cancels_a_drift_common_to_both_cells():
    # Three rounds; the machine is 20% slower in the second and 40% in the third, for
    # both cells alike. Cell a is always exactly half of cell b: paired, no doubt at all;
    # the same processes read as two runs' (Welch's) carry the drift in their interval.
    drift = [1.0, 1.2, 1.4]
    a = [[100 * d, 101 * d, 99 * d] for d in drift]
    b = [[200 * d, 202 * d, 198 * d] for d in drift]
    paired = stats.paired_ratio(rounds(a), rounds(b))
    unpaired, _ = stats.process_log_ratio(rounds(a), rounds(b), paired=False).ratio()
    assert paired.value == pytest.approx(0.5) and unpaired.value == pytest.approx(0.5)
    assert paired.low == pytest.approx(0.5) and paired.high == pytest.approx(0.5)
    assert unpaired.high - unpaired.low > 0.1 and not unpaired.paired


def test_a_ratio_of_one_round_has_no_interval():
    q = stats.paired_ratio({0: [100.0]}, {0: [200.0]})
    assert q.value == 0.5 and not q.has_interval and q.width == float("inf")
    assert q.text() == "0.50 [no CI]"


def test_after_a_second_stage_the_interval_takes_the_pilots_variance():
    # Rounds 0-5 (the pilot) scatter; the 14 rounds of the second stage happen to agree.
    logs = [0.1, -0.1, 0.12, -0.08, 0.05, -0.09] + [0.0] * 14
    a = {r: [100 * np.exp(v)] for r, v in enumerate(logs)}
    b = {r: [100.0] for r in range(20)}
    stein = stats.paired_ratio(a, b, pilot=6)
    pooled = stats.paired_ratio(a, b)
    assert stein.value == pooled.value
    assert stein.width > pooled.width  # the pilot's s, and t at 5 degrees of freedom


def test_paired_ratio_pairs_rounds_not_positions():
    # Cell b lost its round 1 (a process failed): only rounds 0 and 2 pair up, and a
    # round of a with no partner is not paired with some other round of b.
    a = {0: [100.0], 1: [500.0], 2: [140.0]}
    b = {0: [200.0], 2: [280.0]}
    q = stats.paired_ratio(a, b)
    assert q.low == q.high == 0.5
    # Cells that share no round at all are compared unpaired (here: no interval).
    q = stats.paired_ratio({0: [1.0]}, {1: [2.0]})
    assert not q.paired and q.value == 0.5 and math.isnan(q.low)


def test_paired_difference_is_the_mean_of_round_differences_with_a_t_interval():
    # A drift shared by each round cancels; a round one cell lacks pairs with nothing.
    a = {0: [102.0], 1: [111.0], 2: [99.0], 3: [500.0]}
    b = {0: [100.0], 1: [110.0], 2: [96.0]}
    d = stats.paired_difference(a, b)
    assert d.value == pytest.approx(2.0)
    half = t.ppf(0.975, 2) * np.std([2.0, 1.0, 3.0], ddof=1) / np.sqrt(3)
    assert (d.low, d.high) == pytest.approx((2.0 - half, 2.0 + half))
    # Below the floor is a number too, where a ratio's logarithm would fail.
    assert stats.paired_difference({0: [1.0], 1: [2.0]}, {0: [3.0], 1: [3.0]}).value == -1.5
    one = stats.paired_difference({0: [5.0]}, {0: [3.0]})
    assert one.value == 2.0 and one.text() == f"2.00 [{stats.NO_INTERVAL}]"


def test_geomean_ratio_averages_processes_and_settles_on_two_modes():
    # Each process of either cell is fast (100) or slow (200) as a whole, at random, as
    # processes on a shared host are; cell a does the same work as cell b. A pooled median
    # jumps between the modes; the mean over processes settles near 1.
    rng = np.random.default_rng(7)

    def cell(n):
        return {
            r: [float(rng.choice([100, 200])) * (1 + 0.01 * i) for i in range(3)] for r in range(n)
        }

    pairs = [(cell(40), cell(40)), (cell(40), cell(40))]
    q = stats.paired_geomean_ratio(pairs)
    assert q.low < q.value < q.high
    assert q.low > 0.8 and q.high < 1.25
    assert stats.paired_geomean_ratio(pairs) == q  # the same stored samples, the same report


def test_geomean_ratio_pairs_each_cell_by_its_own_rounds():
    # Two cells with different rounds (one got more from adaptive repetition), each
    # exactly half of its partner in every round it shares with it.
    a1, b1 = {0: [1.0, 1.0], 1: [2.0, 2.0]}, {0: [2.0, 2.0], 1: [4.0, 4.0], 2: [9.0, 9.0]}
    a2 = {r: [10.0 * (r + 1)] * 2 for r in range(5)}
    b2 = {r: [20.0 * (r + 1)] * 2 for r in range(5)}
    q = stats.paired_geomean_ratio([(a1, b1), (a2, b2)])
    assert q.value == pytest.approx(0.5)
    assert q.low == pytest.approx(0.5) and q.high == pytest.approx(0.5)
    with pytest.raises(ValueError, match="rounds that both cells ran"):
        stats.paired_geomean_ratio([({0: [1.0]}, {1: [1.0]})])


def logs_of(d, rounds=None):
    """Cells a and b of per-round log ratios d: a's process exp(d), b's 1."""
    rounds = range(len(d)) if rounds is None else rounds
    return {r: [float(np.exp(v))] for r, v in zip(rounds, d, strict=True)}, dict.fromkeys(
        rounds, [1.0]
    )


def test_a_round_per_cluster_is_students_interval():
    d = np.array([0.1, -0.05, 0.02, 0.07, -0.01])
    log = stats.process_log_ratio(*logs_of(d), paired=True)
    assert log.value == pytest.approx(d.mean())
    assert log.se == pytest.approx(np.std(d, ddof=1) / np.sqrt(5)) and log.df == 4


def test_the_headline_takes_its_variance_from_the_per_round_means_over_the_cells():
    # Three cells that share every round: the headline is the mean of the per-round
    # means, and its interval Student's on them, whatever the cells' own spreads (cells
    # that move together in a round count once; cells that cancel, as little).
    rng = np.random.default_rng(3)
    d = rng.normal(0, 0.1, (3, 8))
    d[1] = -d[0] + rng.normal(0, 0.01, 8)  # a cell that moves against the first
    log = stats.paired_geomean_log([logs_of(row) for row in d])
    per_round = d.mean(axis=0)
    assert log.value == pytest.approx(per_round.mean())
    assert log.se == pytest.approx(np.std(per_round, ddof=1) / np.sqrt(8)) and log.df == 7


def test_rounds_that_share_a_layout_are_one_cluster():
    # 12 rounds over 4 layout variants of each side: the interval's unit is the variant,
    # the mean of its rounds (the variance of those means / 4, on 3 degrees of freedom).
    rng = np.random.default_rng(4)
    d = rng.normal(0, 0.05, 4)[np.arange(12) % 4] + rng.normal(0, 0.02, 12)
    a, b = logs_of(d)
    la = {r: (("rust", "stock", r % 4),) for r in range(12)}
    lb = {r: (("cpp", "stock", r % 4),) for r in range(12)}
    log = stats.process_log_ratio(a, b, paired=True, layouts=(la, lb))
    means = np.array([d[k::4].mean() for k in range(4)])
    assert log.se == pytest.approx(np.std(means, ddof=1) / 2) and log.df == 3
    q = stats.paired_ratio(a, b, layouts=(la, lb))
    assert (q.low, q.high) == pytest.approx(
        tuple(np.exp(d.mean() + np.array([-1, 1]) * t.ppf(0.975, 3) * log.se))
    )
    # Without layouts (a fresh one every round), the same rounds: 11 degrees of freedom.
    assert stats.process_log_ratio(a, b, paired=True).df == 11
    # The difference of two cells clusters the same way.
    diff = stats.paired_difference(a, b, layouts=(la, lb))
    diffs = np.exp(d) - 1
    half = t.ppf(0.975, 3) * np.std([diffs[k::4].mean() for k in range(4)], ddof=1) / 2
    assert (diff.low, diff.high) == pytest.approx((diffs.mean() - half, diffs.mean() + half))


def test_clusters_join_rounds_that_share_any_binarys_variant():
    # Side a rotates over 2 variants, side b over 3: rounds 0-5 share a's variant with
    # the round two on and b's with the round three on, so all of them are one cluster;
    # a side of one binary (no layouts: the JVM) joins nothing.
    la = {r: (("rust", "stock", r % 2),) for r in range(6)}
    lb = {r: (("go", "stock", r % 3),) for r in range(6)}
    assert set(stats.round_clusters([list(range(6))], [(la, lb)]).values()) == {0}
    assert stats.round_clusters([list(range(6))], [(la, {})]) == {r: r % 2 for r in range(6)}
    assert stats.round_clusters([[0, 1, 2]], None) == {0: 0, 1: 1, 2: 2}
    # Two cells of a headline: the round is a cluster across them, and a variant one
    # cell's binary ran in rounds 0 and 2 joins them for the other cell too.
    one = {r: (("rust", "stock", r % 2),) for r in (0, 2)}
    assert stats.round_clusters([[0, 2], [1, 2, 3]], [(one, {}), ({}, {})]) == {
        0: 0,
        1: 1,
        2: 0,
        3: 2,
    }


def test_after_a_second_stage_over_the_pilots_layouts_the_interval_keeps_its_width():
    # The pilot's six rounds ran six layouts and the second stage ran them again: its
    # rounds cannot tell the layouts' variance from the processes', so the variance is the
    # pilot's rounds' per layout, and more rounds of the same layouts do not narrow it.
    d = np.array([0.1, -0.1, 0.12, -0.08, 0.05, -0.09] + [0.0] * 18)
    a, b = logs_of(d)
    lay = {r: (("cpp", "stock", r % 6),) for r in range(24)}
    stein = stats.process_log_ratio(a, b, paired=True, pilot=6, layouts=(lay, {}))
    assert stein.se == pytest.approx(np.std(d[:6], ddof=1) / np.sqrt(6)) and stein.df == 5
    # A fresh layout every round: Stein's s / sqrt(n), s from the pilot.
    fresh = stats.process_log_ratio(a, b, paired=True, pilot=6)
    assert fresh.se == pytest.approx(np.std(d[:6], ddof=1) / np.sqrt(24)) and fresh.df == 5


def test_a_headline_weighs_a_grown_cells_rounds_less():
    # Cell 0 has 12 rounds, cell 1 the pilot's 6 (the second stage grew only cell 0);
    # after the pilot rule each cell's rounds weigh 1 / (cells x its rounds).
    rng = np.random.default_rng(9)
    d0, d1 = rng.normal(0, 0.1, 12), rng.normal(0, 0.1, 6)
    log = stats.paired_geomean_log([logs_of(d0), logs_of(d1)], pilot=6)
    assert log.value == pytest.approx((d0.mean() + d1.mean()) / 2) and log.df == 5
    # The pilot's rounds' covariance between the cells, weighed by the final design.
    r0, r1 = d0[:6] - d0[:6].mean(), d1 - d1.mean()
    per_round = [(r0 / 12 + r1 / 6) / 2] * 6 + [r0 / 12 / 2] * 6
    var = sum((p**2).sum() for p in per_round) / 5
    assert log.se == pytest.approx(np.sqrt(var))


def test_the_smallest_change_is_what_the_verdict_calls():
    # A lone t test's 80% power: about (t_0.975 + t_0.8) standard errors, the standard
    # error taken up to its median's; the verdict's, beyond a threshold and over many
    # cells (a change of one cell alone must reach p < alpha / cells), much more.
    from scipy.stats import chi2

    log = stats.LogRatio(0.0, 0.01, 5, True)
    se = 0.01 * np.sqrt(5 / chi2.median(5))
    lone = stats.detectable(log)
    assert lone == pytest.approx(np.expm1((t.ppf(0.975, 5) + t.ppf(0.8, 5)) * se), rel=0.02)
    verdict = stats.detectable(log, 0.0, 0.8, 0.02, 0.05, 40)
    assert verdict > 2 * lone
    assert stats.verdict_power(verdict, se, 5, 0.02, 0.05, 40) == pytest.approx(0.8, abs=1e-6)
    # A threshold beyond the test's reach is what decides.
    assert stats.detectable(stats.LogRatio(0.0, 1e-4, 30, True), 0.0, 0.8, 0.1) == pytest.approx(
        0.1, abs=0.001
    )
    assert stats.detectable(stats.LogRatio(0.0, float("nan"), 0, True)) is None


def test_each_round_carries_the_layouts_of_its_drivers_binaries():
    from wirebench import model
    from wirebench.cells import Cell, Plan

    plan = Plan("quick", 1, (), layouts={"cpp": 3, "rust": 2})
    local = Cell.make("rpc", "eval", "cpp", "capnp", {"build": "tuned"})
    assert model.round_layouts(plan, local, [0, 4], {4: 1}) == {
        0: (("cpp", "tuned", 0),),
        4: (("cpp", "tuned", 1),),  # as its process row stored it
    }
    pipe = Cell.make("rpc", "eval", "rust", "capnp", {"build": "stock"}, server_lang="cpp")
    assert model.round_layouts(plan, pipe, [1], {}) == {
        1: (("rust", "stock", 1), ("cpp", "stock", 1))
    }
    jvm = Cell.make("rpc", "eval", "java", "capnp", {"build": "stock"})
    assert model.round_layouts(plan, jvm, [0, 1], {}) == {}  # a fresh layout every process


def encode(values):
    h = HdrHistogram(1, 10**9, 3)
    for v in values:
        h.record_value(v)
    return h.encode().decode()


def test_histograms_merge_instead_of_averaging_percentiles():
    # Two processes: one all fast, one with a slow tail. The merged p99 is the tail
    # value; averaging the two processes' p99 would give a number nobody measured.
    fast = encode([100] * 990 + [110] * 10)
    slow = encode([100] * 900 + [5000] * 100)
    merged = HdrHistogram.decode(fast)
    merged.add(HdrHistogram.decode(slow))  # HdrHistogram's own merge, the oracle
    p = {q.percentile: q for q in stats.percentiles([fast, slow], (50.0, 99.0, 100.0))}
    assert p[50.0].value == 100
    assert p[99.0].value == merged.get_value_at_percentile(99.0) >= 4999
    assert p[100.0].value >= 4999
    # Resampling processes: some resamples hold only the fast one, so the interval of
    # the tail reaches down to it.
    assert p[99.0].low <= 110 <= 4999 <= p[99.0].high


def test_percentiles_of_identical_processes_have_no_width():
    same = encode(range(1, 1001))
    (p90,) = stats.percentiles([same, same, same], (90.0,))
    assert p90.low == p90.value == p90.high
    assert abs(p90.value - 900) <= 1


def test_recorded_buckets_are_those_of_hdrhistograms_own_iterator():
    from hdrh.histogram import HdrHistogram

    h = HdrHistogram(1, 3_600_000_000_000, 3)
    for v in (0, 1, 5, 2047, 2048, 2049, 4097, 1_000_000, 123_456_789, 3_600_000_000_000):
        h.record_value(v, 3)
    values, counts = stats.recorded(h)
    own = [
        (i.value_iterated_to, i.count_added_in_this_iter_step) for i in h.get_recorded_iterator()
    ]
    assert list(zip(values.tolist(), counts.tolist(), strict=True)) == own


def test_the_percentile_curve_rises_to_the_tail_as_far_as_the_count_resolves():
    fast = encode([100] * 990 + [110] * 10)
    slow = encode([100] * 900 + [5000] * 100)
    x, y = stats.percentile_curve([fast, slow])
    assert x[0] == 1 and x[-1] == pytest.approx(2000)  # 0% to 1 - 1/2000
    assert y[0] == 100 and y[-1] >= 4999 and all(np.diff(y) >= 0)


def test_process_ratio_is_of_geometric_means_of_process_medians():
    a = {0: [100, 101, 99], 1: [200, 200, 201], 2: [100, 100, 100]}  # one slow process
    b = {0: [110, 110, 111], 1: [221, 220, 222], 2: [110, 109, 110]}
    paired, p = stats.process_log_ratio(b, a, paired=True).ratio()
    assert paired.value == pytest.approx(1.1, rel=3e-3) and paired.paired
    # Paired by round, the slow round cancels: a narrow interval and a small p.
    assert 1.05 < paired.low < 1.1 < paired.high < 1.15 and p < 0.01
    # Unpaired (two runs), the slow process is spread on both sides: wide, not significant.
    welch, p = stats.process_log_ratio(b, a, paired=False).ratio()
    assert welch.value == pytest.approx(paired.value)
    assert welch.low < 1 < welch.high and p > 0.05
    # A variance the processes do not show widens it.
    wider, _ = stats.process_log_ratio(b, a, paired=True).ratio(extra_var=0.1**2)
    assert wider.low < paired.low and wider.high > paired.high


def test_process_ratio_of_exact_counts_is_a_point_and_untested():
    log = stats.process_log_ratio({0: [1250], 1: [1250]}, {0: [1000], 1: [1000]}, paired=False)
    q, p = log.ratio()
    assert q.low == q.value == q.high == pytest.approx(1.25) and p is None
    log = stats.process_log_ratio({0: [120, 130]}, {0: [100, 110]}, paired=False)
    q, p = log.ratio()
    assert np.isnan(q.low) and p is None  # one process a side: no interval


def test_variance_splits_into_process_and_layout_parts():
    from wirebench import variance

    rng = np.random.default_rng(11)

    def cell(layout_sd):
        effects = rng.normal(0, layout_sd, 6)
        return {
            k: [
                list(100 * np.exp(effects[k] + rng.normal(0, 0.05) + rng.normal(0, 0.01, 5)))
                for _ in range(30)
            ]
            for k in range(6)
        }

    shifted = variance.decompose(cell(0.10))
    assert shifted.layouts == 6 and shifted.processes == 180
    assert shifted.within == pytest.approx(0.01, rel=0.2)
    assert shifted.between_processes == pytest.approx(0.05, rel=0.2)
    assert 0.04 < shifted.between_layouts < 0.2 and shifted.p < 0.001
    same = variance.decompose(cell(0.0))
    assert same.between_layouts < 0.015 and same.share_layouts < 0.1
    assert variance.decompose({0: [[1.0, 1.0]], 1: [[1.0], [2.0]]}) is None  # too few
    rounds = {r: [float(r)] for r in range(6)}
    assert variance.by_layout(rounds, {r: r % 3 for r in range(6)}) == {
        0: [[0.0], [3.0]],
        1: [[1.0], [4.0]],
        2: [[2.0], [5.0]],
    }


def test_cells_that_share_no_rounds_are_compared_unpaired():
    # A distributed run's cells of two comparison groups on one host: rounds 0 and 2 of
    # one, 1 and 3 of the other (the other rounds ran on other hosts).
    a = {0: [2.0, 2.1], 2: [2.2, 2.0]}
    b = {1: [1.0, 1.1], 3: [1.1, 1.0]}
    r = stats.paired_ratio(a, b)
    assert not r.paired and 1.8 < r.value < 2.2 and r.low < r.value < r.high
    assert stats.paired_ratio(a, {0: [1.0], 2: [1.0]}).paired
