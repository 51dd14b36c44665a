"""Suite queue: the append latency of a persisted, memory-mapped queue (seed 002: a Java
queue against its C++ port; docs/queue-format.md is the queue every language implements,
Chronicle Queue stands beside it in Java).

A sample is a run, as in the seed: `single` 50,000 writes of one value, `bulk` one
write of 500,000 values, `paced` writes on a fixed schedule. A `single` sample is two
runs: one timed whole (its `time`: no timer read among its writes, whose clock read costs
about what a write does) and one timed write by write (its `latency` histogram, for the
tail). The driver's tailer reads every run back before the result counts.
"""

from __future__ import annotations

from pathlib import Path

from ..cells import Cell, Task
from ..model import CellResult, Table
from ..paths import RESULTS, mount_of
from ..protocol import Metric, MetricSpec, ResultError, histogram_encoding
from ..suite import Param, Suite
from . import queue_report

RATES = {"100k": 100_000, "500k": 500_000, "1M": 1_000_000}
PACED_RUN_SECONDS = 0.1  # a paced run's length at its rate

# Where the queue's directory goes, by the `storage` parameter.
STORAGE = {
    "tmpfs": Path("/dev/shm"),
    "disk": RESULTS / "queue",
}
# Runs per process, and untimed runs before them, by profile and case. The standard
# profile has the seed's 10,000 runs.
RUNS = {
    "quick": {"single": 100, "bulk": 100, "paced": 10},
    "standard": {"single": 10_000, "bulk": 10_000, "paced": 100},
}
WARMUP_RUNS = {"quick": 10, "standard": 100}
ITERS = {"single": 50_000, "bulk": 500_000}


def storage_dir(storage: str) -> Path:
    """The directory a cell's queue goes under, after checking that it is what the
    parameter says: tmpfs on tmpfs, disk on anything else."""
    where = STORAGE[storage]
    fs = mount_of(where)["fs"]
    if (storage == "tmpfs") != (fs == "tmpfs"):
        raise ResultError(f"storage {storage}: {where} is on {fs} here, so it cannot be measured")
    where.mkdir(parents=True, exist_ok=True)
    return where


def histogram_total(encoded: str) -> int:
    from hdrh.histogram import HdrHistogram

    return HdrHistogram.decode(encoded).get_total_count()


def _wrap64(v: int) -> int:
    return (v + (1 << 63)) % (1 << 64) - (1 << 63)


def timed_runs(case: str, samples: int) -> int:
    """The runs of `samples` timed samples: `single` times a run whole (`time`) and
    another write by write (`latency`) per sample; `bulk` (one write a run) and `paced`
    (a schedule read at every write) time each run once for both."""
    return 2 * samples if case == "single" else samples


