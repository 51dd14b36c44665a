"""Suite codec: one record and a batch of 1000, every format, every language: populate,
serialize, deserialize, access, and sizes (plain, zstd, lz4).

Everything particular to codec lives here: the cases and the four variant parameters
(buffer, strings, validation, and Cap'n Proto's packing), which format each library
writes, the iterations per profile, the checks of a result (fold digests against
codec_records, the encoding the driver left in --out-dir decoded by Python where it can,
a packed one unpacked), the compressed sizes, and the report's tables (per language in
the seed's layout, and per format across languages).
"""

from __future__ import annotations

import dataclasses
import json
import time
import zlib
from functools import cache
from pathlib import Path

import lz4.block
import zstandard

from .. import charts as ch
from .. import codec_records, model, stats
from ..cells import Task
from ..model import CellResult, Table, fmt_bytes, fmt_summary
from ..protocol import Metric, MetricSpec, ResultError
from ..suite import Param, Suite
from . import limit

OPS = ("populate", "serialize", "deserialize", "access")
# The harness's timings of zstd and lz4 on each encoding (compression_times).
COMPRESSION = ("zstd_compress", "zstd_decompress", "lz4_compress", "lz4_decompress")

# The formats in reading order: the floor, text, then binary formats. A library's format
# is its driver's to say (`list` names it: docs/protocol.md, suite codec); a format not
# here reads after these.
FORMATS = (
    "null",
    "json",
    "bson",
    "msgpack",
    "cbor",
    "protobuf",
    "thrift",
    "avro",
    "capnp",
    "flatbuffers",
    "sbe",
    "bincode",
    "bitcode",
    "postcard",
    "rkyv",
    "kryo",
)
# The libraries of runs stored before drivers named each library's format, by format (the
# report reads those runs with it). Frozen: a library added since has its driver's word.
FORMATS_BEFORE_LISTING: dict[str, tuple[str, ...]] = {
    "null": ("null",),
    "json": (
        "rapidjson",
        "simdjson",
        "nlohmann-json",
        "serde_json",
        "simd-json",
        "sonic-rs",
        "encoding-json",
        "go-json",
        "sonic",
        "jackson",
        "dsl-json",
    ),
    "msgpack": ("msgpack-cxx", "rmp-serde", "msgpack", "msgp", "msgpack-java"),
    "protobuf": ("protobuf", "prost", "vtprotobuf"),
    "capnp": ("capnp",),
    "flatbuffers": ("flatbuffers",),
    "bincode": ("bincode",),
    "bitcode": ("bitcode",),
    "postcard": ("postcard",),
    "rkyv": ("rkyv",),
    "kryo": ("kryo",),
}
# Each library's format as the drivers of this process listed it (Codec.listed), over the
# frozen table: what the checks and the report read.
LIB_FORMAT = {lib: fmt for fmt, libs in FORMATS_BEFORE_LISTING.items() for lib in libs}


def rank(fmt: str) -> tuple[int, str]:
    """A format's place in reading order."""
    return (FORMATS.index(fmt) if fmt in FORMATS else len(FORMATS), fmt)


def format_rank(lib: str) -> tuple:
    """A library's place in reading order: its format's, then within the format the
    frozen table's order, libraries added since after those by name."""
    fmt = LIB_FORMAT.get(lib, "")
    before = FORMATS_BEFORE_LISTING.get(fmt, ())
    return (*rank(fmt), before.index(lib) if lib in before else len(before), lib)


ZERO_COPY = frozenset({"null", "capnp", "flatbuffers", "sbe", "rkyv"})  # formats with `access`

