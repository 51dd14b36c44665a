"""The codec suite: its Python reference (records, fold, encodings), its checks of a
driver's result and encoding, and its report, against the fake driver."""

import json
import struct

import pytest
from click.testing import CliRunner

from wirebench import cli, codec_records, registry, runner
from wirebench.cells import Cell, Task
from wirebench.protocol import ResultError
from wirebench.suites import codec

from .conftest import FAKE

IDENTITY = {FAKE: {"lang": "fake", "toolchain": "fakec"}}


# -- the reference -------------------------------------------------------------------------


def test_testdata_is_what_the_reference_writes(tmp_path):
    codec_records.write(tmp_path)
    for name in ("log.json", "logs.json", "checks.json"):
        assert (tmp_path / name).read_bytes() == (codec_records.TESTDATA / name).read_bytes(), name


def test_the_log_record_and_its_fold():
    (r,) = codec_records.records("log")
    assert r["http"]["userAgent"].endswith("Chrome/33.0.1750.146 Safari/537.36")
    assert r["country"] == 238 and r["rayId"] == "10c73629cce30078-LAX"
    ints = 25469139677502 + 123456 + 1 + 2 + 200 + 503 + 520 + 1 + 8000 + 2 + 238 + 3 + 123456
    strings = sum(codec_records.str_fold(s) for s in codec_records.strings(r))
    assert codec_records.fold([r]) == ints + strings == 25469139935656


def test_the_batch_stays_within_what_every_language_and_encoder_handles():
    recs = codec_records.records("logs")
    assert len(recs) == codec_records.BATCH
    assert codec_records.records("logs") == recs  # a fresh generator each time
    assert all(r["zoneId"] < 2**31 and r["bytesDlv"] < 2**48 for r in recs)
    assert len({r["bytesDlv"].bit_length() for r in recs}) > 30  # magnitudes vary
    for s in (s for r in recs for s in codec_records.strings(r)):
        assert s.isascii() and s.isprintable() and not set(s) & set('"\\<>&'), s
    assert "" in {r["http"]["userAgent"] for r in recs}


@pytest.mark.parametrize("case", codec_records.CASES)
@pytest.mark.parametrize("fmt", ["json", "msgpack", "null"])
def test_encodings_decode_to_the_records(case, fmt):
    data = {"json": codec_records.to_json, "msgpack": codec_records.to_msgpack}.get(
        fmt, codec_records.to_null
    )(case)
    assert codec_records.decode(fmt, case, data) == codec_records.records(case)


def test_the_null_format_layout_and_its_errors():
    data = codec_records.to_null("log")
    assert struct.unpack_from("<q", data)[0] == 25469139677502
    assert struct.unpack_from("<I", data, 34)[0] == len("text/html")  # first string
    assert (
        len(data)
        == json.loads((codec_records.TESTDATA / "checks.json").read_text())["log"]["size"]["null"]
    )
    with pytest.raises(ValueError, match="truncated at byte"):
        codec_records.decode("null", "log", data[:-1])
    with pytest.raises(ValueError, match="1 bytes after its last record"):
        codec_records.decode("null", "log", data + b"x")


# -- judging a result ----------------------------------------------------------------------


def task(case="log", lib="null", buffer="reused", iters=4, samples=3):
    params = {"buffer": buffer, "strings": "owned", "validation": "lazy"}
    if lib == "jackson":
        params["validation"] = "validated"
    cell = Cell.make("codec", case, "fake", lib, params)
    return Task(cell=cell, iters=iters, samples=samples, warmup=1, timeout=30, client=FAKE)


@pytest.mark.parametrize("case", codec_records.CASES)
@pytest.mark.parametrize("lib", ["null", "jackson"])
def test_an_honest_result_is_ok_and_gets_compressed_sizes(case, lib):
    outcome = runner.execute(task(case, lib), IDENTITY)
    assert outcome.ok, outcome.error
    m = outcome.metrics
    size = m["size"].value
    assert size == len(
        codec_records.to_null(case) if lib == "null" else codec_records.to_json(case)
    )
    assert m["size_zstd"].value == len(
        codec.zstd(codec_records.to_json(case) if lib == "jackson" else codec_records.to_null(case))
    )
    assert 0 < m["size_lz4"].value < size
    assert ("access" in m) == (lib == "null")
    assert m["populate_allocs"].value == 11