def expected_checks(n: int, warmup: int, samples: int) -> list[int]:
    """The sum of each timed run's values: the process writes 0, 1, 2, ... through its
    warm-up and its runs, `n` values a run (`samples`: timed runs, timed_runs)."""
    out = []
    for run in range(warmup, warmup + samples):
        lo = run * n
        out.append(_wrap64(n * lo + n * (n - 1) // 2))
    return out


class Queue(Suite):
    rates = RATES  # for the report (queue_report.py)

    def iters_for(self, profile, case, params):
        if case == "paced":
            return int(RATES[params["rate"]] * PACED_RUN_SECONDS)
        return ITERS[case]

    def samples_for(self, profile: str, case: str) -> int:
        return RUNS[profile][case]

    def warmup_for(self, profile: str, case: str, iters: int) -> int:
        return max(1, WARMUP_RUNS[profile] // (10 if case == "paced" else 1))

    def fixture_parent(self, cell: Cell, name: str) -> Path:
        return storage_dir(cell.param.get("storage", "tmpfs"))

    def expand(self, driver, entry, ctx):
        if ctx.pairs:
            return []
        storages = sorted(ctx.filters.get("storage") or {"tmpfs"}, key=list(STORAGE).index)
        return [({**entry["params"], "storage": s}, None) for s in storages]

    def headline(self, cell, default):
        """Single and bulk on tmpfs: the null floor, wbq published sequentially
        consistently (monotonic clock, pretouched) and Chronicle Queue's default cell.
        seqcst, not each library's default: it is what every language can do (Go's
        sync/atomic has no release-only store), and headline ratios pair identical cells,
        so a release cell would leave Go's wbq out of them. Release against seqcst is one
        flag away (`--suite queue --ordering release,seqcst`)."""
        if cell.case == "paced" or cell.param.get("storage") != "tmpfs":
            return False
        if cell.lib == "wbq":
            want = {"ordering": "seqcst", "clock": "mono", "pretouch": "on"}
            return all(cell.param.get(k) == v for k, v in want.items())
        return default

    def provenance(self) -> dict:
        return {"storage": {s: {"path": str(p), **mount_of(p)} for s, p in STORAGE.items()}}

    # -- judging ------------------------------------------------------------------------
    def check_result(self, task: Task, r: dict, metrics: dict[str, Metric]) -> None:
        case, n, samples = task.cell.case, task.iters, task.samples
        runs = timed_runs(case, samples)
        warmup = r.get("warmup")
        if not isinstance(warmup, int):
            raise ResultError("malformed result: no warm-up count")
        entries = 1 if case == "bulk" else n
        want = expected_checks(n, warmup, runs)
        got = r.get("check")
        if not isinstance(got, list):
            raise ResultError(f"malformed result: 'check' must list the tailer's {runs} sums")
        if got != want:
            bad = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None)
            raise ResultError(
                "wrong answers: the tailer's sums differ from the values written"
                + (f" (run {bad}: {got[bad]}, expected {want[bad]})" if bad is not None else "")
                + (f"; {len(got)} sums for {runs} runs" if len(got) != runs else "")
            )
        if r.get("entries_checked") != (warmup + runs) * entries:
            raise ResultError(
                f"the tailer checked {r.get('entries_checked')!r} entries, "
                f"expected {(warmup + runs) * entries}"
            )
        if len(metrics["time"].samples) != samples:
            raise ResultError(
                f"{len(metrics['time'].samples)} time samples, expected {samples}"
                + (" (one per run timed whole)" if case == "single" else "")
            )
        names = ("latency", "service") if case == "paced" else ("latency",)
        if case == "paced" and "service" not in metrics:
            raise ResultError("a paced result without its service-time histogram")
        intervals = r.get("intervals")
        if not isinstance(intervals, dict):
            raise ResultError("malformed result: no per-second interval histograms")
        for name in names:
            # single: the runs timed write by write, one per sample; else every run.
            total = histogram_total(metrics[name].histogram)
            if total != samples * entries:
                raise ResultError(
                    f"{name} histogram holds {total} values, expected {samples * entries}"
                )
            try:
                in_intervals = sum(
                    histogram_total(histogram_encoding(iv)) for iv in intervals.get(name, [])
                )
            except (ValueError, TypeError, KeyError) as e:
                raise ResultError(f"malformed {name} interval histogram: {e}") from None
            if in_intervals != total:
                raise ResultError(
                    f"the {name} interval histograms hold {in_intervals} values, "
                    f"the whole run {total}"
                )

    # -- the report ---------------------------------------------------------------------
    def tables(self, results: list[CellResult], context: dict) -> list[Table]:
        return queue_report.tables(self, results, context.get("provenance") or {})

    def headline_tables(self, results: list[CellResult], base: str) -> list[Table]:
        return queue_report.headline_tables(self, results, base)

    def attachments(self, results: list[CellResult], processes, context) -> dict[str, bytes]:
        return queue_report.attachments(results, processes)


SUITE = Queue(
    name="queue",
    description="append latency of a memory-mapped queue (wbq in every language, "
    "Chronicle Queue in Java), every run read back by a tailer",
    cases={
        "single": "start a write, write one long, end it: 50,000 writes a run (a sample: "
        "a run timed whole, then one timed write by write)",
        "bulk": "one write holding 500,000 longs a run",
        "paced": "single writes on a fixed schedule (open loop): latency from the scheduled "
        "start, so a stall shows in the writes behind it",
    },
    params=(
        Param(
            "ordering",
            ("release", "seqcst", "none", "lib"),
            "how a write is published: a release store, a sequentially consistent one (a "
            "full fence on x86), none (the null floor), or Chronicle Queue's own",
        ),
        Param("clock", ("mono", "tsc"), "each entry's timestamp: the monotonic clock or rdtsc"),
        Param("pretouch", ("on", "off"), "the next cycle file mapped and touched between runs"),
        Param("rate", tuple(RATES), "paced: writes per second"),
        Param(
            "storage",
            tuple(STORAGE),
            "where the queue's files are: tmpfs (/dev/shm) or the project's disk",
            harness=True,
        ),
    ),
    metrics=(
        MetricSpec(
            "time",
            "samples",
            "ns",
            "per sample, a run timed whole, per write (single: from just before its first "
            "write to just after its last is published, no timer read among them; each "
            "entry's own timestamp read is part of the write) or per long (bulk: the run's "
            "one write); paced: the mean of its writes' service times",
        ),
        MetricSpec(
            "latency",
            "histogram",
            "ns",
            "every write's service time, timed write by write (single: in runs of their "
            "own, one per sample; bulk: every run's one write; paced: from its scheduled "
            "start)",
        ),
        MetricSpec(
            "service",
            "histogram",
            "ns",
            "paced: every write's service time",
            required=False,
        ),
    ),
    reading=(
        "Queue: `time` is per write (bulk: per long) in runs timed whole: no timer read "
        "among the writes, whose own timestamp read (the entry's header, part of the work) "
        "costs about what the rest of a write does. null is the floor: the same loop, the "
        "same timestamp reads, stores into a heap array, nothing published; `above null` "
        "(wbq - null of the same language, process medians paired by round, Student's t "
        "interval) is what the queue itself costs. The percentiles come from separate runs "
        "timed write by write (bulk: every run's one write), merged over processes, each "
        "with an interval from resampling processes: in single, two timer reads sit around "
        "every write and its percentiles move by the clock's step, so read them from "
        "p99.9 up. Every "
        "run was read back by a tailer (count, values, timestamps) before it counted. "
        "steal: the largest share of a process's time the hypervisor took. chronicle is "
        "`pretouch off`: its pretouch is a Chronicle Queue Enterprise feature."
    ),
    fixtures=("work_dir",),
    lib_order=("null", "wbq", "chronicle"),
    countable=False,
)
