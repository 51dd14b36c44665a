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
- A cost above a floor (`paired_difference`, the queue's wbq - null) pairs the same way:
  the mean over rounds of the difference of the two processes' medians, with Student's t
  interval (a difference can be near 0 or below it, where a ratio's logarithms cannot go).
- A headline ratio (`paired_geomean_log`) is the geometric mean of such per-cell
  ratios over many cells; its standard error adds the cells' and its degrees of freedom
  are Satterthwaite's.

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
        from scipy.stats import t

        v = float(np.exp(self.value))
        se = float(np.sqrt(self.se**2 + extra_var))
        if not np.isfinite(se):
            return Ratio(v, NAN, NAN, self.paired), None
        if se == 0:
            return Ratio(v, v, v, self.paired), None
        half = t.ppf(1 - (1 - CONFIDENCE) / 2, self.df) * se
        p = float(2 * t.sf(abs(self.value) / se, self.df))
        low, high = np.exp([self.value - half, self.value + half])
        return Ratio(v, float(low), float(high), self.paired), p


def detectable(log: LogRatio, extra_var: float = 0.0, power: float = 0.8) -> float | None:
    """The smallest change (a fraction: 0.05 for 5%) that a t test of `log`'s standard
    error and degrees of freedom calls at the 95% level with probability `power`, before
    any adjustment for many tests: (t_0.975 + t_power) standard errors. None where there
    is no standard error."""
    from scipy.stats import t

    se = float(np.sqrt(log.se**2 + extra_var))
    if not np.isfinite(se) or se == 0 or log.df <= 0:
        return None
    return float(np.expm1((t.ppf(1 - (1 - CONFIDENCE) / 2, log.df) + t.ppf(power, log.df)) * se))


def _round_logs(a: dict[int, list[float]], b: dict[int, list[float]], what: str) -> np.ndarray:
    """log(median of a's process / median of b's process) for every round both ran."""
    rounds = sorted(r for r in set(a) & set(b) if len(a[r]) and len(b[r]))
    if not rounds:
        raise ValueError(f"{what} needs rounds that both cells ran")
    return np.log([np.median(a[r]) / np.median(b[r]) for r in rounds])


def _variance(d: np.ndarray, pilot: int | None) -> tuple[float, int]:
    """The variance per round of d, and its degrees of freedom: from the first `pilot`
    rounds when a second stage was sized from them (Stein's interval: the number of
    rounds depends on the pilot's variance only, so the mean of all rounds over the
    pilot's standard deviation is exactly t with pilot - 1 degrees of freedom; a variance
    of all rounds would be smallest exactly when the pilot's luck made the count small,
    and cover 92% instead of 95%), else from all of them. NaN with one round."""
    used = d[:pilot] if pilot and len(d) > pilot else d
    if len(used) < 2:
        return NAN, 0
    return float(np.var(used, ddof=1)), len(used) - 1


def _mean_log(d: np.ndarray, pilot: int | None = None) -> LogRatio:
    var, df = _variance(d, pilot)
    return LogRatio(float(d.mean()), float(np.sqrt(var / len(d))), df, True)


def paired_ratio(
    a: dict[int, list[float]], b: dict[int, list[float]], pilot: int | None = None
) -> Ratio:
    """A/B of two cells of ONE run, paired by round (a round one lacks leaves its
    partner out): the geometric mean over rounds of the ratio of the two processes'
    medians, with its 95% t interval (none from a single round). `pilot`: the rounds a
    second stage was sized from (adaptive.py), None: the rounds were fixed in advance.

    Two cells that share too few rounds to pair (a distributed run's cells of two
    comparison groups on one host: their rounds went to other hosts in turn) are compared
    unpaired, by Welch's interval, as two runs are."""
    if _too_few_shared(a, b):
        return process_log_ratio(a, b, paired=False).ratio()[0]
    return _mean_log(_round_logs(a, b, "a paired ratio"), pilot).ratio()[0]


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
    a: dict[int, list[float]], b: dict[int, list[float]], pilot: int | None = None
) -> Difference:
    """A - B of two cells of ONE run, paired by round as paired_ratio is: the mean over
    rounds of the difference of the two processes' medians, with Student's t interval
    on those differences (n - 1 degrees of freedom, or the pilot's: _variance). For a
    cost above a floor (the queue's wbq - null), which can be near 0 or below it, where
    a ratio's logarithms cannot go."""
    from scipy.stats import t

    rounds = sorted(r for r in set(a) & set(b) if len(a[r]) and len(b[r]))
    if not rounds:
        raise ValueError("a paired difference needs rounds that both cells ran")
    d = np.array([np.median(a[r]) - np.median(b[r]) for r in rounds])
    mean = float(d.mean())
    var, df = _variance(d, pilot)
    if math.isnan(var):
        return Difference(mean, NAN, NAN)
    half = float(t.ppf(1 - (1 - CONFIDENCE) / 2, df) * math.sqrt(var / len(d)))
    return Difference(mean, mean - half, mean + half)


def paired_geomean_log(pairs: list[tuple[dict, dict]], pilot: int | None = None) -> LogRatio:
    """The mean over several cells of their paired log ratios (_round_logs), with the
    standard error of that mean: the cells' squared standard errors added (each from its
    own rounds, or its pilot's: _variance) over the number of cells squared, and
    Satterthwaite's degrees of freedom. A cell of one round has no variance of its own:
    it borrows the median of the others', and with no other there is no interval."""
    cells = [_round_logs(a, b, "a paired geometric mean") for a, b in pairs]
    means = np.array([d.mean() for d in cells])
    ns = np.array([len(d) for d in cells], dtype=float)
    var = [_variance(d, pilot) for d in cells]
    s2, dfs = np.array([v for v, _ in var]), np.array([df for _, df in var], dtype=float)
    known = dfs > 0
    if not known.any():
        return LogRatio(float(means.mean()), NAN, 0, True)
    s2[~known] = np.median(s2[known])
    dfs[~known] = np.median(dfs[known])
    v = s2 / ns  # each cell's squared standard error
    k = len(cells)
    se = float(np.sqrt(v.sum()) / k)
    df = float(v.sum() ** 2 / (v**2 / dfs).sum()) if v.sum() > 0 else 1.0
    return LogRatio(float(means.mean()), se, df, True)


def paired_geomean_ratio(pairs: list[tuple[dict, dict]], pilot: int | None = None) -> Ratio:
    """The geometric mean over several cells of their paired A/B ratios, with one 95%
    interval for the whole (paired_geomean_log)."""
    return paired_geomean_log(pairs, pilot).ratio()[0]


def process_log_ratio(
    a: dict[int, list[float]], b: dict[int, list[float]], paired: bool, pilot: int | None = None
):
    """A/B as the ratio of the geometric means of the two cells' process medians, for
    judging a change (compare.py): paired by round (two cells of one run; `pilot` as for
    paired_ratio), or Welch's (two runs, whose processes did not run side by side)."""
    if paired:
        return _mean_log(_round_logs(a, b, "a paired ratio"), pilot)
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
