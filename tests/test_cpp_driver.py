"""End to end with the real C++ driver, the reference: its rpc matrix is the published one,
and its pipe cells run in both placements (tests/test_conformance.py runs every cell of
every driver).

Skipped where the driver is not built (`wirebench build cpp`); `make test` builds it.
"""

import json

import pytest
from click.testing import CliRunner

from wirebench import cli

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
        "--suite",
        "rpc",
        "--no-pairs",
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
