"""End to end with the real C++ driver: every cell it lists runs, verifies and is stored.

Skipped where the driver is not built (`wirebench build cpp`); `make test` builds it.
"""

import json

import pytest
from click.testing import CliRunner

from wirebench import cli, drivers

from .conftest import need_driver

pytestmark = need_driver("cpp")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    db = tmp_path_factory.mktemp("cpp") / "w.db"
    args = [
        "run",
        "--lang",
        "cpp",
        "--toolchain",
        "g++",
        "--iters",
        "2",
        "--samples",
        "2",
        "--repeat",
        "1",
        "--placement",
        "one-core,two-cores",
        "--json",
        "--db",
        str(db),
    ]
    r = CliRunner().invoke(cli.main, args)
    return r, json.loads(r.stdout)


def test_every_listed_cell_verifies(tiny_run):
    r, data = tiny_run
    bad = [(c["key"], c["error"]) for c in data["cells"] if c["status"] != "ok"]
    assert not bad
    assert r.exit_code == 0
    listed = drivers.list_cells("cpp")
    pipes = sum(1 for c in listed if c["params"].get("mode", "").startswith("pipe"))
    assert len(data["cells"]) == len(listed) + pipes  # pipe cells run in two placements
    two = [c for c in data["cells"] if c["params"].get("placement") == "two-cores"]
    assert len(two) == pipes and all(c["server_lang"] == "cpp" for c in two)


def test_the_matrix_is_the_reference_suite(tiny_run):
    _, data = tiny_run
    rpc = [c for c in data["cells"] if c["suite"] == "rpc"]
    libs = {(c["case"], c["lib"]) for c in rpc}
    assert libs == {
        (case, lib)
        for case in ("carsales", "catrank", "eval")
        for lib in ("capnp", "protobuf", "null")
    }
    capnp = {
        tuple(sorted(c["params"].items()))
        for c in rpc
        if c["lib"] == "capnp" and c["case"] == "eval"
    }
    # object (no compression) + 3 serializing modes x 2 compressions, x 2 reuse; the two
    # pipe modes once more for the second placement.
    assert len(capnp) == (1 + 3 * 2) * 2 + 2 * 2 * 2


def test_capnp_bytes_and_pipe_move_the_same_bytes(tiny_run):
    """The stream framing is the flat-array framing: the two modes count alike."""
    _, data = tiny_run
    for case in ("carsales", "catrank", "eval"):
        for comp in ("none", "packed"):
            sizes = {
                c["params"]["mode"]: c["metrics"]["bytes"]["median"]
                for c in data["cells"]
                if c["lib"] == "capnp"
                and c["case"] == case
                and c["params"]["compression"] == comp
                and c["params"]["reuse"] == "reuse"
            }
            assert sizes["bytes"] == sizes["pipe"] == sizes["pipe-async"] > 0
            assert sizes.get("object", 0) == 0  # object mode exists uncompressed only
