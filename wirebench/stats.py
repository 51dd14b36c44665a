"""Statistics over a cell's samples: medians, intervals that cover what they claim, ratios.

A cell's samples come in groups, one group per process, and the process is the unit:
processes differ (memory layout, the host's scheduling, a whole process in a fast or a
slow mode) by far more than the samples within one, so n processes are n measurements,
not n x samples.

- A cell's median (of all samples) gets a distribution-free 95% interval of the median
  of its process medians: order statistics, which need MIN_PROCESSES (6) processes to
  reach 95% at all (with n, the widest interval [min, max] covers 1 - 2 / 2^n). A cell
  with fewer processes has no interval (NaN), and tables say so rather than print a
  narrow one.
- A ratio of two cells of one run is paired by round (`paired_ratio`): the runner
  interleaves cells, so the n-th process of both ran seconds apart and a drift of the
  machine touches both alike. It is the geometric mean over rounds of the ratio of the
  two processes' medians, with Student's t interval on their logs. Cells of two runs
  share no rounds: Welch's t with Satterthwaite's degrees of freedom
  (`process_log_ratio(paired=False)`).
- Rounds that ran one layout variant of one binary (round r runs variant r mod K: with
  more rounds than K, several do) share its layout's effect: they are one cluster, and
  the interval's unit is the cluster, not the round (`clustered_mean`: a cluster-robust
  standard error on G - 1 degrees of freedom for G clusters; with a cluster per round,
  exactly Student's).
- A cost above a floor (`paired_difference`, the queue's wbq - null) pairs the same way:
  the mean over rounds of the difference of the two processes' medians, with Student's t
  interval (a difference can be near 0 or below it, where a ratio's logarithms cannot go).
- A headline ratio (`paired_geomean_log`) is the geometric mean of such per-cell
  ratios over many cells; its standard error is what the rounds show: the cells'
  deviations added within each round (or cluster) first, so that cells that move
  together in a round, or with one binary's layout, count once.
- After a second stage sized from a pilot (adaptive.py), the variance is the pilot's
  (Stein's procedure: `clustered_mean`).

Every interval is a t interval on logs or an order-statistic one, not a bootstrap: at
the three to ten processes a cell has, a normal-quantile bootstrap covers 77-81% where it
claims 95% (tests/test_coverage.py simulates it through this code). Histograms (latencies
per operation) are merged across processes, never averaged, and each percentile gets a
bootstrap interval that resamples processes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

BOOTSTRAP = 2000
CONFIDENCE = 0.95
SPREAD_LIMIT = 0.05  # cells whose relative spread exceeds this are marked as noisy
# A distribution-free 95% interval of a median needs this many processes: with n, the
# widest one, [min, max], covers 1 - 2 * 0.5^n (0.97 at 6, 0.94 at 5).
MIN_PROCESSES = 6
NAN = float("nan")
# Printed where an interval would be, for a cell of too few processes or a ratio of one
# round: the reports' legends say why.
NO_INTERVAL = "no CI"


def ci_json(low: float, high: float) -> list[float] | None:
    """An interval for JSON: [low, high], or null where there is none."""
    return None if math.isnan(low) else [low, high]


def fmt_interval(low: float, high: float, fmt=lambda v: f"{v:.2f}", sep: str = "-") -> str:
    """An interval as text, or NO_INTERVAL where there is none (NaN)."""
    return NO_INTERVAL if math.isnan(low) else f"{fmt(low)}{sep}{fmt(high)}"


@dataclass(frozen=True)
class Summary:
    median: float  # of the process medians
    low: float  # 95% confidence interval of the median; NaN: too few processes for one
    high: float
    min: float
    spread: float  # interquartile range over the median, across all samples
    n_samples: int
    n_processes: int

    @property
    def noisy(self) -> bool:
        return self.spread > SPREAD_LIMIT

    @property
    def has_interval(self) -> bool:
        return not math.isnan(self.low)

    def interval(self, fmt, sep: str = " - ") -> str:
        return fmt_interval(self.low, self.high, fmt, sep)


def _rng(seed: int = 0x5EED) -> np.random.Generator:
    # A fixed seed: the same stored samples always give the same report.
    return np.random.default_rng(seed)


def median_interval(values) -> tuple[float, float]:
    """A distribution-free 95% interval of the median of the population `values` are
    drawn from: the order statistics x(k) and x(n+1-k), with the largest k that still
    covers 95% whatever the distribution. NaN for fewer than MIN_PROCESSES values."""
    from scipy.stats import binom

    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    if n < MIN_PROCESSES:
        return NAN, NAN
    alpha = 1 - CONFIDENCE
    # P(x(k) <= m <= x(n+1-k)) = 1 - 2 P(Binomial(n, 1/2) <= k - 1): the largest such k.
    k = 1
    while 2 * binom.cdf(k, n, 0.5) <= alpha:
        k += 1
    return float(x[k - 1]), float(x[n - k])


def summarize(groups: list[list[float]]) -> Summary:
    """Summary of per-iteration times (or any values), grouped by process."""
    arrays = [np.asarray(g, dtype=float) for g in groups if len(g)]
    flat = np.concatenate(arrays)
    medians = [np.median(a) for a in arrays]
    # The median of the process medians: the process is the unit, and the interval below
    # is of this quantity (a pooled median can fall outside it).
    median = float(np.median(medians))
    q1, q3 = np.percentile(flat, [25, 75])
    if np.ptp(flat) == 0:
        low = high = median  # exact counts (instructions) and constants: no uncertainty
    else:
        low, high = median_interval(medians)
    return Summary(
        median=median,
        low=low,
        high=high,
        min=float(flat.min()),
        spread=float((q3 - q1) / median) if median else 0.0,
        n_samples=int(len(flat)),
        n_processes=len(arrays),
    )


@dataclass(frozen=True)
class Ratio:
    value: float  # the geometric mean of the ratios of process medians
    low: float  # 95% interval; NaN: too few rounds for one
    high: float
    paired: bool

    @property
    def has_interval(self) -> bool:
        return not math.isnan(self.low)

    @property
    def width(self) -> float:
        """The interval's larger half-width relative to the ratio; inf without one."""
        if not self.has_interval:
            return math.inf
        return max(self.value - self.low, self.high - self.value) / self.value

    def text(self, digits: int = 2, x: str = "") -> str:
        """`1.05x [0.98-1.10]`: the ratio and its interval (NO_INTERVAL without one)."""
        f = f"{{:.{digits}f}}".format
        return f"{f(self.value)}{x} [{fmt_interval(self.low, self.high, f)}]"


