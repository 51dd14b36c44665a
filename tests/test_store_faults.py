"""The store under faults: two runs on one file at once, kill -9 at random points again
and again, a full disk, a read-only file, an older schema on a read-only disk. After each,
no finished process is lost or stored twice, and no stored row is corrupt.

The disk faults are real: a tmpfs too small for the run, a read-only bind mount, made in
a mount namespace of the test's own (unshare), so that the test needs no privilege."""

import hashlib
import json
import os
import random
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wirebench import orchestrate
from wirebench.store import Store

from .conftest import LAUNCH, launch

FAKE_RUN = ["run", "--lang", "fake", "--iters", "2", "--samples", "2", "--no-limits"]
RESUME = ["run", "--resume", "1", "--no-report"]
DATA = Path(__file__).resolve().parent / "data"


def rows(db: Path) -> dict[tuple[str, int], tuple]:
    """Every stored process by (cell, rep): its status, result and finish time."""
    con = sqlite3.connect(db)
    try:
        return {
            (k, r): (s, res, f)
            for k, r, s, res, f in con.execute(
                "SELECT key, rep, status, result, finished FROM processes"
            )
        }
    finally:
        con.close()


def run_status(db: Path) -> str | None:
    """Run 1's status, None before it is stored."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT status FROM runs WHERE id = 1").fetchone()
        finally:
            con.close()
    except sqlite3.Error:  # no file yet, or no schema yet
        return None
    return row[0] if row else None


def rows_now(db: Path) -> dict:
    """rows(db), or none while the file or its schema does not exist yet."""
    try:
        return rows(db)
    except sqlite3.Error:
        return {}


def assert_consistent(db: Path) -> None:
    """What any reader of the store may rely on, at any moment."""
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        metrics = {}
        for run, key, rep, name in con.execute("SELECT run_id, key, rep, name FROM metrics"):
            metrics.setdefault((run, key, rep), set()).add(name)
        procs = con.execute(
            "SELECT run_id, key, rep, status, result, error FROM processes"
        ).fetchall()
        for run, key, rep, status, result, error in procs:
            if status == "ok":  # a verified process has its result and every metric
                assert json.loads(result)["client"]["verified"] is True
                assert metrics.get((run, key, rep)) == {"time", "bytes"}, (run, key, rep)
            else:  # a failed one has its reason and no number
                assert status == "error" and error and (run, key, rep) not in metrics
        assert set(metrics) <= {p[:3] for p in procs}  # no metric without its process
        for run, key, status, reps in con.execute("SELECT run_id, key, status, reps FROM cells"):
            mine = [p for p in procs if p[:2] == (run, key)]
            if status == "ok":
                assert len(mine) == reps and all(p[3] == "ok" for p in mine)
            elif status == "error":
                assert any(p[3] == "error" for p in mine)
    finally:
        con.close()


def test_two_runs_on_one_new_database_at_once_both_finish(tmp_path):
    db = tmp_path / "w.db"
    args = [*FAKE_RUN, "--lib", "good", "--mode", "object,pipe", "--repeat", "6", "--no-report"]
    first, second = (launch(args, db, env={"FAKE_SLEEP": "0.02"}) for _ in range(2))
    for harness in (first, second):
        _, err = harness.communicate(timeout=300)
        assert harness.returncode == 0, err
    store = Store(db)
    runs = store.runs()
    assert [(r["status"], r["n_cells"], r["n_ok"]) for r in runs] == [("complete", 2, 2)] * 2
    for r in runs:
        assert len(store.done_processes(r["id"])) == 12
    store.close()
    assert_consistent(db)


def test_kill_9_at_random_points_loses_nothing_and_stores_nothing_twice(tmp_path):
    """WIREBENCH_KILLS kills (12 by default) of a run of WIREBENCH_KILL_REPS processes per
    cell (8), each followed by --resume; docs/robustness.md records a long run."""
    kills = int(os.environ.get("WIREBENCH_KILLS", "12"))
    reps = int(os.environ.get("WIREBENCH_KILL_REPS", "8"))
    db = tmp_path / "w.db"
    args = [*FAKE_RUN, "--lib", "good,crash", "--mode", "object,pipe"]
    args += ["--repeat", str(reps), "--no-report"]
    rng = random.Random(20261128)
    seen: dict = {}
    survived = 0
    for i in range(kills):
        harness = launch(RESUME if run_status(db) else args, db)
        # The kill lands after 0 to 3 more processes are stored, then up to 0.3 s more:
        # between rows, while one is written, while a driver runs, whatever the machine's
        # speed. (The first harness is also killed, once in a while, before its run exists.)
        target = len(seen) + rng.randint(0, 3)
        while harness.poll() is None and len(rows_now(db)) < target:
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.3))
        harness.send_signal(signal.SIGKILL)
        harness.communicate()
        if not run_status(db):
            continue  # killed before the run was created
        now = rows(db)
        lost = {k: v for k, v in seen.items() if now.get(k) != v}
        assert not lost, f"kill {i + 1}: stored processes changed or vanished: {lost}"
        assert_consistent(db)
        seen = now
        if harness.returncode != -signal.SIGKILL:
            break  # the run ended before the kill: nothing left to kill
        survived += 1
    print(f"{survived} kills of a running harness survived, {len(seen)} processes stored")
    assert survived >= 1
    assert run_status(db), "no kill landed after the run started"
    done = launch(RESUME, db)
    _, err = done.communicate(timeout=300)
    assert done.returncode == 1, err  # finished, with the crash cells failed
    assert_consistent(db)
    final = rows(db)
    assert all(final[k] == v for k, v in seen.items())
    store = Store(db)
    cells = {(c["lib"], json.loads(c["params"])["mode"]): c for c in store.cells(1)}
    assert {k: c["status"] for k, c in cells.items()} == {
        ("good", "object"): "ok",
        ("good", "pipe"): "ok",
        ("crash", "object"): "error",
        ("crash", "pipe"): "error",
    }
    for c in cells.values():
        n = len(store.processes(1, c["key"]))
        assert n == (reps if c["lib"] == "good" else 1)
    assert store.run(1)["status"] == "complete"
    assert orchestrate.build_report(store, 1).errors
    store.close()


# -- real disk faults, in a mount namespace of the test's own -----------------------------


def in_namespace(script: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Runs a shell script as root of a new user and mount namespace: it may mount a
    tmpfs or a read-only bind over folders of the test, and nothing else sees them.
    `$WB` in the script runs wirebench with the fake driver."""
    wb = tmp_path / "wb"
    wb.write_text(f'#!/bin/sh\nexec {shlex.join([sys.executable, "-c", LAUNCH])} "$@"\n')
    wb.chmod(0o755)
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True
    )
    if probe.returncode != 0:
        pytest.skip(f"this machine allows no mount namespace: {probe.stderr.decode().strip()}")
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "bash", "-euo", "pipefail", "-c"]
        + [script],
        env={**os.environ, "WB": str(wb), "T": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_full_disk_stops_the_run_by_name_and_resume_finishes_it(tmp_path):
    (tmp_path / "disk").mkdir()
    # 256 KiB fill after some 7 processes; the rest are the resumed run's.
    n = 30
    run = [*FAKE_RUN, "--lib", "good", "--mode", "object", "--repeat", str(n), "--no-report"]
    script = f"""
        mount -t tmpfs -o size=256k tmpfs "$T/disk"
        set +e
        $WB {shlex.join(run)} --db "$T/disk/w.db" > "$T/full.out" 2> "$T/full.err"
        echo $? > "$T/full.code"
        set -e
        cp "$T"/disk/w.db* "$T/"  # what the full disk holds, for the test to read
        mkdir "$T/at-full" && cp "$T"/disk/w.db* "$T/at-full/"
        mount -o remount,size=64m "$T/disk"
        $WB run --resume 1 --no-report --db "$T/disk/w.db" > "$T/resume.out" 2> "$T/resume.err"
        rm "$T"/w.db* && cp "$T"/disk/w.db* "$T/"
    """
    done = in_namespace(script, tmp_path)
    assert done.returncode == 0, done.stderr + (tmp_path / "resume.err").read_text()
    err = " ".join((tmp_path / "full.err").read_text().split())
    assert (tmp_path / "full.code").read_text().strip() == "1"
    assert "the results database" in err and "database or disk is full" in err
    assert "--resume 1" in err and "Every process stored before is kept" in err
    at_full = rows(tmp_path / "at-full" / "w.db")
    assert 0 < len(at_full) < n
    assert_consistent(tmp_path / "at-full" / "w.db")
    final = rows(tmp_path / "w.db")
    assert len(final) == n and all(final[k] == v for k, v in at_full.items())
    assert_consistent(tmp_path / "w.db")
    store = Store(tmp_path / "w.db")
    assert store.run(1)["status"] == "complete"
    store.close()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_read_only_database_is_refused_for_runs_and_read_for_reports(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    # Two stores: one of this version, with a run; one of the first schema (migrated in a
    # copy to be read, since the file cannot change).
    db = ro / "w.db"
    done = launch(
        [*FAKE_RUN, "--lib", "good", "--mode", "object", "--repeat", "2", "--no-report"], db
    )
    assert done.wait(timeout=120) == 0, done.stderr.read()
    Store(db).close()  # checkpointed: no -wal left to need writing
    shutil.copy(DATA / "wirebench-v1.db", ro / "old.db")
    before = {p.name: _sha(p) for p in ro.iterdir()}
    script = """
        mount --bind "$T/ro" "$T/ro" && mount -o remount,bind,ro "$T/ro"
        for db in w old; do
          for cmd in "run --lang fake --lib good --mode object" "run --resume 1" \
                     report runs "export --format csv"; do
            name="$db-${cmd%% *}"; [[ $cmd == *resume* ]] && name="$db-resume"
            set +e
            $WB $cmd --db "$T/ro/$db.db" > "$T/$name.out" 2> "$T/$name.err"
            echo $? > "$T/$name.code"
            set -e
          done
        done
    """
    done = in_namespace(script, tmp_path)
    assert done.returncode == 0, done.stderr

    def result(name):
        out = (tmp_path / f"{name}.out").read_text()
        err = " ".join((tmp_path / f"{name}.err").read_text().split())
        return int((tmp_path / f"{name}.code").read_text()), out, err

    for db_name in ("w", "old"):
        for cmd in ("run", "resume"):
            code, _, err = result(f"{db_name}-{cmd}")
            assert code == 2 and f"{db_name}.db is read-only here" in err, err
        code, out, err = result(f"{db_name}-report")
        assert code == 0 and "carsales" in out, err
        code, out, err = result(f"{db_name}-runs")
        assert code == 0 and "complete" in out, err
        code, out, err = result(f"{db_name}-export")
        assert code == 0 and "carsales" in out, err
    assert {p.name: _sha(p) for p in ro.iterdir()} == before  # nothing was written
