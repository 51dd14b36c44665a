"""Distributed runs (wirebench/distributed.py): a plan queued in a PostgreSQL store and
worked by several worker processes, each in a network namespace of its own with its own
host name where the machine allows it (unshare, as root), reaching the store through its
Unix socket; one of them killed at random points."""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from wirebench import cli, distributed, model
from wirebench.cells import Cell
from wirebench.store import Store

from .conftest import LAUNCH, PG_SOCKET

PLAN = ["--lib", "good", "--mode", "object", "--aa", "1", "--repeat", "4", "--no-limits"]
LEASE = "2"


def invoke(*args):
    return CliRunner().invoke(cli.main, list(args))


def can_unshare() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--net", "--uts", "true"]).returncode == 0


def socket_url(url: str) -> str:
    """The test database through the server's Unix socket: reachable from a worker in a
    network namespace of its own (a path, not a network address)."""
    name = url.rsplit("/", 1)[1]
    return f"postgresql://wirebench@/{name}?host={PG_SOCKET['dir']}&port={PG_SOCKET['port']}"


def start_worker(url: str, host: str, env=None, *args) -> subprocess.Popen:
    """`wirebench worker` with the fake driver, in a network and UTS namespace named
    `host` where the machine allows it (else by --host)."""
    argv = [sys.executable, "-c", LAUNCH, "worker", *args, "--db", socket_url(url)]
    if can_unshare():
        argv = ["unshare", "--net", "--uts", "--fork", "--kill-child", "--", "sh", "-c",
                f'hostname {host} && exec "$@"', "sh", *argv]  # fmt: skip
    else:
        argv += ["--host", host]
    return subprocess.Popen(
        argv,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def distribute(url: str, *extra) -> int:
    r = invoke("run", *PLAN, *extra, "--distribute", "--lease", LEASE, "--json", "--db", url)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["run"]


def finish(workers, timeout=180) -> list[str]:
    outputs = []
    for w in workers:
        out, _ = w.communicate(timeout=timeout)
        assert w.returncode == 0, out
        outputs.append(out)
    return outputs


def processes(url, run_id) -> list[tuple[str, int, str]]:
    store = Store(url)
    rows = store.db.execute(
        "SELECT key, rep, status, host FROM processes WHERE run_id = ?", (run_id,)
    ).fetchall()
    return [(r["key"], r["rep"], r["status"], r["host"]) for r in rows]


def single_machine(fake, tmp_path) -> tuple[dict, list]:
    db = str(tmp_path / "one.db")
    r = invoke("run", *PLAN, "--json", "--db", db)
    assert r.exit_code == 0, r.output
    store = Store(db)
    procs = store.db.execute("SELECT key, rep FROM processes").fetchall()
    return {c["key"]: c["status"] for c in store.cells(1)}, sorted(
        (p["key"], p["rep"]) for p in procs
    )


def test_three_workers_finish_the_plan_as_one_machine_would(fake, postgres_url, tmp_path):
    run_id = distribute(postgres_url)
    # Declared identical: the report checks that before it pools them.
    workers = [start_worker(postgres_url, f"w{i}", None, "--class", "same") for i in (1, 2, 3)]
    outputs = finish(workers)
    store = Store(postgres_url)
    assert store.run(run_id)["status"] == "complete"
    cells, procs = single_machine(fake, tmp_path)
    mine = {c["key"]: c["status"] for c in store.cells(run_id)}
    assert mine == cells and set(mine.values()) == {"ok"}
    stored = processes(postgres_url, run_id)
    # Every process of the plan, once, each checked, each with the machine it ran on.
    assert sorted((k, r) for k, r, _, _ in stored) == procs
    assert {s for _, _, s, _ in stored} == {"ok"}
    assert {h for *_, h in stored} <= {"w1", "w2", "w3"}
    assert {h["host"] for h in store.hosts(run_id)} == {"w1", "w2", "w3"}
    # A unit (a comparison group of a round) ran on one machine.
    for label, rows in _by_unit(store, run_id, stored).items():
        assert len({h for *_, h in rows}) == 1, label
    assert all("no work left" in out for out in outputs)
    r = invoke("runs", "--db", postgres_url)
    assert "w1: " in r.output and "units done" in r.output and "queued: 0 units" in r.output
    # The host is a factor of every table: each cell once per host it ran on.
    report = json.loads(invoke("report", "--json", "--db", postgres_url).stdout)
    used = {h for *_, h in stored}
    [check] = [t for t in report["tables"] if t["title"].startswith("Hosts declared identical")]
    assert check["rows"][0][:2] == ["same", "w1, w2, w3"]
    # Pooled if the check holds; with 4 rounds over 3 hosts it may lack the processes.
    hosts = {"same"} if check["rows"][0][-1] == "pooled as one" else used
    assert {c["params"].get("host") for c in report["cells"]} == hosts
    titles = [t["title"] for t in report["tables"]]
    assert {t.rsplit("[host ", 1)[1][:-1] for t in titles if "[host " in t} == hosts
    assert any(t.startswith("Cross-host") for t in titles) == (len(hosts) > 1)
    assert any(t.startswith("Fleet: 4 units of work") for t in titles)
    assert invoke("site", str(tmp_path / "site"), "--db", postgres_url).exit_code == 0
    index = (tmp_path / "site" / "index.html").read_text()
    assert "each worker&#39;s units of work" in index or "each worker's units of work" in index


def _by_unit(store, run_id, stored):
    plan = store.plan(run_id)
    units = plan.units()
    at = {(k, r): h for k, r, _, h in stored}
    return {
        label: [(t.cell.key, rep, at[t.cell.key, rep]) for rep, t, _ in tasks]
        for label, tasks in units
    }


def test_a_killed_worker_loses_nothing_and_its_work_is_done_once(fake, postgres_url):
    run_id = distribute(postgres_url)
    slow = {"FAKE_SLEEP": "0.05"}  # processes of some 0.3 s: a kill lands inside one
    steady = [start_worker(postgres_url, f"w{i}", slow) for i in (1, 2)]
    store = Store(postgres_url)
    rng, kills, said = random.Random(27), 0, []
    while store.units_left(run_id) and kills < 3:
        before = _leases(store, run_id, "w3")
        victim = start_worker(postgres_url, "w3", slow)
        deadline = time.monotonic() + 60
        # Killed at a random point of a unit it holds (its processes, its storing).
        while _leases(store, run_id, "w3") == before and time.monotonic() < deadline:
            if victim.poll() is not None or not store.units_left(run_id):
                break
            time.sleep(0.05)
        time.sleep(rng.uniform(0, 0.5))
        if victim.poll() is None:
            os.killpg(victim.pid, signal.SIGKILL)
            victim.wait()
            # A kill counts if it found this worker inside a unit it leased.
            kills += any(
                (u["unit"], u["attempts"]) not in before for u in _held(store, run_id, "w3")
            )
        said.append(victim.communicate()[0])
    said += finish(steady)
    assert kills >= 1
    assert store.run(run_id)["status"] == "complete"
    stored = processes(postgres_url, run_id)
    keys = [(k, r) for k, r, _, _ in stored]
    assert len(keys) == len(set(keys)) == sum(e.processes for e in store.plan(run_id).entries)
    assert {s for _, _, s, _ in stored} == {"ok"}
    assert {c["status"] for c in store.cells(run_id)} == {"ok"}
    units = store.units(run_id)
    assert {u["status"] for u in units} == {"done"}
    # A unit redone ran whole on one machine: no comparison group split across two.
    for label, rows in _by_unit(store, run_id, stored).items():
        assert len({h for *_, h in rows}) == 1, label
    # Each kill in the middle of a unit put it back once, and it was taken once more.
    requeued = sum(out.count("back in the queue") for out in said)
    assert requeued == kills == sum(u["attempts"] - 1 for u in units)


def _held(store, run_id, host) -> list:
    return [u for u in store.units(run_id) if u["host"] == host and u["status"] == "leased"]


def _leases(store, run_id, host) -> set[tuple[int, int]]:
    return {(u["unit"], u["attempts"]) for u in store.units(run_id) if u["host"] == host}


def test_a_worker_whose_drivers_differ_refuses_the_run_by_name(fake, postgres_url):
    run_id = distribute(postgres_url)
    [out] = finish([start_worker(postgres_url, "w9", {"FAKE_VERSION": "2.0"})])
    assert f"refuses run {run_id}" in out
    assert "driver fake versions.fake: the run's '1.0', here '2.0'" in out
    assert Store(postgres_url).units_left(run_id) > 0  # nothing taken


def test_a_worker_that_cannot_reach_the_store_says_so_and_backs_off():
    said = []
    worker = distributed.Worker("postgresql://wirebench@127.0.0.1:1/none", say=said.append)
    with pytest.raises(distributed.DistributedError, match="cannot reach the store"):
        worker.connect(give_up_after=3.5)
    assert [s.rsplit("retrying in ", 1)[1] for s in said] == ["1 s", "2 s"]


def test_a_distributed_run_needs_a_shared_store(fake, tmp_path):
    r = invoke("run", *PLAN, "--distribute", "--db", str(tmp_path / "w.db"))
    assert r.exit_code == 2
    assert "a distributed run needs a store every worker reaches" in r.output


def _cell_on(host: str, medians: list[float]) -> model.CellResult:
    cell = Cell.make("rpc", "carsales", "fake", "good", {"host": host})
    m = model.MetricData("time", "ns", "samples", 1, {i: [v] for i, v in enumerate(medians)})
    return model.CellResult(cell, "ok", None, 1, {"time": m}, None, None)


def test_hosts_declared_identical_are_checked_as_an_aa_test():
    rng = random.Random(5)

    def host(name, scale):
        return _cell_on(name, [scale * rng.gauss(100, 1) for _ in range(8)])

    alike = [host("a", 1.0), host("b", 1.0)]
    apart = [host("a", 1.0), host("c", 1.2)]
    classes = {"a": "x", "b": "x", "c": "x"}
    [check] = model.class_checks(alike * 1, {"a": "x", "b": "x"})
    assert check.holds and check.tests == 1
    [check] = model.class_checks(apart, classes)
    assert not check.holds and check.differ == 1


def test_resume_of_a_distributed_run_works_it_here(fake, postgres_url):
    run_id = distribute(postgres_url)
    r = invoke("run", "--resume", str(run_id), "--json", "--db", postgres_url)
    assert r.exit_code == 0, r.output
    assert "working it here as one of its workers" in r.output
    store = Store(postgres_url)
    assert store.run(run_id)["status"] == "complete"
    assert {u["status"] for u in store.units(run_id)} == {"done"}
    assert {h for *_, h in processes(postgres_url, run_id)} == {distributed.host_name()}