def test_a_fresh_buffer_cell_measures_populate_and_serialize_only():
    outcome = runner.execute(task(buffer="fresh"), IDENTITY)
    assert outcome.ok, outcome.error
    assert {"populate", "serialize"} <= outcome.metrics.keys()
    assert "deserialize" not in outcome.metrics


@pytest.mark.parametrize("op", ["serialize", "deserialize", "access"])
def test_a_wrong_digest_is_refused(monkeypatch, op):
    monkeypatch.setenv("FAKE_CODEC_LIE", op)
    outcome = runner.execute(task(), IDENTITY)
    assert not outcome.ok
    assert f"wrong answers: {op} digest" in outcome.error


def result(case="log", lib="null", **metrics):
    data = codec_records.to_null(case)
    fold = codec_records.signed64(4 * codec_records.fold(codec_records.records(case)))
    base = {
        "deserialize": {"unit": "ns", "iters": 4, "samples": [400] * 3},
        "size": {"unit": "B", "value": len(data)},
    }
    return {"check": {"deserialize": [fold] * 3}}, {**base, **metrics}


def judge(t, r, raw):
    from wirebench import protocol

    suite = registry.of(t.cell)
    full = {
        "protocol": 2,
        "lang": "fake",
        "toolchain": "fakec",
        "suite": "codec",
        "case": t.cell.case,
        "lib": t.cell.lib,
        "params": registry.of(t.cell).driver_params(t.cell.param),
        "warmup": 1,
        "verified": True,
        "metrics": raw,
        **r,
    }
    metrics = protocol.check_result(
        t,
        full,
        suite.metrics,
        suite.driver_params(t.cell.param),
        {"lang": "fake", "toolchain": "fakec"},
    )
    suite.check_result(t, full, metrics)


def test_result_checks_name_what_is_wrong():
    t = task()
    judge(t, *result())
    with pytest.raises(ResultError, match="metric 'size' is missing"):
        r, raw = result()
        del raw["size"]
        judge(t, r, raw)
    with pytest.raises(ResultError, match="metric 'size_zstd' is the harness's"):
        judge(t, *result(size_zstd={"unit": "B", "value": 3}))
    with pytest.raises(ResultError, match="measures no operation"):
        r, raw = result()
        del raw["deserialize"]
        judge(t, r, raw)
    with pytest.raises(ResultError, match="check.deserialize must list 3 digests"):
        r, raw = result()
        r["check"]["deserialize"] = [1]
        judge(t, r, raw)
    access = {"unit": "ns", "iters": 4, "samples": [9] * 3}
    with pytest.raises(ResultError, match="json is no zero-copy format"):
        judge(task(lib="jackson"), *result(access=access))


def test_the_encoding_left_in_out_dir_is_checked(tmp_path):
    t = task()
    inspect = registry.of(t.cell).inspect
    size = len(codec_records.to_null("log"))
    r = {"metrics": {"size": {"unit": "B", "value": size}}}
    with pytest.raises(ResultError, match="left no encoding"):
        inspect(t, r, {"out_dir": str(tmp_path)})
    path = tmp_path / "log.null"
    path.write_bytes(codec_records.to_null("log")[:-1])
    with pytest.raises(ResultError, match=f"has {size - 1} bytes, but the result says {size}"):
        inspect(t, r, {"out_dir": str(tmp_path)})
    data = bytearray(codec_records.to_null("log"))
    data[0] ^= 1  # the timestamp
    path.write_bytes(bytes(data))
    with pytest.raises(ResultError, match="decodes to other values"):
        inspect(t, r, {"out_dir": str(tmp_path)})
    data[34] = 0xFF  # the first string's length
    path.write_bytes(bytes(data))
    with pytest.raises(ResultError, match="is not valid null"):
        inspect(t, r, {"out_dir": str(tmp_path)})


def test_every_codec_cell_a_driver_lists_names_its_format_and_drivers_agree():
    from wirebench import drivers

    from .conftest import built_drivers

    formats: dict[str, set[str]] = {}
    if not built_drivers():
        pytest.skip("no driver is built")
    for name in built_drivers():
        for entry in drivers.list_cells(name):
            if entry["suite"] == "codec":
                assert entry.get("format"), (name, entry["lib"])
                formats.setdefault(entry["lib"], set()).add(entry["format"])
    assert {lib: fmts for lib, fmts in formats.items() if len(fmts) > 1} == {}
    # The frozen table of older runs agrees with what the drivers say now.
    old = {lib: fmt for fmt, libs in codec.FORMATS_BEFORE_LISTING.items() for lib in libs}
    assert {lib for lib, f in formats.items() if lib in old and {old[lib]} != f} == set()


