"""The runner against the fake driver: every way a driver can fail becomes an error."""

import math
import os
import time

import pytest
from click.testing import CliRunner

from wirebench import adaptive, cli, headline, processes, protocol, registry, runner
from wirebench.cells import Cell, Task
from wirebench.protocol import ResultError
from wirebench.store import Store
from wirebench.suites import rpc

from .conftest import FAKE

IDENTITY = {FAKE: {"lang": "fake", "toolchain": "fakec"}}


def task(lib, mode="object", timeout=20.0, iters=5, samples=3):
    params = {"mode": mode, "compression": "none", "reuse": "reuse"}
    if mode == "pipe":
        params["placement"] = "one-core"
    cell = Cell.make("rpc", "carsales", "fake", lib, params, "fake" if mode == "pipe" else None)
    return Task(
        cell=cell,
        iters=iters,
        samples=samples,
        warmup=1,
        timeout=timeout,
        client=FAKE,
        server=FAKE if mode == "pipe" else None,
    )


@pytest.mark.parametrize("mode", ["object", "pipe"])
def test_good_driver_is_ok(mode):
    outcome = runner.execute(task("good", mode), IDENTITY)
    assert outcome.ok, outcome.error
    assert outcome.metrics["time"].samples == (5000, 5037, 5074)
    assert outcome.metrics["time"].iters == 5 and outcome.metrics["bytes"].unit == "B"
    assert outcome.user_ns > 0 and outcome.max_rss_kb > 0
    if mode == "pipe":
        assert outcome.server["requests"] == 1 + 5 * 3
        assert len(outcome.commands) == 2 and "--role server" in outcome.commands[0]


@pytest.mark.parametrize(
    "lib, reason",
    [
        ("crash", "killed by SIGSEGV"),
        ("fail", "exited with status 1: fake: response 7 was wrong"),
        ("garbage", "malformed result: not JSON"),
        ("silent", "expected one JSON line on stdout, got 0 lines"),
        ("twolines", "got 2 lines"),
        ("liar", "wrong answers: check digest"),
        ("unverified", "did not verify"),
        ("wrongcell", "result is for case 'catrank'"),
    ],
)
def test_misbehaving_driver_is_an_error(lib, reason):
    outcome = runner.execute(task(lib), IDENTITY)
    assert not outcome.ok
    assert reason in outcome.error
    assert outcome.metrics == {}  # an error keeps no number


def test_a_driver_claiming_another_identity_is_refused():
    other = {FAKE: {"lang": "fake", "toolchain": "clang++"}}
    outcome = runner.execute(task("good"), other)
    assert "result is for toolchain 'fakec', asked for 'clang++'" in outcome.error


def test_a_longer_warmup_is_accepted_and_the_server_must_have_served_it(monkeypatch):
    # The JVM driver warms up until its JIT settles: more than asked, and its server
    # answers those requests too.
    monkeypatch.setenv("FAKE_EXTRA_WARMUP", "7")
    outcome = runner.execute(task("good", "pipe"), IDENTITY)
    assert outcome.ok, outcome.error
    assert outcome.result["warmup"] == 8
    assert outcome.server["requests"] == 8 + 5 * 3
    t = task("good", "pipe")
    with pytest.raises(ResultError, match="answered 16 requests, expected 23"):
        rpc.SUITE.check_server(t, {**outcome.server, "requests": 16}, outcome.result)


def test_hanging_driver_is_killed_at_the_timeout():
    outcome = runner.execute(task("hang", timeout=0.5), IDENTITY)
    assert not outcome.ok
    assert "timed out after 0.5 s" in outcome.error