def geomean(values) -> float:
    return float(np.exp(np.mean(np.log(np.asarray(values, dtype=float)))))


@dataclass(frozen=True)
class LogRatio:
    """log(A/B) over processes: a mean of logs of process medians (or of their ratios),
    its standard error and degrees of freedom (Student's t)."""

    value: float
    se: float  # 0: no spread at all (exact counts); NaN: too few processes for one
    df: float
    paired: bool

    def ratio(self, extra_var: float = 0.0) -> tuple[Ratio, float | None]:
        """The ratio with its 95% t interval and the t test's two-sided p, the standard
        error widened by `extra_var` (a variance the processes cannot show, compare.py)."""
        v = float(np.exp(self.value))
        se = float(np.sqrt(self.se**2 + extra_var))
        if not np.isfinite(se):
            return Ratio(v, NAN, NAN, self.paired), None
        if se == 0:
            return Ratio(v, v, v, self.paired), None
        low, high, p = t_interval(self.value, se, self.df)
        return Ratio(v, float(np.exp(low)), float(np.exp(high)), self.paired), float(p)


def t_interval(value, se, df):
    """Student's t 95% interval of a mean of `value` with standard error `se` on `df`
    degrees of freedom, and the two-sided p of "it is 0": (low, high, p), elementwise
    over arrays (the coverage tests run thousands at once through it)."""
    from scipy.special import stdtr, stdtrit

    half = stdtrit(df, 1 - (1 - CONFIDENCE) / 2) * se
    return value - half, value + half, 2 * stdtr(df, -np.abs(value) / se)