def test_a_driver_that_names_one_library_two_formats_is_refused():
    suite = codec.SUITE
    entry = {"suite": "codec", "case": "log", "lib": "msgpack-cxx", "params": {}}
    with pytest.raises(ResultError, match="another driver as msgpack"):
        suite.listed("x", {**entry, "format": "json"})
    with pytest.raises(ResultError, match="without its format"):
        suite.listed("x", entry)


# -- the report ----------------------------------------------------------------------------


def test_a_codec_run_reports_per_language_and_per_format(two_fakes, tmp_path):
    db = str(tmp_path / "c.db")
    r = CliRunner().invoke(
        cli.main,
        ["run", "--suite", "codec", "--iters", "3", "--samples", "2", "--repeat", "2", "--db", db],
    )
    assert r.exit_code == 0, r.output
    assert "cells: 26 ok, 0 error" in r.output  # 3 cases, and the memcpy limits
    md = (tmp_path / "report-1.md").read_text()
    assert "## codec / log: fake" in md and "## codec / logs: fake2" in md
    assert "## codec / log: json across languages" in md
    assert "## codec / logs10:" not in md  # the size axis has its own table and charts
    assert "## codec: the size axis" in md and "| fake/jackson | json |" in md
    assert "## codec / logs: compression of each encoding" in md
    assert "## codec / log: which library is fastest" in md
    charts = {p.name for p in (tmp_path / "report-1").iterdir()}
    assert {"codec-size-json.svg", "codec-log-json.svg", "codec-logs-throughput.svg"} <= charts
    row = next(line for line in md.splitlines() if line.startswith("| jackson | reused"))
    # 593 bytes of JSON in 100.5 ns (the median of 100 and 101 per iteration): 5900 MB/s
    # Two processes: too few for a median's interval.
    assert "| 5900 [no CI] |" in row and "| 593 B |" in row and "p 11 (640 B)" in row
    assert "(1.00x [1.00-1.00])" in md  # two languages alike, process by process


def test_comparisons_cover_every_operation(two_fakes, tmp_path):
    db = str(tmp_path / "c.db")
    args = ["run", "--suite", "codec", "--case", "log", "--iters", "3", "--samples", "2"]
    assert CliRunner().invoke(cli.main, [*args, "--db", db]).exit_code == 0
    r = CliRunner().invoke(cli.main, ["report", "--db", db, "--compare", "fake:fake2"])
    assert r.exit_code == 0, r.output
    for op in codec.OPS:
        assert f"fake against fake2: codec {op} per iteration" in r.output
    r = CliRunner().invoke(cli.main, ["report", "--db", db, "--against", "fake2"])
    assert "Languages against fake2: fake2's codec access per iteration" in r.output


# -- packing: Cap'n Proto's variant, implied in the keys of every other cell ----------------


def capnp_pack(data: bytes) -> bytes:
    """A reference packer (capnproto.org/encoding.html#packing), for the tests: a tag per
    word; after tag 0 a count of further zero words, after tag 0xff a count of further
    words with at most one zero byte, copied as they are (as the C++ library packs)."""
    words = [data[i : i + 8] for i in range(0, len(data), 8)]
    out, i = bytearray(), 0
    while i < len(words):
        w = words[i]
        tag = sum(1 << b for b in range(8) if w[b])
        out.append(tag)
        out += bytes(b for b in w if b)
        i += 1
        if tag == 0:
            n = 0
            while i < len(words) and n < 255 and not any(words[i]):
                n, i = n + 1, i + 1
            out.append(n)
        elif tag == 0xFF:
            n = 0
            while i < len(words) and n < 255 and words[i].count(0) <= 1:
                n, i = n + 1, i + 1
            out.append(n)
            out += b"".join(words[i - n : i])
    return bytes(out)


GOLDEN_CAPNP = codec_records.TESTDATA.parent / "golden" / "cpp" / "logs.capnp"


