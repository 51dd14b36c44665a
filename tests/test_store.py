"""The store: every finished process is kept through Ctrl-C and kill -9; --resume ends it."""

import re
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from wirebench import report, stats
from wirebench.store import SCHEMA_VERSION, Store, StoreError

from .conftest import launch

# Enough processes (0.4 s each) that the run cannot end before the test kills it, even on
# a loaded machine.
REPS = 20
ARGS = [
    "run",
    "--lang",
    "fake",
    "--lib",
    "good",
    "--mode",
    "object",
    "--iters",
    "3",
    "--samples",
    "2",
    "--repeat",
    str(REPS),
    "--no-limits",
    "--no-report",
]


def process_rows(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT key, rep, finished FROM processes ORDER BY key, rep").fetchall()
    finally:
        con.close()


def wait_for_rows(db, n, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            try:
                if len(process_rows(db)) >= n:
                    return
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} process rows after {timeout} s")


def test_kill_9_loses_nothing_and_resume_completes(tmp_path):
    db = tmp_path / "r.db"
    harness = launch(ARGS, db, env={"FAKE_SLEEP": "0.2"})
    wait_for_rows(db, 2)
    harness.send_signal(signal.SIGKILL)
    harness.wait()
    before = process_rows(db)
    assert 2 <= len(before) < REPS
    store = Store(db)
    run = store.run()
    assert run["status"] == "running"  # it never got to say otherwise
    store.close()

    resumed = launch(["run", "--resume", str(run["id"]), "--no-report"], db)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    after = process_rows(db)
    assert len(after) == REPS
    assert set(before) <= set(after)  # the rows from before the kill are untouched
    store = Store(db)
    assert store.run(run["id"])["status"] == "complete"
    (cell,) = store.cells(run["id"])
    assert cell["status"] == "ok"
    assert {(m["name"], m["rep"]) for m in store.metrics(run["id"])} == {
        (name, rep) for name in ("time", "bytes") for rep in range(REPS)
    }


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_kill_marks_the_run_interrupted(tmp_path, sig):
    db = tmp_path / "r.db"
    harness = launch(ARGS, db, env={"FAKE_SLEEP": "0.2"})
    wait_for_rows(db, 1)
    harness.send_signal(sig)
    out, err = harness.communicate(timeout=60)
    assert harness.returncode == 130
    assert "--resume 1" in err
    store = Store(db)
    assert store.run(1)["status"] == "interrupted"
    assert len(process_rows(db)) >= 1


def test_a_failing_cell_is_stored_and_the_run_goes_on(tmp_path):
    db = tmp_path / "r.db"
    harness = launch(
        [
            "run",
            "--lang",
            "fake",
            "--lib",
            "good,crash,liar",
            "--mode",
            "object",
            "--iters",
            "2",
            "--samples",
            "2",
            "--repeat",
            "2",
            "--no-report",
        ],
        db,
    )
    out, err = harness.communicate(timeout=120)
    assert harness.returncode == 1  # cells failed
    store = Store(db)
    cells = {c["lib"]: c for c in store.cells(1)}
    assert cells["good"]["status"] == "ok"
    assert "SIGSEGV" in cells["crash"]["error"]
    assert "wrong answers" in cells["liar"]["error"]
    assert store.run(1)["status"] == "complete"
    # A cell that failed once does not run its remaining processes.
    assert len(store.processes(1, cells["crash"]["key"])) == 1


DATA = Path(__file__).resolve().parent / "data"


def tables(markdown: str) -> list[list[str]]:
    """The table lines of a Markdown report, by table, without the reading notes."""
    out, current = [], None
    for line in markdown.splitlines():
        if line.startswith("## "):
            current = [line]
            out.append(current)
        elif line.startswith("|") and current is not None:
            current.append(line)
    return out


def test_a_database_of_the_first_schema_migrates_and_renders_as_before(tmp_path, fake):
    """tests/data/wirebench-v1.db was written by wirebench before suites were plug-ins
    (schema 1, no version number), with the fake driver; wirebench-v1.report.md is the
    report that version rendered from it. Its cells ran 3 processes: too few for the
    interval of a median that version printed, which now says so."""
    db = tmp_path / "old.db"
    shutil.copy(DATA / "wirebench-v1.db", db)
    store = Store(db)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    names = {(m["key"].split()[0], m["name"]) for m in store.metrics(1)}
    assert ("rpc/carsales/fake/good", "time") in names
    assert ("limit/memcpy/fake/memcpy", "bytes") in names
    markdown = report.markdown(report.build(store, 1))
    old = (DATA / "wirebench-v1.report.md").read_text()
    old = re.sub(r"\| [^|]+ - [^|]+ \|", f"| {stats.NO_INTERVAL} |", old)
    assert tables(markdown) == tables(old)
    assert "driver killed by SIGSEGV" in markdown  # errors survive too
    store.close()
    # Opening it again is a no-op, and it takes new runs.
    again = Store(db)
    assert len(again.runs()) == 1
    again.close()


def test_a_database_from_a_newer_wirebench_is_refused_by_name(tmp_path):
    db = tmp_path / "new.db"
    con = sqlite3.connect(db)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(StoreError, match=rf"new.db has schema version {SCHEMA_VERSION + 1}"):
        Store(db)
