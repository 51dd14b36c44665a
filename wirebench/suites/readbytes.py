"""Suite readbytes: reading a file that the application consumes one byte at a time (seed
003: C++ by g++ and clang, D by three compilers, Java), each language with its I/O
strategies, and one step further than the seed: decoding the bytes as the protobuf
varints they are, which is what the seed's D protobuf binding really did.

A strategy is the cell's library; the compiler is the driver's toolchain (cpp by g++ and
by clang++, d by gdc and by ldc2). A pass opens the file, reads every byte through the
strategy and closes it; a sample is 10 passes, as in the seed.
"""

from __future__ import annotations

from .. import readbytes_data as data
from ..cells import Cell, Task
from ..model import CellResult, Table
from ..paths import mount_of
from ..protocol import Metric, MetricSpec, ResultError
from ..readbytes_data import PASSES
from ..suite import Param, Suite
from . import readbytes_report

WARMUP_PASSES = {"quick": 3, "standard": 10}


class Readbytes(Suite):
    def iters_for(self, profile, case, params):
        return PASSES

    def warmup_for(self, profile: str, case: str, iters: int) -> int:
        return WARMUP_PASSES[profile]

    def headline(self, cell, default):
        """Warm, in `sum` (the seed's harder case), for every compiler: the null floor, the
        seed's straightforward strategy (fread into an own buffer, or the language's own
        read into one), and the one whose compilers differed most in the seed
        (fgetc_unlocked). The other strategies, count and varint are one flag away:
        `--suite readbytes`."""
        chosen = {"null", "fread", "own_buffer", "fgetc_unlocked"}
        return cell.param.get("cache") == "warm" and cell.case == "sum" and cell.lib in chosen

    def input_file(self, cell: Cell):
        try:
            path = data.data_file()
        except (data.DataError, OSError) as e:
            raise ResultError(f"the readbytes data file: {e}") from None
        if cell.param.get("cache") == "cold":
            refusal = data.cold_refusal(path)
            if refusal:
                raise ResultError(f"cache cold cannot be promised here: {refusal}")
        else:
            data.warm(path)
        return path

    def provenance(self) -> dict:
        path = data.DATA_DIR / data.FILE_NAME
        return {"data": {"path": str(path), "bytes": data.SIZE, **mount_of(path)}}

    def check_result(self, task: Task, r: dict, metrics: dict[str, Metric]) -> None:
        case, n, samples = task.cell.case, task.iters, task.samples
        want = [n * data.PER_PASS[case]] * samples
        if r.get("check") != want:
            raise ResultError(
                f"wrong answers: check {r.get('check')!r}, expected {want[0]} per sample "
                f"({n} passes of {data.PER_PASS[case]})"
            )
        if any(b != n * data.SIZE for b in metrics["bytes"].samples):
            raise ResultError(f"a sample read other than {n} passes of {data.SIZE} bytes")
        if any(t < 1 for t in metrics["time"].samples):
            raise ResultError("malformed result: a time sample is below 1 ns")
        warmup = r.get("warmup")
        if r.get("passes_checked") != warmup + n * samples:
            raise ResultError(
                f"the driver checked {r.get('passes_checked')!r} passes, expected "
                f"{warmup} warm-up and {n * samples} timed"
            )

    def tables(self, results: list[CellResult], context: dict) -> list[Table]:
        return readbytes_report.tables(
            self, results, context.get("all", results), context.get("provenance") or {}
        )

    def attachments(self, results: list[CellResult], processes, context) -> dict[str, bytes]:
        return readbytes_report.charts(
            self, results, context["all"], context.get("provenance") or {}
        )


SUITE = Readbytes(
    name="readbytes",
    description="a 12.9 MB file consumed one byte at a time, per I/O strategy and "
    "compiler; every pass's count, sum or decoded ids checked",
    cases={
        "count": "count the bytes (12,886,336 a pass)",
        "sum": "sum the bytes, plus their count (1,457,733,664 a pass)",
        "varint": "decode the protobuf tags and varints, sum the ids (4,499,998,500,000 a pass)",
    },
    params=(
        Param(
            "cache",
            ("warm", "cold"),
            "the page cache: warm (the file read before), or cold (POSIX_FADV_DONTNEED "
            "before every pass, where the harness can prove it empties the cache)",
        ),
    ),
    metrics=(
        MetricSpec("time", "samples", "ns", "wall time of the passes (per pass)"),
        MetricSpec("bytes", "samples", "B", "bytes read (per pass)"),
    ),
    reading=(
        "Readbytes: a pass opens the 12.9 MB file of docs/workloads.md §8, hands every byte "
        "to the case one at a time through the strategy, and closes it; each pass is timed "
        "alone and every pass's answer checked. Times are for 10 passes (the seed's unit), "
        "medians with 95% intervals; `x fastest` is the paired ratio to the fastest cell of "
        "the table. The compiler is the driver's: cpp@clang++ and d@ldc2 are clang and ldc "
        "builds of the same sources as cpp (g++) and d@gdc. null is the floor: the same "
        "consumer over the file already in memory."
    ),
    fixtures=("input",),
    lib_order=("null",),
)
