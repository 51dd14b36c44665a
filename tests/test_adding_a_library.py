"""docs/adding-a-library.md, followed in a copy of the tree: a codec library of an existing
format is one new file and one registration line per language (plus its dependency, none
here). The throwaway library `probe` is a JSON library the driver already links, under a
new name. The copy's driver is built; its `list` offers probe's default cell with its
format; the copy's harness runs that cell and its checks accept it; and the fuzz target
`codec_probe` exists, because every fuzz runner takes its targets from the registry.

Each language costs a build of its driver in the copy (Go and Java: about a minute with
the caches warm; Rust and C++ rebuild the driver's own code: several minutes), so the test
runs with the other drivers' tests (skipped unless the driver is built or required).
"""

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest

from wirebench import drivers, paths
from wirebench.cells import DEFAULT_BUILD

from .conftest import need_driver


@dataclass(frozen=True)
class Addition:
    file: str  # the new file, relative to the driver's folder
    code: str
    registry: str  # the registry file
    anchor: str  # a registry line the new line goes before
    line: str
    declared: tuple[str, str] | None = None  # a declaration to extend: (old, new)


ADDITIONS = {
    "cpp": Addition(
        "src/codec/probe.cpp",
        '#include "codec.h"\n\n'
        "// A throwaway library (tests/test_adding_a_library.py): RapidJSON by another name.\n"
        "namespace wb::codec {\n"
        "CodecFactory makeRapidjson;  // src/codec/rapidjson.cpp\n"
        "std::unique_ptr<CodecCell> makeProbe(const Case& c, const Variant& v) {\n"
        "  return makeRapidjson(c, v);\n"
        "}\n"
        "}  // namespace wb::codec\n",
        "src/codec/registry.cpp",
        '      {"protobuf", "protobuf",',
        '      {"probe", "json", {P, S, D}, {"reused"}, {"owned"}, {"validated"},'
        " &makeProbe, {}},\n",
        ("makeThrift, makeSbe;", "makeThrift, makeSbe, makeProbe;"),
    ),
    "rust": Addition(
        "src/codec/probe.rs",
        "//! A throwaway library (tests/test_adding_a_library.py): serde_json by another name.\n"
        "pub type Probe = super::plain::Serde<super::serde_json::SerdeJson>;\n",
        "src/codec/mod.rs",
        '            name: "simd-json",',
        '            name: "probe",\n'
        '            supports: &[("strings", BOTH), ("validation", VALIDATED),'
        ' ("packing", UNPACKED)],\n'
        "            crates: &[],\n"
        '            make: Make { format: "json", access: false, cell: cell::<probe::Probe> },\n'
        "        },\n"
        "        Lib {\n",
        ("pub mod postcard;\n", "pub mod postcard;\npub mod probe;\n"),
    ),
    "go": Addition(
        "internal/codec/probe.go",
        "package codec\n\n"
        "// A throwaway library (tests/test_adding_a_library.py): json-iterator by another name.\n"
        "func newProbe(v Variant) Impl { return newJSONIterator(v) }\n",
        "internal/codec/registry.go",
        '\t{"protobuf", "protobuf",',
        '\t{"probe", "json", both, ownedOnly, parsed, nil, newProbe},\n',
    ),
    "java": Addition(
        "src/main/java/wirebench/codec/ProbeCodec.java",
        "package wirebench.codec;\n\n"
        "/** A throwaway library (tests/test_adding_a_library.py): Gson by another name. */\n"
        "final class ProbeCodec {\n"
        "  private ProbeCodec() {}\n\n"
        "  static Codec<?> make(String kase, boolean reuse) {\n"
        "    return new GsonCodec(kase, reuse);\n"
        "  }\n"
        "}\n",
        "src/main/java/wirebench/codec/CodecSuite.java",
        '          new CodecLib(\n              "protobuf",',
        '          new CodecLib("probe", "json", BOTH, "validated", false, Map.of(), '
        "ProbeCodec::make),\n",
    ),
}


def copy_of_the_tree(to):
    """The committed files as they are in the work tree (no build outputs), with the Rust
    driver's release dependencies, so that only its own crate compiles again."""
    files = (
        subprocess.run(["git", "ls-files", "-z"], cwd=paths.ROOT, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, files):
        src, dst = paths.ROOT / name, to / name
        if not src.exists() and not src.is_symlink():
            continue  # deleted in the work tree
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)


def harness(copy, *args, timeout):
    """The copy's own `wirebench`, from outside the checkout (whose package would come
    first on the path)."""
    return subprocess.run(
        [sys.executable, "-c", "from wirebench import cli; cli.main()", *args],
        env={**os.environ, "PYTHONPATH": str(copy)},
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=copy.parent,
    )


@pytest.mark.parametrize("lang", [pytest.param(n, marks=need_driver(n)) for n in ADDITIONS])
def test_a_codec_library_is_one_file_and_one_registration_line(lang, tmp_path):
    copy = tmp_path / "wirebench"
    copy_of_the_tree(copy)
    if lang == "rust":  # its dependencies, already built: only the driver's crate compiles
        release = paths.ROOT / "drivers/rust/target/release"
        shutil.copytree(release, copy / "drivers/rust/target/release", symlinks=True)
    folder = copy / "drivers" / lang
    add = ADDITIONS[lang]
    (folder / add.file).write_text(add.code)
    registry = folder / add.registry
    text = registry.read_text()
    assert text.count(add.anchor) == 1, f"{add.registry} no longer has {add.anchor!r}"
    text = text.replace(add.anchor, add.line + add.anchor)
    if add.declared:
        old, new = add.declared
        assert text.count(old) == 1, f"{add.registry} no longer has {old!r}"
        text = text.replace(old, new)
    registry.write_text(text)

    built = harness(copy, "build", lang, timeout=1800)
    assert built.returncode == 0, built.stderr[-4000:]
    driver = copy / drivers.DRIVERS[lang].profile(DEFAULT_BUILD).executable
    listed = [json.loads(line) for line in subprocess.check_output([driver, "list"]).splitlines()]
    probe = [e for e in listed if e["suite"] == "codec" and e["lib"] == "probe"]
    assert probe and {e["format"] for e in probe} == {"json"}

    args = ["run", "--lang", lang, "--suite", "codec", "--lib", "probe", "--no-pairs"]
    args += ["--no-limits", "--iters", "2", "--samples", "2", "--repeat", "1", "--layouts", "1"]
    ran = harness(copy, *args, "--json", "--db", str(tmp_path / "w.db"), timeout=600)
    assert ran.returncode == 0, ran.stderr[-4000:]
    cells = [c for c in json.loads(ran.stdout)["cells"] if c["lib"] == "probe"]
    assert cells and all(c["status"] == "ok" for c in cells), cells
    # Its fuzz target needs nothing more: the Go and Rust runners take their targets from
    # `list`, the C++ and Java ones from the registry (ctest Fuzz.EveryDecoderIsATarget,
    # wirebench.fuzz.Targets), so `codec_probe` is there with the line above.
