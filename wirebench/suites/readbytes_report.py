"""The readbytes suite's section of a report: the seed's table (solution, bytes read, ms
for 10 passes, description) per case and page-cache state, with intervals, the ratio to
the fastest, MB/s beside the machine's memcpy bandwidth, and a bar chart of each."""

from __future__ import annotations

from .. import drivers, report
from ..readbytes_data import SIZE
from ..report import CellResult, Table, _per_build
from . import limit
from .readbytes import PASSES, describe


def compiler(r: CellResult) -> str:
    """The toolchain that built the cell's driver (a primary driver's cells name none)."""
    if r.cell.toolchain:
        return r.cell.toolchain
    d = drivers.DRIVERS.get(r.cell.lang)
    return d.toolchain if d else "?"


def _ms(ns_per_pass: float) -> float:
    return ns_per_pass * PASSES / 1e6


def _groups(results: list[CellResult]):
    """(case, cache, build, cells) in reading order: no table mixes two builds."""
    from .readbytes import SUITE

    for build, same in _per_build(results):
        for case in SUITE.cases:
            for cache in ("warm", "cold"):
                mine = [r for r in same if r.cell.case == case and r.cell.param["cache"] == cache]
                if mine:
                    yield case, cache, build, mine


def _fastest(rs: list[CellResult]) -> CellResult | None:
    """The reference of `x fastest`: the fastest cell that does I/O (null is the floor)."""
    real = [r for r in rs if r.ok and r.cell.lib != "null"]
    return min(real, key=lambda r: r.summary("time").median, default=None)


def _memcpy(all_results: list[CellResult]) -> tuple[str, float, float] | None:
    """(block, MB/s, ms for 10 passes' bytes) of the machine's memcpy, at the block size
    the other suites use where the run measured it."""
    bandwidths = limit.bandwidth(all_results)  # bytes per ns, by block
    block = limit.LIMIT_BLOCK if limit.LIMIT_BLOCK in bandwidths else next(iter(bandwidths), None)
    if block is None:
        return None
    bw = bandwidths[block]
    return block, bw * 1000, PASSES * SIZE / bw / 1e6


def tables(results: list[CellResult], all_results: list[CellResult]) -> list[Table]:
    memcpy = _memcpy(all_results)
    out = []
    for case, cache, _build, rs in _groups(results):
        fastest = _fastest(rs)
        rows = []
        ok = sorted((r for r in rs if r.ok), key=lambda r: r.summary("time").median)
        for r in ok:
            s = r.summary("time")
            ratio = "1.00" if r is fastest else "-"
            if fastest is not None and r is not fastest:
                q = report.ratio(r.metric("time"), fastest.metric("time"))
                ratio = q.text()
            rows.append(
                [
                    r.cell.impl,
                    compiler(r),
                    f"{PASSES * SIZE:,}",
                    f"{_ms(s.median):.1f} [{s.interval(lambda v: f'{_ms(v):.1f}', '-')}]"
                    + (" !" if s.noisy else ""),
                    ratio,
                    f"{SIZE / s.median * 1000:,.0f}",
                    describe(r.cell),
                ]
            )
        for r in (r for r in rs if not r.ok):
            rows.append([r.cell.impl, compiler(r), "", r.status.upper(), "", "", describe(r.cell)])
        if memcpy is not None:
            block, mbs, ms = memcpy
            rows.append(
                [
                    "memcpy (limit)",
                    "",
                    f"{PASSES * SIZE:,}",
                    f"{ms:.1f}",
                    "",
                    f"{mbs:,.0f}",
                    f"the machine's memcpy of the same bytes in {block} blocks (suite limit)",
                ]
            )
        out.append(
            Table(
                f"readbytes / {case}, cache {cache}: ms for {PASSES} passes of {SIZE:,} "
                "bytes, fastest first",
                [
                    "solution",
                    "compiler",
                    "bytes read",
                    f"ms / {PASSES} passes",
                    "x fastest",
                    "MB/s",
                    "description",
                ],
                rows,
            )
        )
    return out


def charts(results: list[CellResult], all_results: list[CellResult]) -> dict[str, bytes]:
    """A horizontal bar per cell (ms for 10 passes, with its 95% interval), fastest on
    top, coloured by language; the dashed line is memcpy moving the same bytes."""
    from .. import charts

    memcpy = _memcpy(all_results)
    files = {}
    for case, cache, build, rs in _groups(results):
        ok = sorted((r for r in rs if r.ok), key=lambda r: r.summary("time").median)
        if not ok:
            continue
        fig, ((ax,),) = charts.figure(9, 0.8 + 0.24 * len(ok))
        ys = range(len(ok))
        med = [_ms(r.summary("time").median) for r in ok]
        err = charts.whiskers(
            med,
            [_ms(r.summary("time").low) for r in ok],
            [_ms(r.summary("time").high) for r in ok],
        )
        ax.barh(
            list(ys),
            med,
            xerr=err,
            color=[charts.colour(r.cell.lang) for r in ok],
            error_kw={"elinewidth": 0.8, "capsize": 2},
        )
        ax.set_yticks(list(ys), [f"{r.cell.impl} ({compiler(r)})" for r in ok], fontsize=7)
        ax.invert_yaxis()
        if memcpy:
            ax.axvline(
                memcpy[2],
                color="black",
                linestyle="--",
                linewidth=0.8,
                label=f"memcpy of the same bytes ({memcpy[2]:.1f} ms)",
            )
            ax.legend(fontsize=7, loc="lower right")
        ax.set_xscale("log")
        ax.set_xlabel(f"ms for {PASSES} passes (log scale; whiskers: 95% interval)")
        ax.set_title(f"readbytes / {case}, cache {cache}" + (f", {build}" if build else ""))
        ax.grid(True, axis="x", which="both", alpha=0.3)
        files[f"readbytes-{case}-{cache}" + (f"-{build}" if build else "") + ".svg"] = charts.svg(
            fig
        )
    return files
