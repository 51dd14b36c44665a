"""Statistics over a cell's samples: median, bootstrap confidence interval, min, spread.

A cell's samples come in groups, one group per process. Processes differ (memory layout,
ASLR, what else the machine did), so the confidence interval comes from a two-level
bootstrap: resample the processes, then the samples within each chosen process. With
few processes this interval is honest rather than narrow.

Ratios between two cells of one run are paired by round (`paired_ratio`): the runner
interleaves cells, so the n-th process of every cell ran in the same round, close in time,
and a drift of the machine between rounds (on a shared VM, 10-25% over minutes) touches
both sides of the ratio alike. Cells of different runs have no common rounds: their ratio
is unpaired (`unpaired_ratio`), and the caller says which it has. Judging a change
(compare.py) takes the process as the unit instead: `process_log_ratio`, Student's t on
the logs of the process medians.

Histograms (latencies per operation) are merged across processes, never averaged, and
each percentile gets an interval by resampling processes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BOOTSTRAP = 2000
CONFIDENCE = 0.95
SPREAD_LIMIT = 0.05  # cells whose relative spread exceeds this are marked as noisy


@dataclass(frozen=True)
class Summary:
    median: float
    low: float  # 95% confidence interval of the median
    high: float
    min: float
    spread: float  # interquartile range over the median, across all samples
    n_samples: int
    n_processes: int

    @property
    def noisy(self) -> bool:
        return self.spread > SPREAD_LIMIT


def _rng(seed: int = 0x5EED) -> np.random.Generator:
    # A fixed seed: the same stored samples always give the same report.
    return np.random.default_rng(seed)


def bootstrap_medians(
    groups: list[list[float]], rng: np.random.Generator, picked: np.ndarray | None = None
) -> np.ndarray:
    """BOOTSTRAP medians of two-level resamples (processes, then samples in each).

    `picked` (BOOTSTRAP x processes) chooses the processes of each resample; a paired
    ratio passes the same choice for both cells."""
    arrays = [np.asarray(g, dtype=float) for g in groups if len(g)]
    n_groups = len(arrays)
    sizes = np.array([len(a) for a in arrays])
    flat = np.concatenate(arrays)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    # Pick groups, then a sample index within each picked group, all vectorised.
    if picked is None:
        picked = rng.integers(0, n_groups, size=(BOOTSTRAP, n_groups))
    per_group = sizes.max()
    within = rng.random((BOOTSTRAP, n_groups, per_group))
    idx = offsets[picked][..., None] + (within * sizes[picked][..., None]).astype(int)
    if (sizes == per_group).all():  # the usual case, and the fast one: nothing to mask
        return np.median(flat[idx].reshape(BOOTSTRAP, -1), axis=1)
    # Groups smaller than the largest: keep only their own sample count (mask the rest).
    mask = np.arange(per_group)[None, None, :] < sizes[picked][..., None]
    values = np.where(mask, flat[idx], np.nan).reshape(BOOTSTRAP, -1)
    return np.nanmedian(values, axis=1)


def summarize(groups: list[list[float]]) -> Summary:
    """Summary of per-iteration times (or any values), grouped by process."""
    flat = np.concatenate([np.asarray(g, dtype=float) for g in groups if len(g)])
    median = float(np.median(flat))
    q1, q3 = np.percentile(flat, [25, 75])
    if len(flat) > 1:
        meds = bootstrap_medians(groups, _rng())
        alpha = (1 - CONFIDENCE) / 2
        low, high = (float(v) for v in np.quantile(meds, [alpha, 1 - alpha]))
    else:
        low = high = median
    return Summary(
        median=median,
        low=low,
        high=high,
        min=float(flat.min()),
        spread=float((q3 - q1) / median) if median else 0.0,
        n_samples=int(len(flat)),
        n_processes=sum(1 for g in groups if len(g)),
    )


@dataclass(frozen=True)
class Ratio:
    value: float  # median(a) / median(b)
    low: float
    high: float
    paired: bool


def _flat(groups) -> np.ndarray:
    return np.concatenate([np.asarray(g, dtype=float) for g in groups if len(g)])


def _interval(ma: np.ndarray, mb: np.ndarray) -> tuple[float, float]:
    alpha = (1 - CONFIDENCE) / 2
    low, high = np.quantile(ma / mb, [alpha, 1 - alpha])
    return float(low), float(high)


def paired_ratio(a: dict[int, list[float]], b: dict[int, list[float]]) -> Ratio:
    """The ratio of two cells of ONE run, paired by round: the runner interleaves cells,
    so the processes of round r of both cells ran close in time. The bootstrap resamples
    rounds, the same ones on both sides. Only rounds both cells have are used."""
    rounds = sorted(set(a) & set(b))
    if not rounds:
        raise ValueError("a paired ratio needs rounds that both cells ran")
    ga, gb = [a[r] for r in rounds], [b[r] for r in rounds]
    rng = _rng()
    picked = rng.integers(0, len(rounds), size=(BOOTSTRAP, len(rounds)))
    ma, mb = bootstrap_medians(ga, rng, picked), bootstrap_medians(gb, rng, picked)
    value = float(np.median(_flat(ga))) / float(np.median(_flat(gb)))
    return Ratio(value, *_interval(ma, mb), paired=True)


def geomean(values) -> float:
    return float(np.exp(np.mean(np.log(np.asarray(values, dtype=float)))))


def paired_geomean_ratio(pairs: list[tuple[dict, dict]]) -> Ratio:
    """The geometric mean over several cells of their A/B ratios, each cell's ratio the
    geometric mean over its rounds of the ratio of the two processes' medians in that
    round (paired: they ran seconds apart), with one interval for the whole.

    Process-level: on this kind of machine processes of one cell differ by 20% and more,
    some in two modes (a whole process fast or slow), and a pooled median jumps between
    the modes while a mean over processes settles as one over the square root of their
    number (Kalibera and Jones, "Rigorous benchmarking in reasonable time", 2013). The
    interval resamples each cell's rounds: the top level of the hierarchy only, which
    carries the lower levels' variation with it (resampling samples within processes as
    well would count it twice, and skews the median of three samples)."""
    rng = _rng()
    boots, means = np.zeros(BOOTSTRAP), []
    for a, b in pairs:
        rounds = sorted(set(a) & set(b))
        if not rounds:
            raise ValueError("a paired geometric mean needs rounds that both cells ran")
        logs = np.log([np.median(a[r]) / np.median(b[r]) for r in rounds])
        mean, n = logs.mean(), len(rounds)
        means.append(mean)
        picked = rng.integers(0, n, size=(BOOTSTRAP, n))
        # A resampled mean varies (n-1)/n as much as the mean itself: widened by the
        # inverse, so that a cell of three rounds is not a third too sure of itself.
        boots += mean + (logs[picked].mean(axis=1) - mean) * np.sqrt(n / max(n - 1, 1))
    alpha = (1 - CONFIDENCE) / 2
    low, high = np.exp(np.quantile(boots / len(pairs), [alpha, 1 - alpha]))
    return Ratio(float(np.exp(np.mean(means))), float(low), float(high), paired=True)


def unpaired_ratio(a: list[list[float]], b: list[list[float]]) -> Ratio:
    """The ratio of two cells whose processes did not run side by side (two runs, two
    machines): each side resampled on its own, so a drift between them is not cancelled
    and the interval is wider."""
    rng = _rng()
    ma, mb = bootstrap_medians(a, rng), bootstrap_medians(b, rng)
    value = float(np.median(_flat(a))) / float(np.median(_flat(b)))
    return Ratio(value, *_interval(ma, mb), paired=False)


@dataclass(frozen=True)
class LogRatio:
    """log(A/B) of two cells over their processes: the difference of the means of the logs
    of the process medians, its standard error and degrees of freedom (Student's t)."""

    value: float
    se: float  # 0: no spread at all (exact counts); NaN: one process a side
    df: float
    paired: bool

    def ratio(self, extra_var: float = 0.0) -> tuple[Ratio, float | None]:
        """The ratio with its 95% t interval and the t test's two-sided p, the standard
        error widened by `extra_var` (a variance the processes cannot show, compare.py)."""
        from scipy.stats import t

        v = float(np.exp(self.value))
        se = float(np.sqrt(self.se**2 + extra_var))
        if not np.isfinite(se):
            return Ratio(v, float("nan"), float("nan"), self.paired), None
        if se == 0:
            return Ratio(v, v, v, self.paired), None
        half = t.ppf(1 - (1 - CONFIDENCE) / 2, self.df) * se
        p = float(2 * t.sf(abs(self.value) / se, self.df))
        low, high = np.exp([self.value - half, self.value + half])
        return Ratio(v, float(low), float(high), self.paired), p


def process_log_ratio(a: dict[int, list[float]], b: dict[int, list[float]], paired: bool):
    """A/B as the ratio of the geometric means of the two cells' process medians, for
    judging a change (compare.py): paired by round (two cells of one run), or Welch's (two
    runs, whose processes did not run side by side). The process is the independent unit,
    and with the handful a cell has, t's wider quantiles are honest where a bootstrap over
    five processes is a third too narrow."""
    if paired:
        rounds = sorted(set(a) & set(b))
        d = np.log([np.median(a[r]) / np.median(b[r]) for r in rounds])
        n = len(d)
        se = float(np.std(d, ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        return LogRatio(float(d.mean()), se, n - 1, True)
    la = np.log([np.median(g) for g in a.values() if len(g)])
    lb = np.log([np.median(g) for g in b.values() if len(g)])
    if min(len(la), len(lb)) < 2:
        return LogRatio(float(la.mean() - lb.mean()), float("nan"), 0, False)
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
