import numpy as np

from wirebench import stats


def test_summary_of_constant_samples():
    s = stats.summarize([[10.0, 10.0, 10.0], [10.0, 10.0, 10.0]])
    assert (s.median, s.low, s.high, s.min, s.spread) == (10.0, 10.0, 10.0, 10.0, 0.0)
    assert not s.noisy and s.n_samples == 6 and s.n_processes == 2


def test_interval_contains_the_median_and_is_deterministic():
    rng = np.random.default_rng(1)
    groups = [list(100 + rng.normal(0, 2, 5)) for _ in range(3)]
    a, b = stats.summarize(groups), stats.summarize(groups)
    assert a == b
    assert a.low <= a.median <= a.high
    assert a.min == min(min(g) for g in groups)


def test_process_to_process_differences_widen_the_interval():
    tight = stats.summarize([[100, 100.1, 99.9]] * 3)
    apart = stats.summarize([[90, 90.1, 89.9], [100, 100.1, 99.9], [110, 110.1, 109.9]])
    assert (apart.high - apart.low) > 10 * (tight.high - tight.low)


def test_spread_flags_noisy_cells():
    s = stats.summarize([[100, 80, 120, 100, 90, 110]])
    assert s.spread > stats.SPREAD_LIMIT and s.noisy


def test_unequal_group_sizes():
    s = stats.summarize([[1.0], [2.0, 2.0, 2.0, 2.0]])
    assert 1.0 <= s.low <= s.high <= 2.0


def test_ratio_of_a_cell_to_itself_and_to_a_double():
    a = [[100, 101, 99], [100, 102, 98]]
    b = [[200, 202, 198], [200, 204, 196]]
    same = stats.ratio(a, a)
    assert same.value == 1.0 and same.low <= 1.0 <= same.high
    half = stats.ratio(a, b)
    assert half.value == 0.5 and half.low <= 0.5 <= half.high


def test_paired_ratio_cancels_a_drift_common_to_both_cells():
    # Three rounds; the machine is 20% slower in the second and 40% in the third, for
    # both cells alike. Cell a is always exactly half of cell b.
    drift = [1.0, 1.2, 1.4]
    a = [[100 * d, 101 * d, 99 * d] for d in drift]
    b = [[200 * d, 202 * d, 198 * d] for d in drift]
    paired = stats.ratio(a, b)
    assert paired.value == 0.5
    assert 0.49 < paired.low <= 0.5 <= paired.high < 0.51
    # The same cells with the rounds unpaired (b's reversed) give a far wider interval.
    unpaired = stats.ratio(a, list(reversed(b)))
    assert (unpaired.high - unpaired.low) > 10 * (paired.high - paired.low)