def verdict_power(
    change: float,
    se: float,
    df: float,
    threshold: float = 0.0,
    alpha: float = 1 - CONFIDENCE,
    tests: int = 1,
) -> float:
    """The probability that compare.verdict calls a slowdown of `change` (a fraction) in
    one cell whose log ratio has standard error `se` on `df` degrees of freedom: its
    ratio beyond 1 + threshold and its adjusted p below alpha, where the adjustment
    (Benjamini-Hochberg over `tests` cells) asks p < alpha / tests of a cell that changed
    alone. The estimated standard error varies as se * sqrt(chi2(df) / df): averaged
    over 64 of its quantiles."""
    from scipy.special import chdtri, ndtr, stdtrit

    crit = stdtrit(df, 1 - alpha / (2 * tests))
    s = np.sqrt(chdtri(df, (np.arange(64) + 0.5) / 64) / df)
    bar = np.maximum(np.log1p(threshold), crit * se * s)
    return float(ndtr((np.log1p(change) - bar) / se).mean())


def detectable(
    log: LogRatio,
    extra_var: float = 0.0,
    power: float = 0.8,
    threshold: float = 0.0,
    alpha: float = 1 - CONFIDENCE,
    tests: int = 1,
) -> float | None:
    """The smallest slowdown (a fraction: 0.05 for 5%) of one cell that the verdict as
    printed calls with probability `power` (verdict_power: beyond the threshold, and p
    below alpha / tests, what Benjamini-Hochberg over `tests` cells asks of a change in
    one cell alone), from `log`'s standard error (widened by `extra_var`) and degrees of
    freedom. With the defaults, a lone t test's at the 95% level. None where there is no
    standard error.

    The standard error a cell's rounds show is itself a draw, se * sqrt(chi2(df) / df),
    below se more often than not (its median is 7% low at 5 degrees of freedom): it is
    taken up by that median, so that a planted change of the size printed is called
    with the power printed (tests/test_coverage.py)."""
    from scipy.special import chdtri

    if not np.isfinite(log.se) or log.df <= 0:
        return None
    se = float(np.sqrt(log.se**2 * log.df / chdtri(log.df, 0.5) + extra_var))
    if se == 0:
        return None

    def enough(x: float) -> bool:
        return verdict_power(math.expm1(x), se, log.df, threshold, alpha, tests) >= power

    low, high = math.log1p(threshold), math.log1p(threshold) + se
    while not enough(high):  # power rises with the change: bracket it, then bisect
        low, high = high, high + 2 * (high - low)
        if high > 50:
            return None
    for _ in range(50):
        mid = (low + high) / 2
        low, high = (low, mid) if enough(mid) else (mid, high)
    return float(math.expm1(high))


# -- rounds, layouts and clusters -------------------------------------------------------------

# Per round of a cell: the layout variants it ran of binaries that other rounds run too
# (model.MetricData.layouts: (driver, build, variant) of each of its drivers that rotates
# over several). Rounds that share one are not independent: they form a cluster.
Layouts = dict[int, tuple]


def _ran(a: dict[int, list[float]], b: dict[int, list[float]]) -> list[int]:
    return sorted(r for r in set(a) & set(b) if len(a[r]) and len(b[r]))


def _round_values(
    a: dict[int, list[float]], b: dict[int, list[float]], what: str, log: bool = True
) -> tuple[list[int], np.ndarray]:
    """The rounds both cells ran, and per round log(median of a's process / median of
    b's process), or (log False) the difference of the two medians."""
    rounds = _ran(a, b)
    if not rounds:
        raise ValueError(f"{what} needs rounds that both cells ran")
    ma = np.array([np.median(a[r]) for r in rounds])
    mb = np.array([np.median(b[r]) for r in rounds])
    return rounds, np.log(ma / mb) if log else ma - mb


def round_clusters(cells: list[list[int]], layouts: list[tuple[Layouts, Layouts]] | None) -> dict:
    """Which rounds are one cluster: a round with itself (every cell of one round ran
    in the same minutes, so a headline counts a round once, not once per cell), and
    rounds that ran one layout variant of one binary, on either side of any cell
    (transitively). `cells`: each cell's rounds; `layouts`: each cell's two sides'.
    Round -> cluster number (0, 1, ...)."""
    parent: dict[int, int] = {}

    def find(r: int) -> int:
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    for rounds in cells:
        for r in rounds:
            parent.setdefault(r, r)
    first: dict = {}  # a binary's variant -> a round that ran it
    for i, rounds in enumerate(cells):
        for side in layouts[i] if layouts else ():
            for r in rounds:
                for variant in side.get(r, ()):
                    other = first.setdefault(variant, r)
                    ra, rb = find(r), find(other)
                    if ra != rb:
                        parent[max(ra, rb)] = min(ra, rb)
    roots = sorted({find(r) for r in parent})
    number = {root: i for i, root in enumerate(roots)}
    return {r: number[find(r)] for r in parent}


