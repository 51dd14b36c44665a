"""The readbytes suite's section of a report: the seed's table (solution, bytes read, ms
for 10 passes, description) per case and page-cache state, with intervals, the ratio to
the fastest, MB/s beside the machine's memcpy bandwidth, and a bar chart of each."""

from __future__ import annotations

from .. import charts as ch
from .. import model
from ..cells import Cell
from ..model import CellResult, Table
from ..readbytes_data import PASSES, SIZE
from ..suite import Suite
from . import limit


def compiler(r: CellResult, provenance: dict) -> str:
    """The toolchain that built the cell's driver (a primary driver's cells name none:
    its `info`, stored in the run's provenance, does)."""
    if r.cell.toolchain:
        return r.cell.toolchain
    return ((provenance.get("drivers") or {}).get(r.cell.driver_id) or {}).get("toolchain", "?")


def _ms(ns_per_pass: float) -> float:
    return ns_per_pass * PASSES / 1e6


def _groups(suite: Suite, results: list[CellResult]):
    """(case, cache, build, cells) in reading order: no table mixes two builds."""
    for build, same in model.per_build(results):
        for case in suite.cases:
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


def tables(
    suite: Suite, results: list[CellResult], all_results: list[CellResult], provenance: dict
) -> list[Table]:
    memcpy = _memcpy(all_results)
    out = []
    for case, cache, _build, rs in _groups(suite, results):
        fastest = _fastest(rs)
        rows = []
        ok = sorted((r for r in rs if r.ok), key=lambda r: r.summary("time").median)
        for r in ok:
            s = r.summary("time")
            ratio = "1.00" if r is fastest else "-"
            if fastest is not None and r is not fastest:
                q = model.ratio(r.metric("time"), fastest.metric("time"))
                ratio = q.text()
            rows.append(
                [
                    r.cell.impl,
                    compiler(r, provenance),
                    f"{PASSES * SIZE:,}",
                    f"{_ms(s.median):.1f} [{s.interval(lambda v: f'{_ms(v):.1f}', '-')}]"
                    + (" !" if s.noisy else ""),
                    ratio,
                    f"{SIZE / s.median * 1000:,.0f}",
                    describe(r.cell),
                ]
            )
        for r in (r for r in rs if not r.ok):
            rows.append(
                [
                    r.cell.impl,
                    compiler(r, provenance),
                    "",
                    r.status.upper(),
                    "",
                    "",
                    describe(r.cell),
                ]
            )
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


def charts(
    suite: Suite, results: list[CellResult], all_results: list[CellResult], provenance: dict
) -> dict[str, bytes]:
    """A horizontal bar per cell (ms for 10 passes, with its 95% interval), fastest on
    top, coloured by language; the dashed line is memcpy moving the same bytes."""

    memcpy = _memcpy(all_results)
    files = {}
    for case, cache, build, rs in _groups(suite, results):
        ok = sorted((r for r in rs if r.ok), key=lambda r: r.summary("time").median)
        if not ok:
            continue
        fig, ((ax,),) = ch.figure(9, 0.8 + 0.24 * len(ok))
        ys = range(len(ok))
        med = [_ms(r.summary("time").median) for r in ok]
        err = ch.whiskers(
            med,
            [_ms(r.summary("time").low) for r in ok],
            [_ms(r.summary("time").high) for r in ok],
        )
        ax.barh(
            list(ys),
            med,
            xerr=err,
            color=[ch.colour(r.cell.lang) for r in ok],
            error_kw={"elinewidth": 0.8, "capsize": 2},
        )
        ax.set_yticks(
            list(ys), [f"{r.cell.impl} ({compiler(r, provenance)})" for r in ok], fontsize=7
        )
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
        files[f"readbytes-{case}-{cache}" + (f"-{build}" if build else "") + ".svg"] = ch.svg(fig)
    return files


# What each language's strategies do (docs/protocol.md, Suite readbytes), for the tables.
STRATEGIES = {
    "cpp": {
        "null": "the file read into memory before timing, consumed from there (no I/O)",
        "fread": "fread into an own 64 KiB buffer",
        "mmap": "mmap of the whole file",
        "fgetc": "fgetc per byte",
        "fgetc_unlocked": "fgetc_unlocked per byte",
        "getc_unlocked": "getc_unlocked per byte (glibc's macro)",
        "dlsym_fread": 'fread found with dlopen("libc.so.6") and dlsym, own 64 KiB buffer',
        "istreambuf_iterator": "std::istreambuf_iterator over a std::ifstream",
        "ifstream_get": "std::ifstream::get() per byte",
    },
    "d": {
        "null": "the file read into memory before timing, consumed from there (no I/O)",
        "file_rawread": "std.stdio.File.rawRead into an own 64 KiB buffer, then slicing",
        "by_chunk": "File.byChunk(64 KiB), each chunk's bytes",
        "fread": "core.stdc.stdio.fread into an own 64 KiB buffer",
        "dlsym_fread": 'fread found with dlopen("libc.so.6") and dlsym, own 64 KiB buffer',
        "mmfile": "std.mmfile.MmFile, a slice of the mapping",
        "range": "File.byChunk(64 KiB).joiner: a range of bytes (front, popFront)",
        "fread_outparam": "fread's own 64 KiB buffer behind bool next(out ubyte b): false at "
        "the end, the byte in an out parameter (seed D-3)",
        "fread_eof_minus1": "fread's own 64 KiB buffer behind int next(): the byte, or -1 at "
        "the end, as Java's read() (seed D-4)",
    },
    "java": {
        "null": "the file read into memory before timing, consumed from there (no I/O)",
        "buffered_stream": "BufferedInputStream.read() (8 KiB buffer)",
        "own_buffer": "FileInputStream.read(byte[]) into an own 64 KiB array",
        "file_channel": "FileChannel.read into a 64 KiB heap ByteBuffer, get()",
        "mapped": "a MappedByteBuffer, get()",
        "memory_segment": "a mapped MemorySegment (JDK 17's jdk.incubator.foreign)",
        "nio_underflow": "FileChannel.read into a 64 KiB heap ByteBuffer, get() with no "
        "hasRemaining(): its BufferUnderflowException refills it, or ends the file (seed java-3)",
        "mapped_underflow": "a MappedByteBuffer, get() with no hasRemaining() until its "
        "BufferUnderflowException ends the pass (seed java-3 as its code did it)",
    },
    "rust": {
        "null": "the file read into memory before timing, consumed from there (no I/O)",
        "bufreader_bytes": "BufReader::bytes() (8 KiB buffer)",
        "own_buffer": "File::read into an own 64 KiB buffer",
        "memmap2": "a memmap2::Mmap of the file",
    },
    "go": {
        "null": "the file read into memory before timing, consumed from there (no I/O)",
        "bufio": "bufio.Reader.ReadByte (4 KiB buffer)",
        "own_buffer": "os.File.Read into an own 64 KiB buffer",
        "mmap": "syscall.Mmap of the whole file",
    },
}


def describe(cell: Cell) -> str:
    return STRATEGIES.get(cell.lang, {}).get(cell.lib, "")
