"""Layout variants (wirebench/drivers.py): each native driver's stock build relinked with two
seeds. A variant must differ from variant 0 and from the other in where its code lies, and
in nothing the driver says: the same cells, the same identity."""

import collections
import json
import subprocess

import pytest

from wirebench import cells, drivers

from .conftest import FAKE_DRIVER, REQUIRE_DRIVERS

NATIVE = [name for name, d in drivers.DRIVERS.items() if d.layouts]
K = 3  # variant 0 and two variants


def test_every_native_driver_has_layout_variants_and_the_jvm_none():
    assert set(NATIVE) == {"cpp", "cpp-clang++", "rust", "go", "d-gdc", "d-ldc2"}
    java = drivers.get("java")
    assert not java.layouts and not FAKE_DRIVER.layouts
    assert java.variant_path("stock", 0) == java.path("stock")
    with pytest.raises(drivers.DriverError, match="java driver has no layout variants"):
        java.variant_path("stock", 1)
    with pytest.raises(drivers.DriverError, match="java driver has no layout variants"):
        java.build_variants(lambda m: None, "stock", 3)
    assert "no layout variants" in java.variant_flags("stock", 0)


def test_variant_paths_sit_beside_the_executable():
    cpp = drivers.get("cpp")
    for build in cells.BUILDS:
        assert cpp.variant_path(build, 0) == cpp.path(build)
        assert cpp.variant_path(build, 2).name == "wirebench-cpp.layout-2"
        assert cpp.variant_path(build, 2).parent == cpp.path(build).parent
    with pytest.raises(drivers.DriverError):
        cpp.variant_path("stock", -1)


def _text_symbols(exe) -> list[tuple[int, str]]:
    """(address, name) of every function symbol, in address order."""
    out = subprocess.run(
        ["nm", "--defined-only", str(exe)], capture_output=True, text=True, check=True
    ).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT":
            rows.append((int(parts[0], 16), parts[2]))
    return sorted(rows)


def _ask(exe, *args) -> str:
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def variants():
    """The stock build's variants 0..K-1 of a driver, built (relinked) once per driver."""
    made = {}

    def get(name):
        if name not in made:
            d = drivers.get(name)
            if not d.is_built("stock"):
                if REQUIRE_DRIVERS:
                    pytest.fail(f"the {name} driver is not built")
                pytest.skip(f"the {name} driver is not built")
            log = []
            try:
                d.build_variants(log.append, "stock", K)
            except drivers.DriverError as e:
                pytest.fail(f"{e}\n" + "\n".join(log))
            made[name] = [d.variant_path("stock", k) for k in range(K)]
        return made[name]

    return get


@pytest.mark.parametrize("name", NATIVE)
def test_variants_are_built_and_differ_in_their_bytes(name, variants):
    d = drivers.get(name)
    exes = variants(name)
    assert all(d.variant_built("stock", k) for k in range(K))
    assert exes[1].name.endswith(".layout-1") and exes[2].name.endswith(".layout-2")
    contents = [exe.read_bytes() for exe in exes]
    assert len(set(contents)) == K, "two variants are the same bytes"


@pytest.mark.parametrize("name", NATIVE)
def test_variants_place_the_same_functions_at_other_addresses(name, variants):
    """The same functions (by name) in every variant, in another order in each: the layout
    is what differs, not the code that was linked."""
    symbols = [_text_symbols(exe) for exe in variants(name)]
    names = [collections.Counter(n for _, n in s) for s in symbols]
    assert names[0] == names[1] == names[2]
    orders = [[n for _, n in s] for s in symbols]
    assert orders[0] != orders[1] and orders[0] != orders[2] and orders[1] != orders[2]
    # Most functions move, not a few: the whole text is shuffled.
    where = [{n: a for a, n in s} for s in symbols]
    for k in (1, 2):
        moved = sum(where[0][n] != where[k].get(n) for n in where[0])
        assert moved > len(where[0]) // 2, f"variant {k}: {moved} of {len(where[0])} moved"


@pytest.mark.parametrize("name", NATIVE)
def test_variants_list_the_same_cells_and_say_the_same_identity(name, variants):
    exes = variants(name)
    lists = [_ask(exe, "list") for exe in exes]
    assert lists[0].strip() and lists[0] == lists[1] == lists[2]
    infos = [json.loads(_ask(exe, "info")) for exe in exes]
    # The build settings may name the variant's link: Go's build info records -ldflags,
    # and the Go driver reports it. Nothing else may differ.
    for i in infos:
        i.get("build", {}).pop("-ldflags", None)
    assert infos[0] == infos[1] == infos[2]


@pytest.mark.parametrize("name", NATIVE)
def test_variant_flags_name_the_seed(name, variants):
    variants(name)
    d = drivers.get(name)
    flags = [d.variant_flags("stock", k) for k in range(K)]
    assert len(set(flags)) == K
    for k in (1, 2):
        assert f"={k}" in flags[k] and "\n" not in flags[k]


@pytest.mark.parametrize("name", NATIVE)
def test_variants_that_are_current_cost_no_link(name, variants):
    """A second build_variants relinks nothing: every executable is the same file with the
    same bytes (a link writes a new file; `go build` only touches a current one)."""
    d = drivers.get(name)
    exes = variants(name)

    def state():
        return [(exe.stat().st_ino, exe.read_bytes()) for exe in exes]

    before = state()
    d.build_variants(lambda m: None, "stock", K)
    assert state() == before