def clustered_mean(
    d: np.ndarray, present: np.ndarray, cluster: np.ndarray, pilot: int | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """The mean over cells of each cell's mean over its rounds, its standard error and
    degrees of freedom, with rounds in clusters (round_clusters) as the unit.

    d: (..., cells, rounds) per-round values (anything where a cell lacks the round),
    elementwise over leading dimensions; present: (cells, rounds), which it has;
    cluster: (rounds,), each round's cluster, 0 to G - 1, every one present somewhere.

    The standard error is cluster-robust: the cells' residuals summed per cluster (each
    scaled by 1 / sqrt(1 - its share of its cell's rounds), the CR2 correction of Bell
    and McCaffrey, which makes it unbiased for independent rounds), weighted as the mean
    weighs them, added over cells within a cluster and squared over clusters, on G - 1
    degrees of freedom. A cluster per round: for one cell, exactly Student's s^2 / n; for
    cells sharing every round, the variance of the per-round means over the cells / n.
    Rounds that share a layout (G clusters of m rounds): the variance of the layouts'
    means / G. A cell whose rounds lie in one cluster shows nothing of its own variance:
    it borrows the median of the others' (none: no interval).

    `pilot`: a second stage was sized from each cell's first `pilot` rounds (Stein's
    procedure, adaptive.py). The number of rounds then depends on the pilot's variance,
    and a variance estimated from all rounds is smallest exactly when the pilot's luck
    made the count small (92% instead of 95%): the variance is the pilot's, on its
    clusters' degrees of freedom. Its clusters' means (over cells: their covariance)
    stand for any cluster's of the final design, whose weights then give the variance of
    the mean; a cluster of the final design holds at least as many rounds as the
    pilot's, so this is exact when every round has a layout of its own (Stein's s^2 / n)
    and errs wide otherwise: a second stage that reuses the pilot's layouts cannot tell
    layouts' variance from processes' and narrows nothing."""
    d = np.asarray(d, dtype=float)
    present = np.asarray(present, dtype=bool)
    n_cells = present.shape[0]
    n = present.sum(-1).astype(float)
    groups = int(cluster.max()) + 1 if cluster.size else 0
    onehot = (cluster[:, None] == np.arange(groups)).astype(float)
    x = np.where(present, d, 0.0)
    means = x.sum(-1) / n
    value = means.mean(-1)
    shape = value.shape
    m = present.astype(float) @ onehot  # (cells, clusters): each cell's rounds in each
    if pilot and (n > pilot).any():
        return value, *_pilot_variance(x, present, onehot, m, n, pilot)
    if groups < 2:
        return value, np.full(shape, NAN), 0
    e = np.where(present, x - means[..., None], 0.0)
    share = m / n[:, None]
    scale = np.where(share < 1, 1 / np.sqrt(np.maximum(1 - share, 1e-300)), 0.0)
    adj = (e @ onehot) * scale / n[:, None]  # (..., cells, clusters)
    known = (m > 0).sum(-1) >= 2  # cells that show their own variance
    if not known.any():
        return value, np.full(shape, NAN), 0
    var = (adj[..., known, :].sum(-2) ** 2).sum(-1) / n_cells**2
    if not known.all():
        own = (adj[..., known, :] ** 2).sum(-1)  # each known cell's variance of its mean
        var = var + (~known).sum() * np.median(own, axis=-1) / n_cells**2
    return value, np.sqrt(var), groups - 1


def _pilot_variance(x, present, onehot, m, n, pilot):
    """clustered_mean's variance after a second stage: from each cell's first `pilot`
    rounds."""
    first = present & (np.cumsum(present, -1) <= pilot)
    pm = first.astype(float) @ onehot  # (cells, clusters) pilot rounds in each
    used = pm.sum(0) > 0
    h = int(used.sum())
    shape = x.shape[:-2]
    if h < 2:
        return np.full(shape, NAN), 0
    sums = np.where(first, x, 0.0) @ onehot
    ybar = np.divide(sums, pm, out=np.zeros_like(sums), where=pm > 0)  # (..., cells, clusters)
    has = pm > 0
    ref = (ybar * has).sum(-1) / np.maximum(has.sum(-1), 1)
    resid = np.where(has, ybar - ref[..., None], 0.0)[..., used]  # (..., cells, pilot clusters)
    weights = m / (n[:, None] * present.shape[0])  # (cells, clusters): the final design's
    per = np.einsum("...ch,cg->...hg", resid, weights)
    return np.sqrt((per**2).sum((-2, -1)) / (h - 1)), h - 1


def _design(
    cells: list[tuple[list[int], np.ndarray]], layouts: list[tuple[Layouts, Layouts]] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells' per-round values (each: its rounds and their values) as clustered_mean's
    arrays."""
    cluster_of = round_clusters([r for r, _ in cells], layouts)
    rounds = sorted(cluster_of)
    col = {r: i for i, r in enumerate(rounds)}
    d = np.zeros((len(cells), len(rounds)))
    present = np.zeros((len(cells), len(rounds)), dtype=bool)
    for i, (rs, values) in enumerate(cells):
        idx = [col[r] for r in rs]
        d[i, idx], present[i, idx] = values, True
    return d, present, np.array([cluster_of[r] for r in rounds], dtype=int)


def _paired_log(
    a: dict[int, list[float]],
    b: dict[int, list[float]],
    pilot: int | None,
    layouts: tuple[Layouts, Layouts] | None,
    log: bool = True,
) -> LogRatio:
    cell = _round_values(a, b, "a paired ratio" if log else "a paired difference", log)
    value, se, df = clustered_mean(*_design([cell], [layouts] if layouts else None), pilot)
    return LogRatio(float(value), float(se), df, True)


def paired_ratio(
    a: dict[int, list[float]],
    b: dict[int, list[float]],
    pilot: int | None = None,
    layouts: tuple[Layouts, Layouts] | None = None,
) -> Ratio:
    """A/B of two cells of ONE run, paired by round (a round one lacks leaves its
    partner out): the geometric mean over rounds of the ratio of the two processes'
    medians, with its 95% t interval (none from a single round), rounds that share a
    layout variant (`layouts`: a's and b's, Layouts) counted as one cluster
    (clustered_mean). `pilot`: the rounds a second stage was sized from (adaptive.py),
    None: the rounds were fixed in advance.

    Two cells that share too few rounds to pair (a distributed run's cells of two
    comparison groups on one host: their rounds went to other hosts in turn) are compared
    unpaired, by Welch's interval, as two runs are."""
    if _too_few_shared(a, b):
        return process_log_ratio(a, b, paired=False).ratio()[0]
    return _paired_log(a, b, pilot, layouts).ratio()[0]


def paired_ratio_of_ratios(
    num: tuple[dict[int, list[float]], dict[int, list[float]]],
    den: tuple[dict[int, list[float]], dict[int, list[float]]],
    pilot: int | None = None,
    layouts: tuple[Layouts, ...] | None = None,
) -> tuple[LogRatio, np.ndarray]:
    """(A/B) / (C/D) of four cells of ONE run: how much a ratio moves between two
    settings ("Rust's relative performance degrades when it does I/O"), paired by round
    as paired_ratio is, over the rounds all four ran; `layouts`: the four cells'. Returns
    the log ratio and its per-round values (for one_round_range)."""
    ra, va = _round_values(*num, "a ratio of ratios")
    rc, vc = _round_values(*den, "a ratio of ratios")
    common = sorted(set(ra) & set(rc))
    if not common:
        raise ValueError("a ratio of ratios needs rounds that all four cells ran")
    ia, ic = ({r: i for i, r in enumerate(rs)} for rs in (ra, rc))
    values = np.array([va[ia[r]] - vc[ic[r]] for r in common])
    cluster_of = round_clusters([common], [layouts] if layouts else None)
    d, present = values[None, :], np.ones((1, len(common)), dtype=bool)
    cluster = np.array([cluster_of[r] for r in common], dtype=int)
    value, se, df = clustered_mean(d, present, cluster, pilot)
    return LogRatio(float(value), float(se), df, True), values


def round_logs(a: dict[int, list[float]], b: dict[int, list[float]]) -> np.ndarray:
    """log(A/B) of each round both cells ran (paired_ratio's values, for one_round_range)."""
    return _round_values(a, b, "a paired ratio")[1]


def one_round_range(values: np.ndarray) -> float:
    """The half-width, in logs, of the 95% prediction interval of ONE more round's value,
    from these rounds' values: t(0.975, n - 1) s sqrt(1 + 1/n). How far one run of the
    pair could land from the truth here: the scatter a single-run figure (a seed's) has
    at least. NaN from fewer than 2 rounds."""
    from scipy.stats import t

    n = len(values)
    if n < 2:
        return NAN
    s = float(np.std(values, ddof=1))
    return float(t.ppf(1 - (1 - CONFIDENCE) / 2, n - 1) * s * math.sqrt(1 + 1 / n))


def _too_few_shared(a: dict[int, list[float]], b: dict[int, list[float]]) -> bool:
    """Whether two cells share fewer rounds than pairing needs: none, or one where both
    have more."""
    ran_a = {r for r, v in a.items() if len(v)}
    ran_b = {r for r, v in b.items() if len(v)}
    return len(ran_a & ran_b) < min(2, len(ran_a), len(ran_b))


@dataclass(frozen=True)
class Difference:
    """A - B in the metric's unit (paired_difference), with its 95% interval."""

    value: float
    low: float  # NaN: one round, no interval
    high: float

    def text(self, fmt=lambda v: f"{v:.2f}") -> str:
        """`2.10 [1.52-2.68]`: the difference and its interval (NO_INTERVAL without one)."""
        return f"{fmt(self.value)} [{fmt_interval(self.low, self.high, fmt, ' to ')}]"


def paired_difference(
    a: dict[int, list[float]],
    b: dict[int, list[float]],
    pilot: int | None = None,
    layouts: tuple[Layouts, Layouts] | None = None,
) -> Difference:
    """A - B of two cells of ONE run, paired by round as paired_ratio is: the mean over
    rounds of the difference of the two processes' medians, with Student's t interval
    on those differences (clustered_mean: rounds of one layout a cluster, the pilot's
    variance after a second stage). For a cost above a floor (the queue's wbq - null),
    which can be near 0 or below it, where a ratio's logarithms cannot go."""
    d = _paired_log(a, b, pilot, layouts, log=False)
    if not np.isfinite(d.se):
        return Difference(d.value, NAN, NAN)
    low, high, _ = t_interval(d.value, d.se, d.df) if d.se else (d.value, d.value, 1.0)
    return Difference(d.value, float(low), float(high))


def paired_geomean_log(
    pairs: list[tuple[dict, dict]],
    pilot: int | None = None,
    layouts: list[tuple[Layouts, Layouts]] | None = None,
) -> LogRatio:
    """The mean over several cells of their paired log ratios (each over its own
    rounds), with the standard error of that mean from what the rounds show
    (clustered_mean): the cells' deviations added within each round (and each cluster of
    rounds that share a layout), then over rounds, so that cells of one round or one
    binary that move together count as the one measurement they are. Cells with more
    rounds than others (a second stage that grew them) weigh their rounds less.
    `layouts`: each pair's a's and b's (Layouts)."""
    cells = [_round_values(a, b, "a paired geometric mean") for a, b in pairs]
    value, se, df = clustered_mean(*_design(cells, layouts), pilot)
    return LogRatio(float(value), float(se), df, True)


def paired_geomean_ratio(
    pairs: list[tuple[dict, dict]],
    pilot: int | None = None,
    layouts: list[tuple[Layouts, Layouts]] | None = None,
) -> Ratio:
    """The geometric mean over several cells of their paired A/B ratios, with one 95%
    interval for the whole (paired_geomean_log)."""
    return paired_geomean_log(pairs, pilot, layouts).ratio()[0]


def process_log_ratio(
    a: dict[int, list[float]],
    b: dict[int, list[float]],
    paired: bool,
    pilot: int | None = None,
    layouts: tuple[Layouts, Layouts] | None = None,
):
    """A/B as the ratio of the geometric means of the two cells' process medians, for
    judging a change (compare.py): paired by round (two cells of one run; `pilot` and
    `layouts` as for paired_ratio), or Welch's (two runs, whose processes did not run
    side by side)."""
    if paired:
        return _paired_log(a, b, pilot, layouts)
    la = np.log([np.median(g) for g in a.values() if len(g)])
    lb = np.log([np.median(g) for g in b.values() if len(g)])
    if min(len(la), len(lb)) < 2:
        return LogRatio(float(la.mean() - lb.mean()), NAN, 0, False)
    va, vb = np.var(la, ddof=1) / len(la), np.var(lb, ddof=1) / len(lb)
    se = float(np.sqrt(va + vb))
    # Welch-Satterthwaite; any positive value where there is no spread (no test is made).
    df = (va + vb) ** 2 / (va**2 / (len(la) - 1) + vb**2 / (len(lb) - 1)) if se else 1.0
    return LogRatio(float(la.mean() - lb.mean()), se, float(df), False)


# -- histograms ------------------------------------------------------------------------------

PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99, 100.0)


@dataclass(frozen=True)
class Percentile:
    percentile: float
    value: float  # of the merged histogram of every process
    low: float  # 95% interval, from resampling processes
    high: float


def recorded(h) -> tuple[np.ndarray, np.ndarray]:
    """A decoded HdrHistogram's non-empty buckets: each one's highest equivalent value (what
    its recorded-values iterator yields) and its count, read from the counts array at
    once (the library's own iterator steps through every bucket in Python)."""
    c = np.ctypeslib.as_array(h.counts)[: h.counts_len]
    idx = np.nonzero(c)[0]
    bucket = (idx >> h.sub_bucket_half_count_magnitude) - 1
    sub = (idx & (h.sub_bucket_half_count - 1)) + h.sub_bucket_half_count
    first = bucket < 0  # bucket 0 holds its lower half too
    sub = np.where(first, sub - h.sub_bucket_half_count, sub)
    shift = np.where(first, 0, bucket) + h.unit_magnitude
    low = sub.astype(np.int64) << shift
    return low + (np.int64(1) << shift) - 1, c[idx].astype(float)


def _counts(encoded: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Decodes HdrHistograms (V2 compressed, base64) into one value axis (the union of
    their buckets' highest equivalent values) and a processes x values count matrix."""
    from hdrh.histogram import HdrHistogram

    per = [recorded(HdrHistogram.decode(text)) for text in encoded]
    values = np.unique(np.concatenate([v for v, _ in per]))
    counts = np.zeros((len(per), len(values)))
    for row, (v, n) in enumerate(per):
        counts[row, np.searchsorted(values, v)] = n
    return values.astype(float), counts


def _at(values: np.ndarray, cum: np.ndarray, p: float) -> np.ndarray:
    """Value at percentile p of each row of cumulated counts, as HdrHistogram defines it:
    the smallest recorded value with at least p% of the count at or below it."""
    target = np.maximum(1, np.ceil(cum[..., -1:] * p / 100.0))
    return values[np.argmax(cum >= target, axis=-1)]


def percentile_curve(encoded: list[str], points: int = 150) -> tuple[np.ndarray, np.ndarray]:
    """The merged histograms' value at percentiles from 0 to 1 - 1/total (as far as the
    count resolves), evenly spaced on the 1/(1-p) axis HdrHistogram's plots use: the
    percentiles (as 1/(1-p)) and their values."""
    values, counts = _counts(encoded)
    cum = np.cumsum(counts.sum(axis=0))
    x = np.logspace(0, np.log10(max(cum[-1], 1.0)), points)
    ps = 100.0 * (1.0 - 1.0 / x)
    return x, np.array([_at(values, cum, p) for p in ps])


def percentiles(encoded: list[str], ps=PERCENTILES) -> list[Percentile]:
    """Percentiles of the merged histograms of a cell's processes, each with a bootstrap
    interval that resamples processes (the variation between processes is most of the
    uncertainty of a tail)."""
    values, counts = _counts(encoded)
    n = len(encoded)
    weights = np.zeros((BOOTSTRAP, n))
    picks = _rng().integers(0, n, size=(BOOTSTRAP, n))
    np.add.at(weights, (np.arange(BOOTSTRAP)[:, None], picks), 1)
    # BOOTSTRAP x values: the cumulated merged counts of each resample.
    resampled = np.cumsum(weights @ counts, axis=-1)
    merged = np.cumsum(counts.sum(axis=0))
    alpha = (1 - CONFIDENCE) / 2
    out = []
    for p in ps:
        boot = _at(values, resampled, p)
        low, high = np.quantile(boot, [alpha, 1 - alpha])
        out.append(Percentile(p, float(_at(values, merged, p)), float(low), float(high)))
    return out