def _gone(pid: int) -> bool:
    """The process and every process of its session have ended and been reaped."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_hanging_client_of_a_pipe_kills_both_processes():
    started = time.monotonic()
    outcome = runner.execute(task("hang", mode="pipe", timeout=0.5), IDENTITY)
    assert "timed out" in outcome.error
    assert time.monotonic() - started < 30  # the harness did not wait for the hour's sleep
    assert len(outcome.pids) == 2
    assert all(_gone(pid) for pid in outcome.pids)


def test_a_driver_printing_without_end_is_killed_at_the_output_limit(monkeypatch):
    monkeypatch.setattr(processes, "OUTPUT_LIMIT", 1 << 20)
    outcome = runner.execute(task("flood", timeout=60), IDENTITY)
    assert outcome.error == "the driver stdout passed the output limit of 1 MiB (killed)"
    assert all(_gone(pid) for pid in outcome.pids)


def test_a_driver_over_its_memory_limit_fails_naming_the_limit():
    t = task("hog")
    t.memory_limit = 1 << 30
    outcome = runner.execute(t, IDENTITY)
    assert outcome.error == (
        "driver exited with status 1: fake: out of memory "
        "(out of memory under the address-space limit of 1 GiB)"
    )


def test_a_server_that_dies_is_named_and_both_processes_are_reaped():
    outcome = runner.execute(task("serverdies", mode="pipe"), IDENTITY)
    assert outcome.error == (
        "client exited with status 1: fake client: the server closed the pipe at request 2; "
        "server exited with status 1: fake server: request 3 is corrupt: "
        "length 4294967295 over the limit"
    )
    assert len(outcome.pids) == 2 and all(_gone(pid) for pid in outcome.pids)


def good_result(t):
    return {
        "protocol": 2,
        "lang": "fake",
        "toolchain": "fakec",
        "suite": "rpc",
        "case": "carsales",
        "lib": "good",
        "params": registry.of(t.cell).driver_params(t.cell.param),
        "warmup": 1,
        "verified": True,
        "metrics": {
            "time": {"unit": "ns", "iters": 5, "samples": [1, 2, 3]},
            "bytes": {"unit": "B", "iters": 5, "samples": [9, 9, 9]},
        },
        "responses_checked": 16,
        "check": [rpc.expected_check("carsales", 5)] * 3,
    }


def judge(t, result):
    params = rpc.SUITE.driver_params(t.cell.param)
    identity = {"lang": "fake", "toolchain": "fakec"}
    metrics = protocol.check_result(t, result, rpc.SUITE.metrics, params, identity)
    rpc.SUITE.check_result(t, result, metrics)


def test_check_result_refuses_inconsistent_results():
    t = task("good")
    good = good_result(t)
    judge(t, good)

    def metric(name, **change):
        return {"metrics": {**good["metrics"], name: {**good["metrics"][name], **change}}}

    for change, reason in [
        (metric("time", samples=[1, 2]), "has 2 samples, asked for 3"),
        (metric("time", samples=[1, 0, 3]), "below 1 ns"),
        (metric("time", samples=[1, -2, 3]), "a sample is negative"),
        (metric("time", samples=[1, 2.5, 3]), "must be a non-empty list of integers"),
        (metric("time", unit="ms"), "is samples in ms, expected samples in ns"),
        (metric("time", iters=6), "iters 6"),
        (metric("bytes", samples=[9, 9, 8]), "different byte counts"),
        ({"metrics": {"time": good["metrics"]["time"]}}, "metric 'bytes' is missing"),
        ({"metrics": None}, "no metrics object"),
        (metric("time", value=3), "exactly one of samples, value or histogram"),
        ({"responses_checked": 4}, "fewer than"),
        ({"check": [1, 2]}, "list of 3 integers"),
        ({"protocol": 1}, "protocol version 1, expected 2"),
        ({"lang": "cpp"}, "result is for lang 'cpp'"),
        ({"warmup": 0}, "fewer than the 1 asked"),
        ({"warmup": None}, "warmed up None"),
    ]:
        with pytest.raises(ResultError, match=reason):
            judge(t, {**good, **change})


def test_metric_forms():
    scalar = protocol.parse_metric("size", {"unit": "B", "value": 12})
    assert scalar.kind == "scalar" and scalar.value == 12
    for bad, reason in [
        ({"unit": "B", "value": float("nan")}, "finite number"),
        ({"unit": "ns", "histogram": "bm90IGEgaGlzdG9ncmFt"}, "not an HdrHistogram"),
        ({"unit": "ns", "histogram": "***"}, "not an HdrHistogram"),
        ({"value": 1}, "must be an object with a unit"),
    ]:
        with pytest.raises(ResultError, match=reason):
            protocol.parse_metric("m", bad)


def test_expected_check_uses_the_committed_digests():
    assert rpc.expected_check("eval", 20) == -6440618294


def test_a_suite_with_fixtures_gets_its_directories_and_measures_what_is_left(probe_suite):
    cell = Cell.make("probe", "echo", "fake", "good", {"size": "small"})
    t = Task(cell=cell, iters=3, samples=3, warmup=1, timeout=20, client=FAKE)
    outcome = runner.execute(t, IDENTITY)
    assert outcome.ok, outcome.error
    assert "--out-dir" in outcome.commands[0]
    out_dir = outcome.commands[0].split("--out-dir ")[1].split()[0]
    assert not os.path.exists(out_dir)  # removed after the process
    assert outcome.metrics["out_bytes"].value == 1234  # measured by the harness
    assert outcome.metrics["latency"].kind == "histogram"


def test_placement_pins_processes():
    client, server = processes.cpus_for({"mode": "pipe", "placement": "one-core"})
    assert client == server and len(client) == 1
    assert processes.cpus_for({"mode": "object"}) == (client, server)
    client, server = processes.cpus_for({"placement": "two-cores"})
    assert len(client) == len(server) == 1
    if len(os.sched_getaffinity(0)) > 1:
        assert client != server
    assert processes.cpus_for({"placement": "unpinned"}) == (None, None)


def test_iters_sizes_the_suites_cells_and_memcpy_keeps_its_byte_budget():
    from wirebench import orchestrate
    from wirebench.profiles import PROFILES

    cell = Cell.make("rpc", "eval", "x", "capnp", {"mode": "object"})
    big = Cell.make("limit", "memcpy", "x", "memcpy", {"block": "64MiB"})
    plan = orchestrate.make_plan([cell, big], PROFILES["quick"], iters=2000)
    assert [e.iters for e in plan.entries] == [2000, 4]  # 256 MiB in 64 MiB blocks
    assert orchestrate.make_plan([cell], PROFILES["standard"]).entries[0].iters == 200000


# -- adaptive repetition (wirebench/adaptive.py) --------------------------------------------


def _adaptive_run(tmp_path, monkeypatch, *extra):
    """Both fake languages' rpc good object cell, fake as the headline's baseline."""
    monkeypatch.setattr(headline, "BASELINE", "fake")
    db = tmp_path / "a.db"
    args = ["run", "--suite", "rpc", "--lib", "good", "--mode", "object"]
    args += ["--no-limits", "--no-pairs", "--iters", "3", "--samples", "2", "--repeat", "6"]
    r = CliRunner().invoke(cli.main, [*args, *extra, "--no-report", "--db", str(db)])
    assert r.exit_code == 0, r.output
    store = Store(db)
    return r, store, store.plan(1)


def test_until_sizes_a_second_stage_for_the_cells_of_a_wide_headline_ratio(
    two_fakes, tmp_path, monkeypatch
):
    monkeypatch.setenv("FAKE_NOISE", "0.3")
    monkeypatch.setattr(adaptive, "MAX_REPS", 8)
    r, store, plan = _adaptive_run(tmp_path, monkeypatch, "--until", "0.001")
    assert r.exit_code == 0, r.output
    assert "second stage, sized from the pilot: 2 cells, 4 processes" in r.output
    # Both sides of the ratio got their rounds, up to MAX_REPS; the grown plan is stored
    # with its pilot, and every cell has its processes and its status.
    assert [e.reps for e in plan.entries] == [8, 8]
    assert plan.until == 0.001 and plan.pilot == 6
    for c in store.cells(1):
        assert c["reps"] == 8 and c["status"] == "ok"
        assert [p["rep"] for p in store.processes(1, c["key"])] == list(range(8))
    assert store.run(1)["status"] == "complete"


def test_until_adds_no_round_when_the_headline_is_narrow(two_fakes, tmp_path, monkeypatch):
    r, store, plan = _adaptive_run(tmp_path, monkeypatch, "--until", "0.5")
    assert r.exit_code == 0, r.output
    assert "second stage, sized from the pilot: 0 cells" in r.output
    assert [e.reps for e in plan.entries] == [6, 6] and plan.pilot == 6


def test_the_second_stage_is_sized_to_the_budget(two_fakes, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_NOISE", "0.3")
    monkeypatch.setattr(
        Store, "mean_walls", lambda self, run_id: {c["key"]: 1e6 for c in self.cells(run_id)}
    )
    r, _, plan = _adaptive_run(tmp_path, monkeypatch, "--until", "0.001", "--budget", "60")
    assert r.exit_code == 0, r.output
    assert [e.reps for e in plan.entries] == [6, 6]
    assert "1 left as they are (budget)" in r.output


def test_stein_sizes_from_the_pilots_variance_once():
    """Stein's count: (t * s / ln(1 + W))^2 rounds in all, never fewer than the pilot."""
    from scipy.stats import t

    from wirebench import stats

    log = stats.LogRatio(0.0, se=0.04 / 6**0.5, df=5, paired=True)  # s = 0.04 per round
    want = (t.ppf(0.975, 5) * 0.04 / math.log1p(0.02)) ** 2
    assert adaptive.rounds_needed(log, 6, 0.02) == math.ceil(want)
    assert adaptive.rounds_needed(log, 6, 0.5) == 6
    assert adaptive.rounds_needed(stats.LogRatio(0.0, float("nan"), 0, True), 6, 0.02) == 6


