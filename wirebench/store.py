"""Results in SQLite: runs with their provenance and plan, cells, and processes.

A process row is written and committed the moment a driver process finishes, and a cell
row is completed the moment its last process does, so a run killed at any point (Ctrl-C,
kill -9) loses nothing that finished, and `--resume` runs only what is missing.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

from .matrix import Cell

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    finished TEXT,
    status TEXT NOT NULL,              -- running | complete | interrupted | failed
    profile TEXT NOT NULL,
    command TEXT NOT NULL,             -- the full command line
    plan TEXT NOT NULL,                -- JSON: profile settings and the cells
    provenance TEXT NOT NULL           -- JSON: git, host, CPU, kernel, governor, versions
);
CREATE TABLE IF NOT EXISTS cells (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    key TEXT NOT NULL,
    suite TEXT NOT NULL, "case" TEXT NOT NULL, lang TEXT NOT NULL, lib TEXT NOT NULL,
    server_lang TEXT,
    params TEXT NOT NULL,              -- JSON object
    iters INTEGER NOT NULL, samples INTEGER NOT NULL, warmup INTEGER NOT NULL,
    reps INTEGER NOT NULL,
    status TEXT NOT NULL,              -- pending | ok | error
    error TEXT,
    samples_ns TEXT,                   -- JSON: one list of samples per process
    bytes INTEGER,                     -- bytes on the wire per sample
    cpu_ns INTEGER,                    -- user+sys of every process of the cell
    max_rss_kb INTEGER,                -- largest peak RSS of any of its processes
    finished TEXT,
    PRIMARY KEY (run_id, key)
);
CREATE TABLE IF NOT EXISTS processes (
    run_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    rep INTEGER NOT NULL,
    status TEXT NOT NULL,              -- ok | error
    error TEXT,
    samples_ns TEXT, bytes TEXT, "check" TEXT,  -- JSON lists, one entry per sample
    wall_ns INTEGER, user_ns INTEGER, sys_ns INTEGER, max_rss_kb INTEGER,
    result TEXT,                       -- JSON: the driver's result (and the server's)
    command TEXT,                      -- the exact command line(s)
    finished TEXT NOT NULL,
    PRIMARY KEY (run_id, key, rep)
);
"""


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class Store:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # -- runs -----------------------------------------------------------------------
    def create_run(self, profile: str, command: str, plan: dict, provenance: dict) -> int:
        with self.db:
            cur = self.db.execute(
                "INSERT INTO runs (started, status, profile, command, plan, provenance) "
                "VALUES (?, 'running', ?, ?, ?, ?)",
                (_now(), profile, command, json.dumps(plan), json.dumps(provenance)),
            )
            run_id = cur.lastrowid
            for c in plan["cells"]:
                cell = Cell.from_json(c["cell"])
                self.db.execute(
                    'INSERT INTO cells (run_id, key, suite, "case", lang, lib, server_lang, '
                    "params, iters, samples, warmup, reps, status) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
                    (
                        run_id,
                        cell.key,
                        cell.suite,
                        cell.case,
                        cell.lang,
                        cell.lib,
                        cell.server_lang,
                        json.dumps(cell.param),
                        c["iters"],
                        c["samples"],
                        c["warmup"],
                        c["reps"],
                    ),
                )
        return run_id

    def set_run_status(self, run_id: int, status: str) -> None:
        finished = None if status == "running" else _now()
        self.db.execute(
            "UPDATE runs SET status = ?, finished = ? WHERE id = ?", (status, finished, run_id)
        )

    def run(self, run_id: int | None = None) -> sqlite3.Row | None:
        if run_id is None:
            return self.db.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1").fetchone()
        return self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()

    def runs(self) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT r.*, "
            "(SELECT COUNT(*) FROM cells c WHERE c.run_id = r.id) AS n_cells, "
            "(SELECT COUNT(*) FROM cells c WHERE c.run_id = r.id AND c.status = 'ok') AS n_ok, "
            "(SELECT COUNT(*) FROM cells c WHERE c.run_id = r.id AND c.status = 'error') "
            "AS n_error FROM runs r ORDER BY r.id"
        ).fetchall()

    # -- processes and cells -------------------------------------------------------------
    def done_processes(self, run_id: int) -> set[tuple[str, int]]:
        rows = self.db.execute("SELECT key, rep FROM processes WHERE run_id = ?", (run_id,))
        return {(r["key"], r["rep"]) for r in rows}

    def add_process(self, run_id: int, key: str, rep: int, outcome) -> None:
        """Stores one finished process (a runner.Outcome) and commits at once."""
        r = outcome.result or {}
        self.db.execute(
            "INSERT OR REPLACE INTO processes (run_id, key, rep, status, error, samples_ns, "
            'bytes, "check", wall_ns, user_ns, sys_ns, max_rss_kb, result, command, finished) '
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                key,
                rep,
                outcome.status,
                outcome.error,
                json.dumps(r.get("samples_ns")) if outcome.ok else None,
                json.dumps(r.get("bytes")) if outcome.ok else None,
                json.dumps(r.get("check")) if outcome.ok else None,
                outcome.wall_ns,
                outcome.user_ns,
                outcome.sys_ns,
                outcome.max_rss_kb,
                json.dumps({"client": outcome.result, "server": outcome.server}),
                " | ".join(outcome.commands),
                _now(),
            ),
        )

    def results(self, run_id: int) -> list[dict]:
        """Every verified process's results: {"client": ..., "server": ...}."""
        rows = self.db.execute(
            "SELECT result FROM processes WHERE run_id = ? AND status = 'ok'", (run_id,)
        ).fetchall()
        return [json.loads(r["result"]) for r in rows if r["result"]]

    def processes(self, run_id: int, key: str) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT * FROM processes WHERE run_id = ? AND key = ? ORDER BY rep", (run_id, key)
        ).fetchall()

    def finish_cell(self, run_id: int, key: str) -> str:
        """Completes a cell from its process rows: ok if all are, else the first error."""
        procs = self.processes(run_id, key)
        errors = [p for p in procs if p["status"] != "ok"]
        ok = [p for p in procs if p["status"] == "ok"]
        status = "error" if errors else "ok"
        error = f"process {errors[0]['rep'] + 1}: {errors[0]['error']}" if errors else None
        bytes_ = json.loads(ok[0]["bytes"])[0] if ok else None
        self.db.execute(
            "UPDATE cells SET status = ?, error = ?, samples_ns = ?, bytes = ?, cpu_ns = ?, "
            "max_rss_kb = ?, finished = ? WHERE run_id = ? AND key = ?",
            (
                status,
                error,
                json.dumps([json.loads(p["samples_ns"]) for p in ok]),
                bytes_,
                sum((p["user_ns"] or 0) + (p["sys_ns"] or 0) for p in procs),
                max((p["max_rss_kb"] or 0 for p in procs), default=None),
                _now(),
                run_id,
                key,
            ),
        )
        return status

    def cells(self, run_id: int) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM cells WHERE run_id = ?", (run_id,)).fetchall()
