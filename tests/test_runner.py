"""The runner against the fake driver: every way a driver can fail becomes an error."""

import pytest

from wirebench import runner
from wirebench.matrix import Cell

from .conftest import FAKE


def task(lib, mode="object", timeout=20.0, iters=5, samples=3):
    params = {"mode": mode, "compression": "none", "reuse": "reuse"}
    if mode == "pipe":
        params["placement"] = "one-core"
    cell = Cell.make("rpc", "carsales", "fake", lib, params, "fake" if mode == "pipe" else None)
    return runner.Task(
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
    outcome = runner.execute(task("good", mode))
    assert outcome.ok, outcome.error
    assert outcome.result["samples_ns"] == [5000, 5037, 5074]
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
    outcome = runner.execute(task(lib))
    assert not outcome.ok
    assert reason in outcome.error


def test_a_longer_warmup_is_accepted_and_the_server_must_have_served_it(monkeypatch):
    # The JVM driver warms up until its JIT settles: more than asked, and its server
    # answers those requests too.
    monkeypatch.setenv("FAKE_EXTRA_WARMUP", "7")
    outcome = runner.execute(task("good", "pipe"))
    assert outcome.ok, outcome.error
    assert outcome.result["warmup"] == 8
    assert outcome.server["requests"] == 8 + 5 * 3
    with pytest.raises(runner.ResultError, match="answered 16 requests, expected 23"):
        runner.check_server(task("good", "pipe"), {**outcome.server, "requests": 16}, 8)


def test_hanging_driver_is_killed_at_the_timeout():
    outcome = runner.execute(task("hang", timeout=0.5))
    assert not outcome.ok
    assert "timed out after 0.5 s" in outcome.error


def test_hanging_client_of_a_pipe_kills_both_processes():
    outcome = runner.execute(task("hang", mode="pipe", timeout=0.5))
    assert "timed out" in outcome.error


def test_check_result_refuses_inconsistent_results():
    t = task("good")
    good = {
        "protocol": 1,
        "suite": "rpc",
        "case": "carsales",
        "lib": "good",
        "params": t.cell.driver_params,
        "iters": 5,
        "warmup": 1,
        "verified": True,
        "samples_ns": [1, 2, 3],
        "bytes": [9, 9, 9],
        "responses_checked": 16,
        "check": [runner.expected_check(t.cell, 5)] * 3,
    }
    runner.check_result(t, good)
    for change, reason in [
        ({"samples_ns": [1, 2]}, "list of 3 integers"),
        ({"samples_ns": [1, 0, 3]}, "below 1"),
        ({"bytes": [9, 9, 8]}, "different byte counts"),
        ({"responses_checked": 4}, "fewer than"),
        ({"protocol": 2}, "protocol version"),
        ({"iters": 6}, "iters"),
        ({"warmup": 0}, "fewer than the 1 asked"),
        ({"warmup": None}, "warmed up None"),
    ]:
        with pytest.raises(runner.ResultError, match=reason):
            runner.check_result(t, {**good, **change})


def test_expected_check_uses_the_committed_digests():
    cell = Cell.make("rpc", "eval", "x", "y", {"mode": "object"})
    assert runner.expected_check(cell, 20) == -6440618294
    limit = Cell.make("limit", "memcpy", "x", "memcpy", {"block": "1MiB"})
    assert runner.expected_check(limit, 3) == 1 << 20


def test_placement_pins_processes():
    pipe = task("good", "pipe").cell
    client, server = runner.cpus_for(pipe)
    assert client == server and len(client) == 1
    two = Cell.make("rpc", "carsales", "a", "b", {"mode": "pipe", "placement": "two-cores"})
    client, server = runner.cpus_for(two)
    assert len(client) == 1
    unpinned = Cell.make("rpc", "carsales", "a", "b", {"mode": "pipe", "placement": "unpinned"})
    assert runner.cpus_for(unpinned) == (None, None)


def test_iters_sizes_rpc_cells_and_memcpy_keeps_its_byte_budget():
    from wirebench import catalog

    rpc = Cell.make("rpc", "eval", "x", "capnp", {"mode": "object"})
    big = Cell.make("limit", "memcpy", "x", "memcpy", {"block": "64MiB"})
    plan = runner.make_plan([rpc, big], catalog.PROFILES["quick"], iters=2000)
    assert [e["iters"] for e in plan["cells"]] == [2000, 4]  # 256 MiB in 64 MiB blocks
