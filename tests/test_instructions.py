"""Instruction counts: two runs under cachegrind, their difference per iteration, each run
checked like a timed one; Go's with its collector, over a longer span, the median of up to
three counts; refused for the JVM; repeatable (C++ to a few instructions, Go to 0.5%)."""

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from wirebench import cli, instructions, runner
from wirebench.cells import Cell, Task

from .conftest import FAKE, need_driver

FAKE_VALGRIND = Path(__file__).resolve().parent / "fake_valgrind.py"

# A valgrind stand-in that runs tests/fake_valgrind.py, then adds EXTRA[k] instructions to
# the count of the k-th process it ran (a process that costs a little more or less than
# another, as Go's do).
JITTER = r"""
import glob, os, subprocess, sys
extra, counter = [int(v) for v in sys.argv[1].split(",")], sys.argv[2]
args = sys.argv[3:]
k = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(k + 1))
status = subprocess.run([sys.executable, *args], close_fds=False).returncode
out = next(a.split("=", 1)[1] for a in args if a.startswith("--cachegrind-out-file="))
(path,) = glob.glob(out.replace("%p", "*"))
lines = open(path).read().splitlines()
fields = lines[1].split()
fields[1] = str(int(fields[1]) + extra[k])
open(path, "w").write("\n".join([lines[0], " ".join(fields)]) + "\n")
sys.exit(status)
"""


def fake_wrap(out_dir, role, lang=None):
    return [sys.executable, str(FAKE_VALGRIND), f"--cachegrind-out-file={out_dir}/{role}.%p.out"]


@pytest.fixture
def run(run, monkeypatch):
    """The CLI (conftest's `run`), with valgrind replaced by tests/fake_valgrind.py."""
    monkeypatch.setattr(instructions, "wrap", fake_wrap)
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
    (title,) = [t for t in titles if t.startswith("rpc: instructions and estimated cycles")]
    assert "not the kernel's work: pipe I/O, page faults, system calls" in title


def test_a_run_of_counts_alone_reports_every_suite_without_charts_of_times(run):
    """Counted cells have no times: the suites' charts (codec, readbytes, the memcpy
    limit they read) leave them out instead of failing the report."""
    args = ("run", "--lib", "jackson,null,stdio", "--suite", "codec,readbytes", "--iters", "20")
    r = run(*args, "--measure", "instructions")
    assert r.exit_code == 0, r.output
    data = json.loads(run("report", "--json").output)
    assert {c["suite"] for c in data["cells"]} >= {"codec", "readbytes"}
    assert all("time" not in c["metrics"] for c in data["cells"])


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