def test_until_needs_a_pilot_of_six_rounds(run):
    r = run("run", "--no-limits", "--until", "0.05", "--repeat", "3")
    assert r.exit_code == 2 and "a pilot of at least 6 rounds" in r.output, r.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--budget", "60"], "--budget bounds the rounds --until adds: give --until too"),
        (["--until", "0.05", "--measure", "all"], "use --measure time with it"),
    ],
)
def test_until_and_budget_refuse_what_they_cannot_do(run, args, message):
    r = run("run", "--no-limits", *args)
    assert r.exit_code == 2 and message in r.output, r.output


def test_every_driver_process_gets_the_same_malloc_settings():
    done = processes.run(["sh", "-c", "echo $GLIBC_TUNABLES"], {}, 10)
    out, _ = done.client.output()
    assert out.strip() == processes.DRIVER_ENV["GLIBC_TUNABLES"]
    assert "trim_threshold" in out and "mmap_threshold" in out


def test_provenance_records_what_the_kernel_does_to_every_process():
    from wirebench import env

    m = env.machine_settings()
    assert set(m) == {"aslr", "thp", "thp_defrag", "clocksource", "governor"}
    assert m["aslr"] in ("0", "1", "2", "0 (setarch -R)")  # randomize_va_space, or off
    assert m["clocksource"]  # every Linux has one