def test_capnp_unpack_is_the_specs_and_the_framing_is_checked():
    # The specification's example, then runs of zero words and of literal words.
    assert codec.capnp_unpack(bytes.fromhex("5108030231 19aa01".replace(" ", ""))) == bytes.fromhex(
        "0800000003000200 19000000aa010000"
    )
    assert codec.capnp_unpack(bytes([0, 3])) == bytes(32)
    literal = bytes(range(1, 25))
    assert codec.capnp_unpack(bytes([0xFF]) + literal[:8] + bytes([2]) + literal[8:]) == literal
    message = GOLDEN_CAPNP.read_bytes()
    packed = capnp_pack(message)
    assert len(packed) < len(message) and codec.capnp_unpack(packed) == message
    codec.capnp_framing(message)
    with pytest.raises(ValueError, match="truncated"):
        codec.capnp_unpack(packed[:-1])
    with pytest.raises(ValueError, match="bytes unpacked"):
        codec.capnp_framing(message[:-8])
    with pytest.raises(ValueError, match="segments"):
        codec.capnp_framing(b"\xff\xff\x00\x00" + bytes(4))


def listed(packings=("unpacked", "packed")):
    def params(validation, packing):
        return {
            "buffer": "reused",
            "strings": "owned",
            "validation": validation,
            "packing": packing,
        }

    cells = [
        {
            "suite": "codec",
            "case": "logs",
            "lib": "capnp",
            "format": "capnp",
            "params": params("lazy", p),
        }
        for p in packings
    ]
    jackson = {
        "suite": "codec",
        "case": "logs",
        "lib": "jackson",
        "format": "json",
        "params": params("validated", "unpacked"),
    }
    return {"rust": [*cells, jackson]}


def test_unpacked_is_left_out_of_keys_but_the_driver_is_told():
    from wirebench import matrix

    parsed = {k: None for k in matrix.FILTER_NAMES}
    cells = matrix.expand(listed(), parsed, include_limits=False)
    assert [c.key for c in cells] == [
        "codec/logs/rust/jackson buffer=reused build=stock strings=owned validation=validated",
        "codec/logs/rust/capnp buffer=reused build=stock packing=packed strings=owned "
        "validation=lazy",
        "codec/logs/rust/capnp buffer=reused build=stock strings=owned validation=lazy",
    ]
    assert [registry.of(c).driver_params(c.param)["packing"] for c in cells] == [
        "unpacked",
        "packed",
        "unpacked",
    ]
    assert "build" not in registry.of(cells[0]).driver_params(cells[0].param)
    # The filter reads the driver's listing, where every cell has its packing.
    parsed["packing"] = matrix.parse_filter("packing", "packed")
    (packed,) = matrix.expand(listed(), parsed, include_limits=False)
    assert packed.param["packing"] == "packed"
    parsed["packing"] = matrix.parse_filter("packing", "unpacked")
    cells = matrix.expand(listed(), parsed, include_limits=False)
    assert [c.lib for c in cells] == ["jackson", "capnp"]
    assert all("packing" not in c.param for c in cells)


def test_the_packing_governs_serialize_deserialize_and_access():
    assert [op for op in codec.OPS if "packing" in codec.GOVERNS[op]] == [
        "serialize",
        "deserialize",
        "access",
    ]


def packed_task():
    params = {"buffer": "reused", "strings": "owned", "validation": "lazy", "packing": "packed"}
    cell = Cell.make("codec", "logs", "fake", "capnp", params)
    return Task(cell=cell, iters=4, samples=3, warmup=1, timeout=30, client=FAKE)


def test_a_packed_encoding_must_unpack_to_one_message(tmp_path):
    t = packed_task()
    packed = capnp_pack(GOLDEN_CAPNP.read_bytes())
    path = tmp_path / "logs.capnp"
    path.write_bytes(packed)
    r = {"metrics": {"size": {"unit": "B", "value": len(packed)}}}
    m = registry.of(t.cell).inspect(t, r, {"out_dir": str(tmp_path)})
    assert 0 < m["size_zstd"].value < len(packed)
    path.write_bytes(GOLDEN_CAPNP.read_bytes()[: len(packed)])  # unpacked bytes are not
    with pytest.raises(ResultError, match="logs.capnp is not a packed Cap'n Proto message"):
        registry.of(t.cell).inspect(t, r, {"out_dir": str(tmp_path)})
