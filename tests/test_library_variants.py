"""Library variants (wirebench/library_variants.py): `run --with LANG:NAME=SOURCE` builds
the driver against another version of one library, in a tree of its own, and runs its
cells beside the committed driver's; a variant that does not build is error rows, and
the rest of the run stands."""

import json
import sqlite3

import pytest
from click.testing import CliRunner

from wirebench import cli, drivers, library_variants, paths
from wirebench.cells import Cell

from .conftest import need_driver


@pytest.mark.parametrize(
    "spec, message",
    [
        ("capnp=0.26.0", "expected LANG:NAME=SOURCE"),
        ("d:capnp=1.0", "no library variants of a 'd' driver"),
        ("rust:capnp=./no/such/checkout", "is not a directory"),
        ("cpp:capnp=1.0.1", r"a C\+\+ variant is an install prefix"),
    ],
)
def test_a_with_that_cannot_be_a_variant_is_refused_by_name(spec, message):
    with pytest.raises(library_variants.VariantError, match=message):
        library_variants.parse(spec)


def test_a_variant_is_labelled_by_its_version_or_its_directory(tmp_path):
    checkout = tmp_path / "capnproto-rust"
    checkout.mkdir()
    by_version = library_variants.Variant("rust", "capnp", "0.26.0")
    by_checkout = library_variants.Variant("rust", "capnp", str(checkout))
    assert (by_version.kind, by_version.label) == ("version", "capnp@0.26.0")
    assert (by_checkout.kind, by_checkout.label) == ("checkout", "capnp@capnproto-rust")
    prefix = library_variants.Variant("cpp", "capnp", str(checkout))
    assert (prefix.kind, prefix.driver_name) == ("prefix", "cpp+capnp@capnproto-rust")


def test_a_variant_cell_names_its_driver_and_is_no_other_work():
    cell = Cell.make("rpc", "eval", "rust", "capnp", {"mode": "pipe", "build": "stock"}, "rust")
    variant = cell.with_param("variant", "capnp@0.26.0")
    assert variant.driver_id == variant.server_driver_id == "rust+capnp@0.26.0"
    assert variant.impl == "rust+capnp@0.26.0/capnp"
    assert variant.work == cell.work  # the two sides of an A/B do the same work
    assert cell.variant is None and cell.driver_id == "rust"


@need_driver("go")
def test_an_unknown_library_of_the_driver_is_refused_listing_its_libraries():
    with pytest.raises(library_variants.VariantError, match="its libraries .*protobuf"):
        library_variants.parse("go:no-such-lib=1.0.0")


def _run(tmp_path, *extra):
    db = tmp_path / "w.db"
    args = ["run", "--lang", "go", "--suite", "codec", "--lib", "protobuf", "--case", "log"]
    args += ["--iters", "2", "--samples", "2", "--repeat", "2", "--layouts", "1", "--no-pairs"]
    args += ["--no-limits", "--json", "--db", str(db), *extra]
    r = CliRunner().invoke(cli.main, args)
    cells = {c["key"]: c for c in json.loads(r.stdout)["cells"]} if r.stdout else {}
    return r, cells, db


@need_driver("go")
def test_a_published_version_runs_beside_the_committed_library(tmp_path):
    r, cells, db = _run(tmp_path, "--with", "go:protobuf=v1.36.0")
    assert r.exit_code == 0, r.output
    variants = [c for c in cells.values() if "variant=protobuf@v1.36.0" in c["key"]]
    assert variants and len(variants) * 2 == len(cells)  # every cell twice: base and variant
    assert all(c["status"] == "ok" for c in cells.values())
    with sqlite3.connect(db) as con:
        prov = json.loads(con.execute("SELECT provenance FROM runs").fetchone()[0])
    assert prov["drivers"]["go+protobuf@v1.36.0"]["versions"]["protobuf"] == "1.36.0"
    assert prov["drivers"]["go"]["versions"]["protobuf"] != "1.36.0"
    assert prov["library_variants"]["protobuf@v1.36.0"]["package"] == "google.golang.org/protobuf"
    drivers.VARIANTS.clear()


@need_driver("go")
def test_a_variant_that_does_not_build_is_error_rows_and_the_rest_stands(tmp_path):
    r, cells, _ = _run(tmp_path, "--with", "go:protobuf=v0.0.0-no-such-version")
    broken = [c for c in cells.values() if "variant=" in c["key"]]
    assert broken and all(c["status"] == "error" for c in broken)
    assert all(
        "go+protobuf@v0.0.0-no-such-version driver did not build" in c["error"] for c in broken
    )
    assert all(c["status"] == "ok" for c in cells.values() if "variant=" not in c["key"])
    assert r.exit_code != 0
    drivers.VARIANTS.clear()


@need_driver("go")
def test_a_patch_variant_runs_the_committed_driver_with_the_patch_applied(tmp_path):
    patch = tmp_path / "comment.patch"
    main = "drivers/go/cmd/wirebench-go/main.go"
    first, second = (paths.ROOT / main).read_text().splitlines()[:2]
    patch.write_text(
        f"--- a/{main}\n+++ b/{main}\n@@ -1,2 +1,3 @@\n {first}\n+// patched by a test\n {second}\n"
    )
    r, cells, _ = _run(tmp_path, "--ab", f"patch={patch}")
    assert r.exit_code == 0, r.output
    assert {c["status"] for c in cells.values()} == {"ok"}
    assert any("variant=patch@comment" in key for key in cells)
    tree = library_variants.TREES / "go-patch@comment"
    assert "// patched by a test" in (tree / main).read_text()
    assert "// patched by a test" not in (paths.ROOT / main).read_text()
    drivers.VARIANTS.clear()


@need_driver("go")
def test_a_revision_is_built_in_a_worktree_of_its_own(tmp_path):
    r, cells, _ = _run(tmp_path, "--ab", "rev=HEAD", "--fail-on", "never")
    assert r.exit_code == 0, r.output
    head = library_variants.resolve("HEAD", "rev", "HEAD")
    assert any(f"variant=rev@{head[:10]}" in key for key in cells)
    assert (library_variants.TREES / f"rev-{head[:12]}" / ".git").is_file()
    drivers.VARIANTS.clear()
