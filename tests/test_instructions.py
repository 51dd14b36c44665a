"""Instruction counts: two runs under cachegrind, their difference per iteration, each run
checked like a timed one; refused for the JVM; repeatable to the last few instructions."""

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from wirebench import cli, instructions

from .conftest import need_driver

FAKE_VALGRIND = Path(__file__).resolve().parent / "fake_valgrind.py"


@pytest.fixture
def run(run, monkeypatch):
    """The CLI (conftest's `run`), with valgrind replaced by tests/fake_valgrind.py."""
    monkeypatch.setattr(
        instructions,
        "wrap",
        lambda out_dir, role: [
            sys.executable,
            str(FAKE_VALGRIND),
            f"--cachegrind-out-file={out_dir}/{role}.%p.out",
        ],
    )
    return run


ARGS = ("run", "--lib", "good", "--case", "carsales", "--iters", "100", "--no-limits")


def test_counts_are_the_difference_of_two_runs_per_iteration(run):
    r = run(*ARGS, "--mode", "object,pipe", "--measure", "instructions")
    assert r.exit_code == 0, r.output
    data = json.loads(run("report", "--json").output)
    local = next(c for c in data["cells"] if "mode=object" in c["key"])
    # n1 = 100 / 10, n2 = 20: (1e6 + 700 * 20) - (1e6 + 700 * 10) over 10 iterations.
    assert local["metrics"]["instructions"]["median"] == 700
    # cycles: 700 accesses, 10 miss L1 (1 of them to memory): 690 + 5 * 9 + 35 * 1.
    assert local["metrics"]["est_cycles"]["median"] == 690 + 45 + 35
    pipe = next(c for c in data["cells"] if "mode=pipe" in c["key"])
    assert pipe["metrics"]["instructions"]["median"] == 1400  # client and server
    assert "time" not in local["metrics"]  # nothing was timed
    titles = [t["title"] for t in data["tables"]]
    assert any(t.startswith("rpc: instructions and estimated cycles") for t in titles)


def test_counts_beside_times_in_one_run(run, two_fakes):
    r = run(*ARGS, "--mode", "object", "--measure", "all", "--repeat", "2")
    assert r.exit_code == 0, r.output
    r = run("report", "--compare", "fake:fake2", "--json")
    table = json.loads(r.output)["tables"][0]
    assert table["rows"][0][-1].endswith("(instr 1.00)")


def test_a_count_that_does_not_grow_is_refused(run, monkeypatch):
    monkeypatch.setenv("FAKE_VALGRIND_FLAT", "1")
    r = run(*ARGS, "--mode", "object", "--measure", "instructions")
    assert r.exit_code == 1
    assert "the instruction count did not grow from 10 to 20 iterations" in r.output


def test_a_wrong_answer_under_valgrind_is_refused(run):
    args = ["--lib", "liar", "--case", "carsales", "--iters", "100", "--no-limits"]
    r = run("run", *args, "--mode", "object", "--measure", "instructions")
    assert r.exit_code == 1
    assert "under valgrind, 10 iterations:" in r.output


def test_a_driver_that_is_not_counted_is_refused_with_the_reason(run, monkeypatch):
    assert "java" in instructions.NOT_COUNTED
    monkeypatch.setattr(instructions, "NOT_COUNTED", {"fake": "a JIT's counts do not repeat"})
    r = run(*ARGS, "--measure", "instructions")
    assert r.exit_code == 2
    assert "no cell whose instructions are counted (fake: a JIT's counts do not repeat)" in r.output


@need_driver("cpp")
def test_two_counts_of_the_same_cell_agree_within_half_a_percent(tmp_path):
    def count(db):
        args = ["run", "--lang", "cpp", "--lib", "capnp", "--case", "catrank"]
        args += ["--mode", "bytes", "--compression", "packed", "--reuse", "no-reuse"]
        args += ["--measure", "instructions", "--no-limits", "--no-report", "--db", str(db)]
        r = CliRunner().invoke(cli.main, args)
        assert r.exit_code == 0, r.output
        r = CliRunner().invoke(cli.main, ["report", "--json", "--db", str(db)])
        (cell,) = json.loads(r.output)["cells"]
        return cell["metrics"]["instructions"]["median"]

    a, b = count(tmp_path / "a.db"), count(tmp_path / "b.db")
    assert a > 10_000
    assert abs(a - b) / a < 0.005