# Iterations per sample: one iteration is the whole case (one record, or 1000). A sample
# of the slowest library (nlohmann-json, about 20 µs a record) takes 0.1 s in quick.
# The size axis (codec_records.SIZES) keeps a sample near the same number of records.
ITERS = {
    "quick": {
        "log": 5000,
        **{case: max(1, 5000 // n) for case, n in codec_records.SIZES.items()},
    },
    "standard": {
        "log": 50000,
        **{case: max(1, 50000 // n) for case, n in codec_records.SIZES.items()},
    },
}

# Which parameter governs which operations (docs/protocol.md, suite codec): a table puts
# an operation's numbers side by side only within equal values of these.
GOVERNS = {
    "populate": ("buffer",),
    "serialize": ("buffer", "packing"),
    "deserialize": ("strings", "validation", "packing"),
    "access": ("validation", "packing"),
}

# Every codec cell has a packing; its first value is implied and left out of the cell's
# parameters (its key), so that every cell from before the parameter existed keeps its key
# and compares across runs. Only a packed cell names it; the driver is always told.
PACKING = "packing"
UNPACKED = "unpacked"
PACKED = "packed"  # Cap'n Proto's packing
COMPACT = "compact"  # Thrift's compact protocol (unpacked: its binary protocol)

READING = (
    "codec: times are per iteration (one record, or the batch of 1000); median of all "
    "samples of all processes with its 95% interval. serialize and deserialize are also "
    "given as MB/s of the encoding. Each cell names its variant: `buffer` (output memory "
    "reused or fresh: populate, serialize), `strings` (owned or borrowed: deserialize), "
    "`validation` (validated, lazy or unchecked: deserialize, access), and for Cap'n Proto "
    "`packing` (a packed cell writes and reads the packed encoding: serialize, deserialize, "
    "access; its size is the packed size); a library's first "
    "cell measures every operation, its other cells only what their parameter governs. "
    "Every deserialize and access folds every field into a checksum the harness verifies. "
    "zstd (level 3, one frame) and lz4 (one block) sizes are computed by the harness from "
    "the driver's bytes. "
    f"The memcpy row is the limit: memcpy ({limit.LIMIT_BLOCK} blocks) moving the same "
    "bytes. Per-format tables give each cell's ratio to the fastest cell of the same "
    "variant, paired by round."
)


@cache
def _records(case: str) -> list[dict]:
    return codec_records.records(case)


@cache
def _fold(case: str) -> int:
    return codec_records.fold(_records(case))


class Codec(Suite):
    def listed(self, driver, entry):
        """Learns the library's format from its driver's listing; two drivers that name
        one library's format differently are refused."""
        fmt, lib = entry.get("format"), entry["lib"]
        if not isinstance(fmt, str) or not fmt:
            raise ResultError(f"{driver} lists codec library {lib!r} without its format")
        known = LIB_FORMAT.setdefault(lib, fmt)
        if known != fmt:
            raise ResultError(f"{driver} lists {lib!r} as {fmt}, another driver as {known}")

    def lib_rank(self, lib: str) -> tuple[int, str]:
        return format_rank(lib)

    def provenance(self) -> dict:
        """The formats the run's drivers named, for its report."""
        return {"formats": dict(sorted(LIB_FORMAT.items()))}

    def recall(self, section: dict) -> None:
        LIB_FORMAT.update(section.get("formats") or {})

    def expand(self, driver, entry, ctx):
        """The listed cell, without its packing when that is the implied `unpacked`."""
        if ctx.pairs:
            return []
        params = {k: v for k, v in entry["params"].items() if self.implied.get(k) != v}
        return [(params, None)]

    def driver_params(self, params: dict[str, str]) -> dict[str, str]:
        """What the driver is told: the implied packing too (every codec driver takes it)."""
        return {**self.implied, **super().driver_params(params)}

    def check_result(self, task: Task, r: dict, metrics: dict[str, Metric]) -> None:
        lib, case = task.cell.lib, task.cell.case
        fmt = LIB_FORMAT.get(lib)
        if fmt is None:
            raise ResultError(f"library {lib!r} writes no format the codec suite knows")
        ops = [op for op in OPS if op in metrics]
        if not ops:
            raise ResultError("the result measures no operation (populate, serialize, ...)")
        if "access" in ops and fmt not in ZERO_COPY:
            raise ResultError(f"{lib} reports access, but {fmt} is no zero-copy format")
        for op in ops:
            if any(v < 1 for v in metrics[op].samples):
                raise ResultError(f"malformed result: a {op} sample is below 1 ns")
        size = metrics["size"].value
        if size != int(size) or size < 1:
            raise ResultError(f"malformed result: size {size!r} is not a positive integer")
        checks = r.get("check")
        if not isinstance(checks, dict):
            raise ResultError(
                "malformed result: 'check' must be an object of digests per operation"
            )
        want = {
            "serialize": task.iters * int(size),
            "deserialize": codec_records.signed64(task.iters * _fold(case)),
            "access": codec_records.signed64(task.iters * _fold(case)),
        }
        for op in ops:
            if op == "populate":
                continue
            got = checks.get(op)
            if not isinstance(got, list) or len(got) != task.samples:
                raise ResultError(f"malformed result: check.{op} must list {task.samples} digests")
            if any(v != want[op] for v in got):
                raise ResultError(
                    f"wrong answers: {op} digest {got[0]!r}, expected {want[op]} "
                    + ("(iters x size)" if op == "serialize" else "(iters x the case's fold)")
                )

    def inspect(self, task: Task, result: dict, fixtures: dict[str, str]) -> dict[str, Metric]:
        """The encoding the driver left in --out-dir: its size must be the reported one;
        Python decodes it where it can (every format of codec_records.ENCODERS, Thrift in the
        protocol of its packing) and compares every record;
        zstd and lz4 sizes from one compressor for every language."""

        c = task.cell
        path = Path(fixtures["out_dir"]) / f"{c.case}.{c.lib}"
        try:
            data = path.read_bytes()
        except OSError:
            raise ResultError(f"the driver left no encoding in --out-dir ({path.name})") from None
        size = result["metrics"]["size"]["value"]
        if len(data) != size:
            raise ResultError(f"{path.name} has {len(data)} bytes, but the result says {size}")
        fmt = LIB_FORMAT[c.lib]
        packing = c.param.get(PACKING, UNPACKED)
        if fmt in codec_records.ENCODERS:
            try:
                if fmt == "thrift":
                    protocol = "compact" if packing == COMPACT else "binary"
                    decoded = codec_records.from_thrift(c.case, data, protocol)
                else:
                    decoded = codec_records.decode(fmt, c.case, data)
            except Exception as e:  # every decoder raises its own types on garbage
                raise ResultError(f"{path.name} is not valid {fmt}: {e}") from None
            if decoded != _records(c.case):
                raise ResultError(f"{path.name} decodes to other values than the workload's")
        if packing == PACKED:
            try:
                capnp_framing(capnp_unpack(data))
            except ValueError as e:
                raise ResultError(f"{path.name} is not a packed Cap'n Proto message: {e}") from None
        return {
            "size_zstd": Metric("size_zstd", "B", "scalar", value=len(zstd(data))),
            "size_lz4": Metric("size_lz4", "B", "scalar", value=len(lz4_block(data))),
            "size_zlib": Metric("size_zlib", "B", "scalar", value=len(zlib.compress(data))),
            **compression_times(data, task.iters),
        }

    def headline(self, cell, default):
        """Each library's default cell (its first: every operation it has, its usual
        variant) for the seed's record, `log`. Left out: the batch (`logs`) and the
        variants (buffer, strings, validation)."""
        return default and cell.case == "log"

    def judge_cell(self, processes: list[dict]) -> tuple[str, str | None]:
        status, error = super().judge_cell(processes)
        sizes = {_size(p) for p in processes}
        if status == "ok" and len(sizes) > 1:
            return "error", f"processes wrote encodings of different sizes: {sorted(sizes)}"
        return status, error

    def attachments(self, results: list[CellResult], processes, context: dict) -> dict[str, bytes]:
        return charts(results)

    def reading_order(self, results: list[CellResult]) -> list[CellResult]:
        """The run's order (cells.sort_key), but a packed cell after its library's others:
        the implied `unpacked` is no value of its cells to sort by."""
        return sorted(
            results,
            key=lambda r: (
                self.lib_rank(r.cell.lib),
                r.cell.lang,
                r.cell.toolchain or "",
                PACKING in r.cell.param,
            ),
        )

    def tables(self, results: list[CellResult], context: dict) -> list[Table]:
        self.recall(((context.get("provenance") or {}).get("suites") or {}).get("codec") or {})
        bandwidth = limit.bandwidth(context.get("all", results)).get(limit.LIMIT_BLOCK)
        results = self.reading_order(results)
        tables = []
        langs = sorted({(r.cell.lang, r.cell.toolchain or "") for r in results})
        # The size axis's other batches are read in its own table and charts.
        for case in codec_records.CASES:
            for lang, toolchain in langs:
                mine = [
                    r
                    for r in results
                    if r.cell.case == case
                    and (r.cell.lang, r.cell.toolchain or "") == (lang, toolchain)
                ]
                if mine:
                    tables.append(language_table(case, mine, bandwidth))
            for fmt in sorted({LIB_FORMAT.get(r.cell.lib) for r in results} - {None}, key=rank):
                mine = [
                    r for r in results if r.cell.case == case and LIB_FORMAT.get(r.cell.lib) == fmt
                ]
                if len({r.cell.lang for r in mine}) > 1 or (fmt == "null" and mine):
                    tables.append(format_table(case, fmt, mine))
            mine = [r for r in results if r.cell.case == case]
            tables += [
                t for t in (compression_table(case, mine), which_library_table(case, mine)) if t
            ]
        return tables + [t for t in (size_table(results),) if t]


def charts(results: list[CellResult]) -> dict[str, bytes]:
    """Per case: the throughput of every implementation in each operation (MB/s of the
    encoding: its size over the time, whiskers from the time's 95% interval), one panel
    per operation, and the encoding's size per library; then the same throughput chart
    for each format that two languages or more implement. Bars are coloured by language."""

    files = {}
    for case in sorted({r.cell.case for r in results}):
        mine = sorted(
            (r for r in results if r.ok and r.cell.case == case and "size" in r.metrics),
            key=lambda r: (r.cell.lib, r.cell.lang, PACKING in r.cell.param, r.cell.params),
        )
        if not mine:
            continue
        files[f"codec-{case}-throughput.svg"] = throughput_chart(
            mine, f"codec / {case}: throughput per operation (whiskers: 95% interval)"
        )
        sizes: dict[str, float] = {}
        for r in mine:
            sizes.setdefault(r.cell.lib, r.summary("size").median)
        fig, ((ax,),) = ch.figure(7, 0.8 + 0.22 * len(sizes))
        libs = sorted(sizes, key=sizes.get)
        ax.barh(range(len(libs)), [sizes[lib] for lib in libs], color="#555555")
        ax.set_yticks(range(len(libs)), libs, fontsize=7)
        ax.set_xlabel("bytes of the encoding")
        ax.set_title(f"codec / {case}: size per library")
        ax.grid(True, axis="x", alpha=0.3)
        files[f"codec-{case}-size.svg"] = ch.svg(fig)
        for fmt in sorted({LIB_FORMAT.get(r.cell.lib) for r in mine} - {None, "null"}, key=rank):
            same = [r for r in mine if LIB_FORMAT.get(r.cell.lib) == fmt]
            if len({r.cell.lang for r in same}) > 1:
                files[f"codec-{case}-{fmt}.svg"] = throughput_chart(
                    same, f"codec / {case}: {fmt} across languages (whiskers: 95% interval)"
                )
    files.update(size_charts(results))
    return files


def size_lines(results: list[CellResult]) -> dict[tuple[str, str], dict[int, CellResult]]:
    """The size axis: per implementation and format, its cells of the batch cases by
    records. A library's line follows the variant of its cell with the most operations
    in the `logs` case (its first, usual cell)."""
    batches = [r for r in results if r.ok and r.cell.case in codec_records.SIZES]
    mine: dict[tuple[str, str], list[CellResult]] = {}
    for r in batches:
        mine.setdefault((r.cell.impl, LIB_FORMAT.get(r.cell.lib, "")), []).append(r)
    lines = {}
    for key, cells in mine.items():
        usual = max(cells, key=lambda r: (sum(o in r.metrics for o in OPS), r.cell.case == "logs"))
        by_n = {
            codec_records.SIZES[r.cell.case]: r for r in cells if r.cell.param == usual.cell.param
        }
        if len(by_n) > 1:
            lines[key] = by_n
    return lines


SIZE_OPS = ("serialize", "deserialize")


def size_table(results: list[CellResult]) -> Table | None:
    """The size axis in numbers: each implementation's time per record in serialize and
    deserialize at each batch size, with its 95% interval."""
    lines = size_lines(results)
    if not lines:
        return None
    sizes = sorted(codec_records.SIZES.values())
    rows = []
    for (impl, fmt), by_n in sorted(lines.items(), key=lambda kv: (rank(kv[0][1]), kv[0][0])):
        row = [impl, fmt]
        for op in SIZE_OPS:
            for n in sizes:
                r = by_n.get(n)
                s = r.metrics[op].summary if r and op in r.metrics else None
                if s is None:
                    row.append("")
                    continue
                scaled = dataclasses.replace(s, median=s.median / n, low=s.low / n, high=s.high / n)
                row.append(fmt_summary(scaled, "ns"))
        rows.append(row)
    return Table(
        "codec: the size axis, time per record against the batch's records (median [95% interval])",
        ["impl", "format", *(f"{op[:3]} {n:,}" for op in SIZE_OPS for n in sizes)],
        rows,
    )


def size_charts(results: list[CellResult]) -> dict[str, bytes]:
    """One chart per format: each implementation's time per record in serialize and
    deserialize against the batch's records (log-log), whiskers from the 95% interval;
    colour by language, a line style per library of one language."""
    lines = size_lines(results)
    files = {}
    for fmt in sorted({f for _, f in lines} - {"", "null"}, key=rank):
        mine = sorted((impl, by_n) for (impl, f), by_n in lines.items() if f == fmt)
        fig, axes = ch.figure(11, 4.2, ncols=2)
        for ax, op in zip(axes[0], SIZE_OPS, strict=True):
            styles: dict[str, int] = {}
            for impl, by_n in mine:
                pts = sorted((n, r.metrics[op].summary) for n, r in by_n.items() if op in r.metrics)
                if not pts:
                    continue
                xs = [n for n, _ in pts]
                ys = [s.median / n for n, s in pts]
                err = ch.whiskers(ys, [s.low / n for n, s in pts], [s.high / n for n, s in pts])
                lang = impl.split("/")[0].split("@")[0].split("+")[0]
                k = styles[lang] = styles.get(lang, -1) + 1
                ax.errorbar(
                    xs,
                    ys,
                    yerr=err,
                    marker="osd^v"[k % 5],
                    ms=3,
                    capsize=2,
                    lw=1,
                    ls=("-", "--", ":", "-.")[k % 4],
                    color=ch.colour(lang),
                    label=impl,
                )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(op, fontsize=9)
            ax.set_xlabel("records in the batch (log)", fontsize=8)
            ax.set_ylabel("ns per record (log)", fontsize=8)
            ax.grid(True, which="both", alpha=0.3)
        axes[0][0].legend(fontsize=6)
        fig.suptitle(f"codec: {fmt}, time per record against the batch's size (whiskers: 95%)")
        files[f"codec-size-{fmt}.svg"] = ch.svg(fig)
    return files


def throughput_chart(mine: list[CellResult], title: str) -> bytes:
    """One panel per operation: each cell's MB/s of the encoding, whiskers from the
    time's 95% interval, coloured by language."""
    labels = [
        f"{r.cell.impl} {' '.join(v for v in [*_variant(r), r.cell.param.get(PACKING)] if v)}"
        for r in mine
    ]
    ops = [op for op in OPS if any(op in r.metrics for r in mine)]
    fig, axes = ch.figure(3.2 * len(ops) + 3, 1.0 + 0.2 * len(mine), ncols=len(ops))
    for ax, op in zip(axes[0], ops, strict=True):
        rate, low, high = [], [], []
        for r in mine:
            m, size = r.metrics.get(op), r.summary("size").median
            s = m.summary if m else None
            rate.append(size / s.median * 1e3 if s else 0)
            low.append(size / s.high * 1e3 if s else rate[-1])  # a rate: the time's high
            high.append(size / s.low * 1e3 if s else rate[-1])
        ax.barh(
            range(len(mine)),
            rate,
            xerr=ch.whiskers(rate, low, high),
            color=[ch.colour(r.cell.lang) for r in mine],
            error_kw={"elinewidth": 0.6, "capsize": 1.5},
        )
        ax.set_xscale("log")
        ax.set_title(op, fontsize=9)
        ax.set_xlabel("MB/s (log)", fontsize=8)
        ax.set_yticks(range(len(mine)), labels if op == ops[0] else [""] * len(mine))
        ax.tick_params(axis="y", labelsize=6)
        ax.invert_yaxis()
        ax.grid(True, axis="x", which="both", alpha=0.3)
    fig.suptitle(title)
    return ch.svg(fig)


def _size(process) -> int | None:
    try:
        return json.loads(process["result"])["client"]["metrics"]["size"]["value"]
    except (TypeError, KeyError, ValueError):
        return None


def capnp_unpack(data: bytes) -> bytes:
    """Cap'n Proto's packing undone (capnproto.org/encoding.html#packing): per word a tag
    byte whose bits say which of its 8 bytes follow; tag 0 is followed by a count of further
    zero words, tag 0xff by a count of further words copied as they are."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        tag = data[i]
        i += 1
        nonzero = tag.bit_count()
        if i + nonzero > n:
            raise ValueError(f"truncated in the word of the tag at byte {i - 1}")
        if tag == 0xFF:
            out += data[i : i + 8]
            i += 8
        else:
            word = bytearray(8)
            for bit in range(8):
                if tag >> bit & 1:
                    word[bit] = data[i]
                    i += 1
            out += word
        if tag in (0, 0xFF):
            if i >= n:
                raise ValueError(f"truncated: no count after the tag at byte {i - 1 - nonzero}")
            count = data[i]
            i += 1
            if tag == 0:
                out += bytes(8 * count)
            else:
                if i + 8 * count > n:
                    raise ValueError(f"truncated in the {count} words copied from byte {i}")
                out += data[i : i + 8 * count]
                i += 8 * count
    return bytes(out)


def capnp_framing(data: bytes) -> None:
    """Raises ValueError unless `data` is exactly one message in the stream framing: the
    segment count less one, each segment's size in words, padding to a word, segments."""
    if len(data) < 8:
        raise ValueError(f"{len(data)} bytes, fewer than a segment table")
    count = int.from_bytes(data[:4], "little") + 1
    table = 4 * (count + 1) + 4 * (count % 2 == 0)
    if table > len(data):
        raise ValueError(f"a table of {count} segments in {len(data)} bytes")
    sizes = [int.from_bytes(data[4 + 4 * k : 8 + 4 * k], "little") for k in range(count)]
    if table + 8 * sum(sizes) != len(data):
        raise ValueError(
            f"segments of {sum(sizes)} words after the table, but {len(data)} bytes unpacked"
        )


def zstd(data: bytes) -> bytes:
    """A zstd frame at level 3 (zstd's default), as `zstd -3` writes it."""
    return zstandard.ZstdCompressor(level=3).compress(data)


def lz4_block(data: bytes) -> bytes:
    """One raw LZ4 block (default acceleration), without the frame's 7 to 19 bytes of
    header: what a message protocol that compresses each message carries."""
    return lz4.block.compress(data, store_size=False)


# The harness times zstd and lz4 on each process's encoding: samples of as many calls as
# the driver's iterations, up to about this many bytes of input (at least one call).
COMPRESSION_SAMPLE_BYTES = 1 << 20
COMPRESSION_SAMPLES = 5


def compression_times(data: bytes, iters: int) -> dict[str, Metric]:
    """zstd (level 3, one frame) and lz4 (one block) compress and decompress times of the
    encoding, in ns per call, by the harness: the same C libraries (through Python's
    bindings, one reused context each) for every language, so that a format's cost
    follows its bytes. Each decompression is checked against the encoding first."""
    zc, zd = zstandard.ZstdCompressor(level=3), zstandard.ZstdDecompressor()
    frame, block = zc.compress(data), lz4_block(data)
    ops = {
        "zstd_compress": lambda: zc.compress(data),
        "zstd_decompress": lambda: zd.decompress(frame),
        "lz4_compress": lambda: lz4_block(data),
        "lz4_decompress": lambda: lz4.block.decompress(block, uncompressed_size=len(data)),
    }
    for name in ("zstd_decompress", "lz4_decompress"):
        if ops[name]() != data:
            raise ResultError(f"{name} did not give the encoding back")
    iters = max(1, min(iters, COMPRESSION_SAMPLE_BYTES // len(data)))
    metrics = {}
    for name, call in ops.items():
        samples = []
        for _ in range(COMPRESSION_SAMPLES):
            start = time.perf_counter_ns()
            for _ in range(iters):
                call()
            samples.append(max(1, time.perf_counter_ns() - start))
        metrics[name] = Metric(name, "ns", "samples", iters=iters, samples=tuple(samples))
    return metrics


# -- the report --------------------------------------------------------------------------


def _variant(r: CellResult) -> list[str]:
    p = r.cell.param
    return [p.get("buffer", ""), p.get("strings", ""), p.get("validation", "")]


def _packing(results: list[CellResult]) -> bool:
    """Whether a table has a packing column: only beside a packed cell, so that the
    tables of runs without one stay as they were."""
    return any(PACKING in r.cell.param for r in results)


def _packing_of(r: CellResult) -> list[str]:
    """The packing column's value: every Cap'n Proto and Thrift cell's, none for other
    formats."""
    if LIB_FORMAT.get(r.cell.lib) not in ("capnp", "thrift"):
        return [""]
    return [r.cell.param.get(PACKING, UNPACKED)]


def _time(r: CellResult, op: str) -> str:

    m = r.metrics.get(op)
    if m is None:
        return ""
    s = m.summary
    return fmt_summary(s, "ns") + (" !" if s.noisy else "")


def _rate(r: CellResult, op: str) -> str:
    """MB/s of the encoding, with the interval of the time turned into a rate."""
    m = r.metrics.get(op)
    if m is None:
        return ""
    size = r.metrics["size"].summary.median
    s = m.summary
    rate = stats.fmt_interval(size / s.high * 1e3, size / s.low * 1e3, lambda v: f"{v:.0f}")
    return f"{size / s.median * 1e3:.0f} [{rate}]" + (" !" if s.noisy else "")


def _scalar(r: CellResult, name: str) -> float | None:
    m = r.metrics.get(name)
    return m.summary.median if m is not None else None


def _allocs(r: CellResult) -> str:

    parts = []
    for op in OPS:
        n, b = _scalar(r, f"{op}_allocs"), _scalar(r, f"{op}_alloc_bytes")
        if n is None and b is None:
            continue
        count = "" if n is None else (f"{n:,.0f} " if n >= 100 else f"{n:.3g} ")
        parts.append(f"{op[0]} {count}({fmt_bytes(b)})" if b is not None else f"{op[0]} {count}")
    return "; ".join(parts)


def language_table(case: str, results: list[CellResult], bandwidth: float | None) -> Table:
    """The seed's layout for one language: population ns, serialization and
    deserialization MB/s, then access, sizes, allocations and the peak resident memory
    the driver reports (the median of its processes'); the memcpy limit first."""

    packing = _packing(results)
    rss = any("peak_rss" in r.metrics for r in results)  # not in runs stored before it

    def variant(r: CellResult) -> list[str]:
        return _variant(r) + (_packing_of(r) if packing else [])

    rows = []
    if bandwidth:
        mbps = f"{bandwidth * 1e3:.0f}"
        blank = [""] * (3 + packing)
        rows.append(["memcpy (limit)", *blank, "", mbps, mbps, *[""] * (5 + rss)])
    for r in results:
        if not r.ok:
            rows.append([r.cell.lib, *variant(r), r.status.upper(), *[""] * (7 + rss)])
            continue
        rows.append(
            [
                r.cell.lib,
                *variant(r),
                _time(r, "populate"),
                _rate(r, "serialize"),
                _rate(r, "deserialize"),
                _time(r, "access"),
                fmt_bytes(_scalar(r, "size")),
                fmt_bytes(_scalar(r, "size_zstd")),
                fmt_bytes(_scalar(r, "size_lz4")),
                _allocs(r),
                *([fmt_bytes(_scalar(r, "peak_rss"))] if rss else []),
            ]
        )
    impl = results[0].cell.impl.split("/")[0]
    return Table(
        f"codec / {case}: {impl}",
        [
            "lib",
            "buffer",
            "strings",
            "validation",
            *(["packing"] if packing else []),
            "populate",
            "serialize MB/s",
            "deserialize MB/s",
            "access",
            "size",
            "zstd",
            "lz4",
            "allocs per op: count (bytes)",
            *(["peak RSS"] if rss else []),
        ],
        rows,
    )


def format_table(case: str, fmt: str, results: list[CellResult]) -> Table:
    """One format across languages: per operation, each cell's time and its ratio to the
    fastest cell with the same values of the parameters that govern the operation."""

    fastest: dict[tuple, CellResult] = {}
    for op in OPS:
        for r in results:
            if not r.ok or op not in r.metrics:
                continue
            key = (op, *(r.cell.param.get(p) for p in GOVERNS[op]))
            best = fastest.get(key)
            if best is None or r.metrics[op].summary.median < best.metrics[op].summary.median:
                fastest[key] = r
    packing = _packing(results)
    rows = []
    for r in results:
        row = [r.cell.impl, *_variant(r), *(_packing_of(r) if packing else [])]
        if not r.ok:
            rows.append(row + [r.status.upper(), "", "", ""])
            continue
        for op in OPS:
            m = r.metrics.get(op)
            if m is None:
                row.append("")
                continue
            best = fastest[(op, *(r.cell.param.get(p) for p in GOVERNS[op]))]
            q = model.ratio(m, best.metrics[op])
            row.append(f"{_time(r, op)} ({q.text(x='x')})")
        rows.append(row)
    return Table(
        f"codec / {case}: {fmt} across languages (time, and ratio to the fastest of the "
        "same variant)",
        ["impl", "buffer", "strings", "validation", *(["packing"] if packing else []), *OPS],
        rows,
    )


def compression_table(case: str, results: list[CellResult]) -> Table | None:
    """Each encoding's sizes after zlib, zstd and lz4, and the harness's zstd and lz4
    times on it as MB/s of the encoding: one row per implementation and packing (the
    other variants write the same bytes)."""
    rows, seen = [], set()
    packing = _packing(results)
    for r in results:
        key = (r.cell.impl, r.cell.param.get(PACKING, UNPACKED))
        if not r.ok or "zstd_compress" not in r.metrics or key in seen:
            continue
        seen.add(key)
        rows.append(
            [
                r.cell.impl,
                LIB_FORMAT.get(r.cell.lib, ""),
                *(_packing_of(r) if packing else []),
                fmt_bytes(_scalar(r, "size")),
                fmt_bytes(_scalar(r, "size_zlib")),
                fmt_bytes(_scalar(r, "size_zstd")),
                _rate(r, "zstd_compress"),
                _rate(r, "zstd_decompress"),
                fmt_bytes(_scalar(r, "size_lz4")),
                _rate(r, "lz4_compress"),
                _rate(r, "lz4_decompress"),
            ]
        )
    if not rows:
        return None
    return Table(
        f"codec / {case}: compression of each encoding (zlib -6, zstd -3, lz4; MB/s of the "
        "encoding, timed by the harness)",
        [
            "impl",
            "format",
            *(["packing"] if packing else []),
            "size",
            "zlib",
            "zstd",
            "zstd compress MB/s",
            "zstd decompress MB/s",
            "lz4",
            "lz4 compress MB/s",
            "lz4 decompress MB/s",
        ],
        rows,
    )


def _label(r: CellResult) -> str:
    """A library with its format and the variant a cell needs, where it differs from each
    parameter's first value: `rapidjson (json) buffer=fresh`."""
    firsts = {p.name: p.values[0] for p in SUITE.params}
    variant = " ".join(
        f"{k}={v}" for k, v in sorted(r.cell.param.items()) if k in firsts and v != firsts[k]
    )
    return f"{r.cell.lib} ({LIB_FORMAT.get(r.cell.lib, '?')})" + (f" {variant}" if variant else "")


def which_library_table(case: str, results: list[CellResult]) -> Table | None:
    """Per language and operation: the fastest library of the run (null excluded: it is
    the floor), and every other whose paired ratio to it has an interval reaching 1
    (no faster nor slower that the run can tell), each with the variant it needs.
    Generated from the data: what this run can say, nothing written by hand."""
    rows = []
    langs = sorted({(r.cell.lang, r.cell.toolchain or "") for r in results})
    for lang, toolchain in langs:
        for op in OPS:
            mine = [
                r
                for r in results
                if r.ok
                and op in r.metrics
                and r.cell.lib != "null"
                and (r.cell.lang, r.cell.toolchain or "") == (lang, toolchain)
            ]
            if not mine:
                continue
            best = min(mine, key=lambda r: r.metrics[op].summary.median)
            tied = []
            for r in mine:
                if r is best:
                    continue
                q = model.ratio(r.metrics[op], best.metrics[op])
                if not q.has_interval or q.low <= 1:
                    tied.append((q.value, f"{_label(r)} {q.text(x='x')}"))
            rows.append(
                [
                    best.cell.impl.split("/")[0],
                    op,
                    _label(best),
                    _time(best, op),
                    "; ".join(t for _, t in sorted(tied)) or "none",
                    str(len(mine)),
                ]
            )
    if not rows:
        return None
    return Table(
        f"codec / {case}: which library is fastest, per language and operation (null "
        "excluded; tied: the ratio's 95% interval reaches 1)",
        ["language", "operation", "fastest (variant)", "time", "tied with it", "cells"],
        rows,
    )


SUITE = Codec(
    name="codec",
    description="one record and a batch of 1000: populate, serialize, deserialize, access, size",
    cases={
        "log": "one HTTP log record (the 2014 cross-format comparison's)",
        **{
            case: f"the size axis: a batch of the first {n:,} records of the logs generator"
            for case, n in codec_records.SIZES.items()
        },
        "logs": "a batch of 1000 log records with varied values",
    },
    params=(
        Param(
            "buffer",
            ("reused", "fresh"),
            "output memory (buffer, builder) kept and reset, or allocated anew "
            "(populate, serialize)",
        ),
        Param("strings", ("owned", "borrowed"), "strings copied out, or pointing into the input"),
        Param(
            "validation",
            ("validated", "lazy", "unchecked"),
            "input checked before use, at each read, or not at all (deserialize, access)",
        ),
        Param(
            PACKING,
            (UNPACKED, PACKED, COMPACT),
            "the format's plain encoding, or its compact form: Cap'n Proto packed (runs of zero "
            "bytes coded away), Thrift's compact protocol in place of its binary one: "
            "serialize, deserialize, access; cells without it are unpacked",
        ),
    ),
    metrics=(
        *(MetricSpec(op, "samples", "ns", f"{op} time", required=False) for op in OPS),
        MetricSpec("size", "scalar", "B", "the encoding's size"),
        MetricSpec("peak_rss", "scalar", "B", "the process's peak resident memory", required=False),
        MetricSpec("size_zstd", "scalar", "B", "size after zstd -3", by_harness=True),
        MetricSpec("size_lz4", "scalar", "B", "size as one lz4 block", by_harness=True),
        MetricSpec("size_zlib", "scalar", "B", "size after zlib (level 6)", by_harness=True),
        *(
            MetricSpec(name, "samples", "ns", f"{name.replace('_', ' ')} time", by_harness=True)
            for name in COMPRESSION
        ),
        *(
            MetricSpec(f"{op}_allocs", "scalar", "allocs", f"allocations per {op}", required=False)
            for op in OPS
        ),
        *(
            MetricSpec(
                f"{op}_alloc_bytes", "scalar", "B", f"bytes allocated per {op}", required=False
            )
            for op in OPS
        ),
    ),
    reading=READING,
    compared=OPS,
    fixtures=("out_dir",),
    implied={PACKING: UNPACKED},
    iters=ITERS,
)
