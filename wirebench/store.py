"""Results in SQLite: runs with their provenance and plan, cells, processes, and the named
metrics of every process.

A process row and its metrics are written and committed together the moment a driver
process finishes, and a cell row is completed (with the status its suite judged) the
moment its last process does, so a run killed at any point (Ctrl-C, kill -9) loses
nothing that finished, and `--resume` runs only what is missing.

The schema has a version (`PRAGMA user_version`); opening an older database migrates it
in one transaction, and a newer one is refused by name.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3
from pathlib import Path

from .cells import Plan

SCHEMA_VERSION = 3

SCHEMA = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    finished TEXT,
    status TEXT NOT NULL,              -- running | complete | interrupted
    profile TEXT NOT NULL,
    command TEXT NOT NULL,             -- the full command line
    plan TEXT NOT NULL,                -- JSON: cells.Plan
    provenance TEXT NOT NULL           -- JSON: git, host, CPU, kernel, governor, drivers
);
CREATE TABLE cells (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    key TEXT NOT NULL,
    suite TEXT NOT NULL, "case" TEXT NOT NULL, lang TEXT NOT NULL, lib TEXT NOT NULL,
    server_lang TEXT,
    params TEXT NOT NULL,              -- JSON object
    iters INTEGER NOT NULL, samples INTEGER NOT NULL, warmup INTEGER NOT NULL,
    reps INTEGER NOT NULL,
    status TEXT NOT NULL,              -- pending | ok | error: judged by the cell's suite
    error TEXT,
    cpu_ns INTEGER,                    -- user+sys of every process of the cell
    max_rss_kb INTEGER,                -- largest peak RSS of any of its processes
    finished TEXT,
    toolchain TEXT,                    -- NULL: the language's primary driver
    steal REAL,                        -- largest share of a process's wall time stolen
    other_load REAL,                   -- largest other load (CPUs) while a process ran
    PRIMARY KEY (run_id, key)
);
CREATE TABLE processes (
    run_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    rep INTEGER NOT NULL,
    status TEXT NOT NULL,              -- ok | error
    error TEXT,
    wall_ns INTEGER, user_ns INTEGER, sys_ns INTEGER, max_rss_kb INTEGER,
    result TEXT,                       -- JSON: the driver's result (and the server's)
    command TEXT,                      -- the exact command line(s)
    finished TEXT NOT NULL,
    steal_ns INTEGER,                  -- the hypervisor's steal on the process's CPUs
    other_load REAL,                   -- other programs' CPU use while it ran, in CPUs
    PRIMARY KEY (run_id, key, rep)
);
CREATE TABLE metrics (
    run_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    rep INTEGER NOT NULL,
    name TEXT NOT NULL,
    unit TEXT NOT NULL,
    kind TEXT NOT NULL,                -- samples | scalar | histogram
    iters INTEGER,                     -- samples: iterations each sample covers
    data TEXT NOT NULL,                -- JSON: the samples, the value, or the base64 histogram
    PRIMARY KEY (run_id, key, rep, name)
);
"""


def _migrate_1_to_2(db: sqlite3.Connection) -> None:
    """Version 1 (wirebench before suites were plug-ins) kept one samples_ns and one bytes
    list per process and a copy of them per cell. They become the metrics `time` and
    `bytes`; cells gain a toolchain; the copies go."""
    db.execute(next(s for s in _statements(SCHEMA) if s.startswith("CREATE TABLE metrics")))
    rows = db.execute(
        "SELECT p.run_id, p.key, p.rep, p.samples_ns, p.bytes, c.iters FROM processes p "
        "JOIN cells c ON c.run_id = p.run_id AND c.key = p.key WHERE p.status = 'ok'"
    ).fetchall()
    for run_id, key, rep, samples_ns, sizes, iters in rows:
        for name, unit, data in (("time", "ns", samples_ns), ("bytes", "B", sizes)):
            if data is not None:
                db.execute(
                    "INSERT INTO metrics VALUES (?, ?, ?, ?, ?, 'samples', ?, ?)",
                    (run_id, key, rep, name, unit, iters, data),
                )
    db.execute("ALTER TABLE cells ADD COLUMN toolchain TEXT")
    for table, column in (
        ("cells", "samples_ns"),
        ("cells", "bytes"),
        ("processes", "samples_ns"),
        ("processes", "bytes"),
        ("processes", '"check"'),
    ):
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")


