"""Suite limit: the machine's limits, run beside every suite so that every library is read
against what the machine can do (today memcpy bandwidth)."""

from __future__ import annotations

from .. import stats
from ..cells import Task
from ..model import CellResult, Table
from ..protocol import Metric, MetricSpec, ResultError
from ..suite import Param, Suite

BLOCKS = {"16KiB": 16 << 10, "1MiB": 1 << 20, "64MiB": 64 << 20}
LIMIT_BLOCK = "1MiB"  # the block other suites' limit columns use: cache-sized copies
# Bytes copied per sample, whatever the block size, by profile.
BYTES = {"quick": 256 << 20, "standard": 1 << 30}


def bandwidth(results: list[CellResult]) -> dict[str, float]:
    """Bytes per nanosecond (GB/s) by block size, from the first limit cell of each."""
    bw: dict[str, float] = {}
    for r in results:
        if r.cell.suite == "limit" and r.ok:
            bw.setdefault(
                r.cell.param["block"], r.summary("bytes").median / r.summary("time").median
            )
    return bw


class Limit(Suite):
    def iters_for(self, profile, case, params):
        return max(1, BYTES[profile] // BLOCKS[params["block"]])

    def check_result(self, task: Task, r: dict, metrics: dict[str, Metric]) -> None:
        if any(v < 1 for v in metrics["time"].samples):
            raise ResultError("malformed result: a time sample is below 1 ns")
        block = BLOCKS[task.cell.param["block"]]
        if any(v != task.iters * block for v in metrics["bytes"].samples):
            raise ResultError(f"memcpy copied other than {task.iters} blocks of {block} bytes")
        if r.get("check") != [block] * task.samples:
            raise ResultError(f"wrong answers: check {r.get('check')!r}, expected the block size")

    def tables(self, results: list[CellResult], context: dict) -> list[Table]:

        rows = []
        for r in results:
            if not r.ok:
                rows.append([r.cell.impl, r.cell.param.get("block", ""), r.status.upper(), "", ""])
                continue
            s, b = r.summary("time"), r.summary("bytes").median
            rows.append(
                [
                    r.cell.impl,
                    r.cell.param["block"],
                    f"{b / s.median:.2f}",
                    stats.fmt_interval(b / s.high, b / s.low, sep=" - "),
                    f"{s.spread * 100:.1f}%",
                ]
            )
        if not rows:
            return []
        return [
            Table(
                "Machine limit: memcpy bandwidth",
                ["impl", "block", "GB/s", "95% CI", "spread"],
                rows,
            )
        ]


SUITE = Limit(
    name="limit",
    description="the machine's limits, shown beside every library (memcpy bandwidth)",
    cases={"memcpy": "copy one block between two buffers"},
    params=(Param("block", tuple(BLOCKS), "memcpy block sizes"),),
    metrics=(
        MetricSpec("time", "samples", "ns", "wall time of the copies"),
        MetricSpec("bytes", "samples", "B", "bytes copied"),
    ),
    lib_order=("memcpy",),
    accompanies_every_run=True,
)