def counted_instructions(db, *cell: str) -> float:
    """One instruction count of one real cell (the filters select exactly one), stored in
    its own database: its instructions per iteration."""
    args = ["run", *cell, "--measure", "instructions", "--no-limits", "--no-report"]
    r = CliRunner().invoke(cli.main, [*args, "--db", str(db)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli.main, ["report", "--json", "--db", str(db)])
    (counted,) = json.loads(r.output)["cells"]
    return counted["metrics"]["instructions"]["median"]


@need_driver("cpp")
def test_two_counts_of_the_same_cell_agree_within_half_a_percent(tmp_path):
    cell = ("--lang", "cpp", "--lib", "capnp", "--case", "catrank", "--mode", "bytes")
    cell += ("--compression", "packed", "--reuse", "no-reuse")
    a, b = (counted_instructions(tmp_path / f"{x}.db", *cell) for x in "ab")
    assert a > 10_000
    assert abs(a - b) / a < 0.005


def count(tmp_path, monkeypatch, extra, iters=100):
    """A count of a local fake cell counted as Go's are (span 10, up to four runs at n2),
    its k-th process EXTRA[k] instructions dearer."""
    script = tmp_path / "jitter.py"
    script.write_text(JITTER)
    monkeypatch.setattr(instructions, "COUNTING", {"fake": instructions.GO})

    def wrap(out_dir, role, lang=None):
        jitter = [sys.executable, str(script), ",".join(map(str, extra)), str(tmp_path / "k")]
        return jitter + fake_wrap(out_dir, role)[1:]

    monkeypatch.setattr(instructions, "wrap", wrap)
    params = {"mode": "object", "compression": "none", "reuse": "reuse"}
    cell = Cell.make("rpc", "carsales", "fake", "good", params)
    task = Task(cell, iters, 3, 1, 20.0, FAKE, measure="instructions", memory_limit=None)
    return runner.execute(task, {FAKE: {"lang": "fake", "toolchain": "fakec"}})


def per_iteration(outcome, metric="instructions"):
    m = outcome.metrics[metric]
    return m.samples[0] / m.iters


def extra(*counts):
    """The EXTRA that makes the counts (per iteration, over n1 = 10 and n2 = 100) these:
    the n1 run as it is, each n2 run dearer by (count - 700) * 90."""
    return [0] + [round((c - 700) * 90) for c in counts]


def test_go_is_counted_over_the_profiles_count_until_two_counts_agree(tmp_path, monkeypatch):
    outcome = count(tmp_path, monkeypatch, extra(700, 700.5))
    assert outcome.ok, outcome.error
    # n1 = 100 / 10, n2 = 10 n1; the two n2 runs agree within 0.1%: their mean.
    assert [c.split("--iters ")[1].split()[0] for c in outcome.commands] == ["10", "100", "100"]
    assert per_iteration(outcome) == 700.25
    # and their cycles' (the extra instructions L1 hits): 690 + 5 * 9 + 35 * 1 + 0.25
    assert per_iteration(outcome, "est_cycles") == 770.25


def test_go_counts_that_disagree_go_on_until_two_pin_the_median(tmp_path, monkeypatch):
    # 700 and 770 disagree; 707 is the median of three but 1% from its nearest; with
    # 707.5 the middle two of four agree: their mean.
    outcome = count(tmp_path, monkeypatch, extra(700, 770, 707, 707.5))
    assert outcome.ok, outcome.error
    assert len(outcome.commands) == 5  # one run at n1, four at n2, every run checked
    assert per_iteration(outcome) == 707.25


def test_go_counts_stop_at_four_with_their_median(tmp_path, monkeypatch):
    outcome = count(tmp_path, monkeypatch, extra(700, 770, 707, 740, 720))
    assert outcome.ok, outcome.error
    assert len(outcome.commands) == 5  # one run at n1, four at n2
    assert per_iteration(outcome) == (707 + 740) / 2  # the middle two's mean


def test_go_runs_with_its_collector_marking_with_the_world_stopped():
    go = instructions.wrap("/tmp/x", "client", "go")
    assert "GODEBUG=gcstoptheworld=1" in go and "GOMAXPROCS=1" in go
    assert not any(a.startswith("GOGC") for a in go)  # collected as in a timed process
    assert not any(a.startswith("GO") for a in instructions.wrap("/tmp/x", "client", "cpp"))
    assert instructions.iteration_counts(1000, instructions.counting("go")) == (100, 1000)
    assert instructions.iteration_counts(1000, instructions.counting("rust")) == (100, 200)
    # a pipe cell with a Go server (or client) is counted as Go's are
    assert instructions.counting("cpp", "go") is instructions.GO


@need_driver("go")
def test_two_go_counts_of_the_same_cell_agree_within_half_a_percent(tmp_path):
    cell = ("--lang", "go", "--lib", "protobuf", "--case", "carsales", "--iters", "300")
    cell += ("--mode", "bytes", "--compression", "none", "--reuse", "reuse")
    a, b = (counted_instructions(tmp_path / f"{x}.db", *cell) for x in "ab")
    assert a > 10_000
    assert abs(a - b) / a < 0.005
