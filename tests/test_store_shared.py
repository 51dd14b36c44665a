"""One store for many machines: the same store on PostgreSQL (a real server on loopback,
started by conftest's postgres_server), `wirebench runs` across machines, and `wirebench
merge` copying runs between stores without losing or duplicating anything."""

import json
import sqlite3

import pytest
from click.testing import CliRunner

from wirebench import cli, runner
from wirebench.cells import Cell, Plan, PlanEntry
from wirebench.protocol import Metric
from wirebench.store import SCHEMA_VERSION, Store

CELLS = [
    Cell.make("rpc", "eval", "cpp", lib, {"mode": "bytes", "reuse": "reuse", "build": "stock"})
    for lib in ("null", "capnp", "protobuf")
]


def invoke(*args):
    return CliRunner().invoke(cli.main, [str(a) for a in args])


def start(store, host="alpha", reps=2) -> int:
    plan = Plan("quick", 1, tuple(PlanEntry(c, 10, 2, 1, reps) for c in CELLS))
    prov = {"host": host, "cpu": f"{host} CPU", "cpus": 2, "git": {"revision": "abc"}}
    return store.create_run("quick", "wirebench run", plan, prov)


def finish(store, run_id, reps=range(2), cells=CELLS, wall=2**40):
    """Processes of the given rounds for the cells (times in ns beyond 32 bits), then each
    cell judged."""
    for c in cells:
        for rep in reps:
            outcome = runner.Outcome(
                "ok",
                result={"check": [1, 2]},
                metrics={"time": Metric("time", "ns", "samples", 10, (1000 + rep, 1010))},
                wall_ns=wall,
                user_ns=wall // 2,
                sys_ns=1,
                max_rss_kb=2000,
            )
            store.add_process(run_id, c.key, rep, outcome)
        runner.finish_cell(store, run_id, c)


