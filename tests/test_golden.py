"""Golden messages: every built driver decodes every language's files in testdata/golden/.

Each language writes the first requests of each rpc case, and its server's responses, in
each wire format, and each codec case in each format it serializes (`DRIVER golden write
DIR`); every other language must read them and reach the same answers or records
(`DRIVER golden check DIR`). A library upgrade that changes what a driver writes shows up
in that driver's own tests, which compare against its files. The codec formats whose
bytes docs/workloads.md fixes must also be byte for byte the same in every language, and
Python's own decoders read them.
"""

import hashlib
import importlib.util
import json
import subprocess

import pytest

from wirebench import codec_records, drivers
from wirebench.suites import codec

from .conftest import REQUIRE_DRIVERS

GOLDEN = drivers.ROOT / "testdata" / "golden"
WRITERS = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
# Every driver of the rpc and codec suites (each language's primary one; cpp by clang++
# and d run readbytes only) when they are required (a missing one fails below), else the
# built ones.
READERS = [
    name for name, d in drivers.DRIVERS.items() if d.primary and (REQUIRE_DRIVERS or d.is_built())
]


# Codec formats every language must write byte for byte alike (docs/workloads.md, codec:
# encodings); capnp and flatbuffers layouts depend on each builder's allocation order.
BYTE_EQUAL = ("json", "msgpack", "protobuf", "cbor", "bson", "avro", "thrift", "sbe", "null")
PYTHON_ENCODERS = codec_records.ENCODERS


def codec_files(lang: str) -> list[str]:
    """A language's codec golden files: `<case>.<format>`."""
    return sorted(
        p.name
        for p in (GOLDEN / lang).iterdir()
        if p.suffix[1:] in codec.FORMATS and p.stem in codec_records.CASES
    )


def reader_formats(reader: str) -> set[str]:
    return {c["format"] for c in drivers.list_cells(reader) if c["suite"] == "codec"}


def test_every_language_has_golden_files_and_some_reader():
    assert set(WRITERS) >= {"cpp", "rust", "go", "java"}
    if not READERS:
        pytest.skip("no driver is built: `wirebench build`")


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("reader", READERS)
def test_every_language_reads_every_language(reader, writer):
    assert drivers.DRIVERS[reader].is_built(), f"the {reader} driver is not built"
    proc = subprocess.run(
        [str(drivers.DRIVERS[reader].path()), "golden", "check", str(GOLDEN / writer)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"{reader} reading {writer}'s files: {proc.stderr}"
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    checked = [r for r in lines if r.get("ok")]
    assert checked, f"{reader} checked none of {writer}'s files"
    assert all(r.get("ok") or r.get("skipped") for r in lines)
    done = {r["file"]: r for r in lines if "file" in r}
    known = reader_formats(reader)
    for name in codec_files(writer):
        if name.split(".")[1] in known:
            r = done.get(name)
            assert r and r.get("ok") and r.get("libs"), f"{reader} did not decode {name}: {r}"


@pytest.mark.parametrize("fmt", BYTE_EQUAL)
@pytest.mark.parametrize("case", codec_records.CASES)
def test_codec_formats_are_byte_for_byte_alike_in_every_language(case, fmt):
    files = {w: (GOLDEN / w / f"{case}.{fmt}") for w in WRITERS}
    written = {w: p.read_bytes() for w, p in files.items() if p.is_file()}
    if not written:
        pytest.skip(f"no language writes {fmt} yet")
    if fmt in PYTHON_ENCODERS:
        written["python"] = PYTHON_ENCODERS[fmt](case)
    first = next(iter(written.values()))
    differ = [w for w, data in written.items() if data != first]
    assert not differ, f"{case}.{fmt} differs between {sorted(written)}: {differ}"


@pytest.mark.parametrize("writer", WRITERS)
def test_python_reads_every_languages_codec_files(writer):
    for name in codec_files(writer):
        case, fmt = name.split(".")
        if fmt in PYTHON_ENCODERS:
            data = (GOLDEN / writer / name).read_bytes()
            assert codec_records.decode(fmt, case, data) == codec_records.records(case), name


def _golden_links():
    path = drivers.ROOT / "scripts" / "golden-links.py"
    spec = importlib.util.spec_from_file_location("golden_links", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_golden_file_is_kept_once():
    """A file equal to the C++ driver's is a link to it (scripts/golden-links.py): the
    checkout holds one copy of each, and every link reaches an equal file."""
    seen: dict[str, str] = {}
    for f in sorted(GOLDEN.glob("*/*")):
        if f.is_symlink():
            assert f.resolve() == (GOLDEN / "cpp" / f.name).resolve(), f
            continue
        digest = hashlib.sha256(f.read_bytes()).hexdigest()
        assert digest not in seen or seen[digest].split("/")[1] != f.name, (f, seen[digest])
        seen.setdefault(digest, f"{f.parent.name}/{f.name}")
    assert any(f.is_symlink() for f in GOLDEN.glob("*/*"))


def test_the_link_script_links_equal_files_and_leaves_the_others(tmp_path):
    golden = tmp_path / "golden"
    (golden / "cpp").mkdir(parents=True)
    (golden / "go").mkdir()
    (golden / "cpp" / "log.json").write_bytes(b"same")
    (golden / "cpp" / "log.capnp").write_bytes(b"cpp's")
    (golden / "go" / "log.json").write_bytes(b"same")
    (golden / "go" / "log.capnp").write_bytes(b"go's")
    (golden / "go" / "extra.bin").write_bytes(b"same")
    linked = _golden_links().link_duplicates(golden)
    assert linked == [golden / "go" / "log.json"]
    assert (golden / "go" / "log.json").is_symlink()
    assert (golden / "go" / "log.json").read_bytes() == b"same"
    assert not (golden / "go" / "log.capnp").is_symlink()