def test_the_quiet_gate_measures_a_loaded_process_again_within_bounds(monkeypatch):
    """A process that ran beside other programs' load is measured again once the machine
    is quiet, at most QUIET_TRIES times, and a run's gate stops at its allowance."""
    loads = iter([0.9, 0.5, 0.0, 0.9, 0.9, 0.9, 0.9, 0.9])
    calls = []

    def fake_execute(task, identities=None):
        calls.append(task)
        return runner.Outcome("ok", other_load=next(loads))

    monkeypatch.setattr(runner, "execute", fake_execute)
    gate = runner.QuietGate(allowance=3)
    gate.busy = lambda window: 0.0  # quiet at once: no waiting
    first = gate.measure("task", None)
    assert (first.other_load, first.remeasured, len(calls)) == (0.0, 2, 3)
    second = gate.measure("task", None)  # one attempt left in the allowance
    assert (second.other_load, second.remeasured, gate.remeasured) == (0.9, 1, 3)
    assert gate.allowance == 0
    third = gate.measure("task", None)
    assert third.remeasured == 0  # the allowance is spent: the loaded process stands
    failed = runner.QuietGate(allowance=5)
    monkeypatch.setattr(runner, "execute", lambda t, i=None: runner.Outcome("error", "x"))
    assert failed.measure("task", None).remeasured == 0  # a failure is not noise