def counts(target) -> dict:
    store = Store(target)
    tables = ("runs", "cells", "processes", "metrics")
    n = {t: store.db.execute(f"SELECT COUNT(*) AS n FROM {t}").fetchone()["n"] for t in tables}
    store.close()
    return n


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path):
    """A store of each kind: an SQLite file, or a database on the PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "shared.db")
    return request.getfixturevalue("postgres_url")


def test_a_store_keeps_runs_processes_and_metrics_alike_on_both_backends(target):
    store = Store(target)
    run_id = start(store)
    finish(store, run_id, reps=[0])
    assert store.done_processes(run_id) == {(c.key, 0) for c in CELLS}
    finish(store, run_id, reps=[0, 1])  # a process stored again replaces the first
    store.set_run_status(run_id, "complete")
    (row,) = store.runs()
    assert (row["n_cells"], row["n_ok"], row["status"]) == (3, 3, "complete")
    assert len(row["uid"]) == 36
    proc = store.processes(run_id, CELLS[0].key)[1]
    assert proc["wall_ns"] == 2**40 and proc["user_ns"] == 2**39  # 64-bit integers
    metrics = store.metrics(run_id)
    assert len(metrics) == 6 and json.loads(metrics[0]["data"]) == [1000, 1010]
    assert store.mean_walls(run_id)[CELLS[0].key] == pytest.approx(2**40 / 1e9)
    grown = store.plan(run_id)
    store.grow_plan(run_id, grown)
    assert [dict(c)["reps"] for c in store.cells(run_id)] == [2, 2, 2]


def test_runs_lists_every_machine_and_filters_by_host(target):
    store = Store(target)
    for host in ("alpha", "beta"):
        finish(store, start(store, host))
    r = invoke("runs", "--db", target)
    assert r.exit_code == 0, r.output
    assert "alpha (alpha CPU x2)" in r.output and "beta (beta CPU x2)" in r.output
    data = json.loads(invoke("runs", "--host", "beta", "--json", "--db", target).output)
    assert [(d["id"], d["host"], d["n_ok"]) for d in data] == [(2, "beta", 3)]


def test_a_run_of_the_fake_driver_goes_into_postgresql(fake, postgres_url):
    r = invoke("run", "--lib", "good", "--mode", "object", "--repeat", "2", "--db", postgres_url)
    assert r.exit_code == 0, r.output
    assert "report written to" in r.output
    data = json.loads(invoke("report", "--json", "--db", postgres_url).output)
    assert data["run"]["status"] == "complete"
    assert {c["status"] for c in data["cells"]} == {"ok"} and len(data["cells"]) > 1
    assert "1 " in invoke("runs", "--db", postgres_url).output
    r = invoke("export", "--format", "csv", "--db", postgres_url)
    assert r.exit_code == 0 and "rpc/carsales/fake/good" in r.output


def test_merge_copies_runs_once_and_then_only_what_is_missing(tmp_path, target):
    source = tmp_path / "machine-b.db"
    src = Store(source)
    finish(src, start(src, "beta"))
    partial = start(src, "beta", reps=3)
    finish(src, partial, reps=[0])
    src.close()
    dest = Store(target)
    finish(dest, start(dest, "alpha"))  # the store's own run keeps its id
    dest.close()
    r = invoke("merge", source, "--db", target)
    assert r.exit_code == 0, r.output
    assert "run 1 -> 2 (new: 3 cells, 6 processes)" in r.output
    assert "run 2 -> 3 (new: 3 cells, 3 processes)" in r.output
    once = counts(target)
    assert once == {"runs": 3, "cells": 9, "processes": 15, "metrics": 15}
    r = invoke("merge", source, "--db", target)
    assert "run 2 = 3 (already there: 0 new processes, 0 cells updated)" in r.output
    assert counts(target) == once
    # The source's partial run is finished there (a resume), then merged again: exactly
    # the missing processes come over, and the run and its cells take the new state.
    src = Store(source)
    finish(src, partial, reps=[1, 2])
    src.set_run_status(partial, "complete")
    src.close()
    r = invoke("merge", source, "--db", target)
    assert "run 2 = 3 (already there: 6 new processes, 3 cells updated)" in r.output
    assert counts(target) == {"runs": 3, "cells": 9, "processes": 21, "metrics": 21}
    store = Store(target)
    assert store.run(3)["status"] == "complete"
    assert {len(store.processes(3, c.key)) for c in CELLS} == {3}
    assert json.loads(invoke("runs", "--json", "--db", target).output)[2]["host"] == "beta"


def test_merge_leaves_the_source_as_it_is(tmp_path):
    source = tmp_path / "old.db"
    src = Store(source)
    finish(src, start(src))
    src.close()
    with sqlite3.connect(source) as con:  # as an older wirebench left it: schema 3
        con.execute("DROP INDEX runs_uid")
        con.execute("ALTER TABLE runs DROP COLUMN uid")
        con.execute("ALTER TABLE processes DROP COLUMN layout")
        con.execute("ALTER TABLE processes DROP COLUMN server_layout")
        con.execute("ALTER TABLE processes DROP COLUMN host")
        con.execute("ALTER TABLE processes DROP COLUMN remeasured")
        con.execute("DROP TABLE units")
        con.execute("DROP TABLE hosts")
        con.execute("PRAGMA user_version = 3")
    before = source.read_bytes()
    for dest in ("a.db", "b.db"):
        assert invoke("merge", source, "--db", tmp_path / dest).exit_code == 0
    assert source.read_bytes() == before
    # Migrated apart, in two copies, the run got the same uid: merging both adds it once.
    assert invoke("merge", tmp_path / "a.db", "--db", tmp_path / "b.db").exit_code == 0
    assert counts(str(tmp_path / "b.db"))["runs"] == 1


def test_merge_refuses_what_it_cannot_take(tmp_path):
    db = tmp_path / "w.db"
    finish(store := Store(db), start(store))
    store.close()
    (tmp_path / "notes.txt").write_text("not a database")
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as con:
        con.execute("CREATE TABLE things (x)")
    newer = tmp_path / "newer.db"
    with sqlite3.connect(newer) as con:
        con.execute("CREATE TABLE runs (id INTEGER)")
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    for source, message in (
        (tmp_path / "missing.db", "no results database at"),
        (db, "is the store itself: nothing to merge"),
        (tmp_path / "notes.txt", "file is not a database"),
        (foreign, "is not a wirebench database (it has no runs)"),
        (newer, f"has schema version {SCHEMA_VERSION + 1}, written by a newer wirebench"),
    ):
        r = invoke("merge", source, "--db", db)
        assert r.exit_code == 2 and message in " ".join(r.output.split()), (source, r.output)
    assert counts(str(db))["runs"] == 1


def test_an_unreachable_server_is_named_without_its_password():
    r = invoke("runs", "--db", "postgresql://wb:secret@127.0.0.1:1/nothing")
    assert r.exit_code == 2
    said = " ".join(r.output.split())
    assert "cannot open the results database postgresql://wb:***@127.0.0.1:1/nothing" in said
    assert "secret" not in r.output


def test_the_history_site_reads_a_postgresql_store(fake, postgres_url, tmp_path):
    for _ in range(2):
        r = invoke("run", "--lib", "good", "--mode", "object", "--no-report", "--db", postgres_url)
        assert r.exit_code == 0, r.output
    r = invoke("site", str(tmp_path / "site"), "--db", postgres_url)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "site" / "run-2" / "index.html").is_file()
    assert list((tmp_path / "site" / "history").glob("*.svg"))


def test_a_postgresql_store_of_schema_5_gains_the_distributed_tables(postgres_url):
    store = Store(postgres_url)
    finish(store, start(store))
    store.db.execute("ALTER TABLE processes DROP COLUMN host")
    store.db.execute("ALTER TABLE processes DROP COLUMN remeasured")
    store.db.execute("DROP TABLE units")
    store.db.execute("DROP TABLE hosts")
    store.db.set_version(5)
    store.close()
    again = Store(postgres_url)
    assert again.db.version() == SCHEMA_VERSION
    assert again.process_hosts(1) == {} and again.units(1) == [] and again.hosts(1) == []
    assert len(again.done_processes(1)) == 6
