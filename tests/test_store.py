"""The store: every finished process is kept through Ctrl-C and kill -9; --resume ends it."""

import json
import signal
import sqlite3
import time

import pytest

from wirebench.store import Store

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
    assert cell["status"] == "ok" and len(json.loads(cell["samples_ns"])) == REPS


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