def _migrate_2_to_3(db: sqlite3.Connection) -> None:
    """Version 3 records the machine's noise: each process's steal and other load, and
    their worst per cell. Older rows have none (NULL: not recorded)."""
    for table, column, kind in (
        ("processes", "steal_ns", "INTEGER"),
        ("processes", "other_load", "REAL"),
        ("cells", "steal", "REAL"),
        ("cells", "other_load", "REAL"),
    ):
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


MIGRATIONS = {1: _migrate_1_to_2, 2: _migrate_2_to_3}  # from version N to N + 1


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class StoreError(RuntimeError):
    """The database cannot be used by this version of wirebench."""


class Store:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self._upgrade()

    @contextlib.contextmanager
    def _transaction(self):
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _upgrade(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, written by a newer wirebench; "
                f"this one reads versions up to {SCHEMA_VERSION}"
            )
        if version == SCHEMA_VERSION:
            return
        with self._transaction():
            tables = {
                r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if version == 0 and "runs" not in tables:
                for statement in _statements(SCHEMA):
                    self.db.execute(statement)
            else:
                # Version 0 with tables is the first schema, which had no version number.
                version = max(version, 1)
                while version < SCHEMA_VERSION:
                    MIGRATIONS[version](self.db)
                    version += 1
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    # -- runs -----------------------------------------------------------------------
    def create_run(self, profile: str, command: str, plan: Plan, provenance: dict) -> int:
        with self._transaction():
            cur = self.db.execute(
                "INSERT INTO runs (started, status, profile, command, plan, provenance) "
                "VALUES (?, 'running', ?, ?, ?, ?)",
                (_now(), profile, command, json.dumps(plan.to_json()), json.dumps(provenance)),
            )
            run_id = cur.lastrowid
            for e in plan.entries:
                cell = e.cell
                self.db.execute(
                    'INSERT INTO cells (run_id, key, suite, "case", lang, toolchain, lib, '
                    "server_lang, params, iters, samples, warmup, reps, status) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
                    (
                        run_id,
                        cell.key,
                        cell.suite,
                        cell.case,
                        cell.lang,
                        cell.toolchain,
                        cell.lib,
                        cell.server_lang,
                        json.dumps(cell.param),
                        e.iters,
                        e.samples,
                        e.warmup,
                        e.reps,
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

    def plan(self, run_id: int) -> Plan:
        return Plan.from_json(json.loads(self.run(run_id)["plan"]))

    def grow_plan(self, run_id: int, plan: Plan) -> None:
        """Stores a plan that gave cells more processes (adaptive repetition), before they
        run, so that `--resume` finishes it."""
        with self._transaction():
            self.db.execute(
                "UPDATE runs SET plan = ? WHERE id = ?", (json.dumps(plan.to_json()), run_id)
            )
            self.db.executemany(
                "UPDATE cells SET reps = ? WHERE run_id = ? AND key = ?",
                [(e.reps, run_id, e.cell.key) for e in plan.entries],
            )

    def runs(self) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT r.*, "
            "(SELECT COUNT(*) FROM cells c WHERE c.run_id = r.id) AS n_cells, "
            "(SELECT COUNT(*) FROM cells c WHERE c.run_id = r.id AND c.status = 'ok') AS n_ok, "
            "(SELECT COUNT(*) FROM cells c WHERE c.run_id = r.id AND c.status = 'error') "
            "AS n_error FROM runs r ORDER BY r.id"
        ).fetchall()

    # -- processes, metrics and cells ----------------------------------------------------
    def done_processes(self, run_id: int) -> set[tuple[str, int]]:
        rows = self.db.execute("SELECT key, rep FROM processes WHERE run_id = ?", (run_id,))
        return {(r["key"], r["rep"]) for r in rows}

    def add_process(self, run_id: int, key: str, rep: int, outcome) -> None:
        """Stores one finished process (a runner.Outcome) and its metrics, at once."""
        with self._transaction():
            self.db.execute(
                "INSERT OR REPLACE INTO processes (run_id, key, rep, status, error, wall_ns, "
                "user_ns, sys_ns, max_rss_kb, result, command, finished, steal_ns, other_load) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    key,
                    rep,
                    outcome.status,
                    outcome.error,
                    outcome.wall_ns,
                    outcome.user_ns,
                    outcome.sys_ns,
                    outcome.max_rss_kb,
                    json.dumps({"client": outcome.result, "server": outcome.server}),
                    " | ".join(outcome.commands),
                    _now(),
                    outcome.steal_ns,
                    outcome.other_load,
                ),
            )
            self.db.execute(
                "DELETE FROM metrics WHERE run_id = ? AND key = ? AND rep = ?", (run_id, key, rep)
            )
            for m in outcome.metrics.values() if outcome.ok else ():
                data = {"samples": list(m.samples), "scalar": m.value, "histogram": m.histogram}
                self.db.execute(
                    "INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (run_id, key, rep, m.name, m.unit, m.kind, m.iters, json.dumps(data[m.kind])),
                )

    def results(self, run_id: int) -> list[dict]:
        """Every verified process's driver results: {"client": ..., "server": ...}."""
        rows = self.db.execute(
            "SELECT result FROM processes WHERE run_id = ? AND status = 'ok'", (run_id,)
        ).fetchall()
        return [json.loads(r["result"]) for r in rows if r["result"]]

    def processes(self, run_id: int, key: str) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT * FROM processes WHERE run_id = ? AND key = ? ORDER BY rep", (run_id, key)
        ).fetchall()

    def mean_walls(self, run_id: int) -> dict[str, float]:
        """Each cell's mean wall time per process so far, in seconds."""
        rows = self.db.execute(
            "SELECT key, AVG(wall_ns) / 1e9 AS s FROM processes WHERE run_id = ? "
            "AND wall_ns > 0 GROUP BY key",
            (run_id,),
        )
        return {r["key"]: r["s"] for r in rows}

    def metrics(self, run_id: int) -> list[sqlite3.Row]:
        """The metrics of every process that passed its checks, in round order."""
        return self.db.execute(
            "SELECT m.* FROM metrics m JOIN processes p ON p.run_id = m.run_id "
            "AND p.key = m.key AND p.rep = m.rep WHERE m.run_id = ? AND p.status = 'ok' "
            "ORDER BY m.key, m.name, m.rep",
            (run_id,),
        ).fetchall()

    def finish_cell(self, run_id: int, key: str, status: str, error: str | None) -> None:
        """Completes a cell with the status its suite judged, and its processes' costs."""
        procs = self.processes(run_id, key)
        stolen = [p["steal_ns"] / p["wall_ns"] for p in procs if p["steal_ns"] and p["wall_ns"]]
        loads = [p["other_load"] for p in procs if p["other_load"] is not None]
        self.db.execute(
            "UPDATE cells SET status = ?, error = ?, cpu_ns = ?, max_rss_kb = ?, finished = ?, "
            "steal = ?, other_load = ? WHERE run_id = ? AND key = ?",
            (
                status,
                error,
                sum((p["user_ns"] or 0) + (p["sys_ns"] or 0) for p in procs),
                max((p["max_rss_kb"] or 0 for p in procs), default=None),
                _now(),
                max(stolen, default=0.0 if procs else None),
                max(loads, default=None),
                run_id,
                key,
            ),
        )

    def cells(self, run_id: int) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM cells WHERE run_id = ?", (run_id,)).fetchall()


def _statements(script: str) -> list[str]:
    return [s.strip() + ";" for s in script.split(";") if s.strip()]
