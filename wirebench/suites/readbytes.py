"""Suite readbytes: reading a file that the application consumes one byte at a time (seed
003: C++ by g++ and clang, D by three compilers, Java), each language with its I/O
strategies, and one step further than the seed: decoding the bytes as the protobuf
varints they are, which is what the seed's D protobuf binding really did.

A strategy is the cell's library; the compiler is the driver's toolchain (cpp by g++ and
by clang++, d by gdc and by ldc2). A pass opens the file, reads every byte through the
strategy and closes it; a sample is 10 passes, as in the seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import readbytes_data as data
from . import MetricSpec, Param, ResultError, Suite

if TYPE_CHECKING:
    from ..cells import Cell, Task
    from ..protocol import Metric
    from ..report import CellResult, Table

PASSES = 10  # passes per sample, the seed's
WARMUP_PASSES = {"quick": 3, "standard": 10}

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
        from .queue import mount_of

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
        from .readbytes_report import tables

        return tables(results, context.get("all", results))

    def attachments(self, results: list[CellResult], processes, context) -> dict[str, bytes]:
        from .readbytes_report import charts

        return charts(results, context["all"])


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
