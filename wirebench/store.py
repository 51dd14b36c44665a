"""Results in a database: runs with their provenance and plan, cells, processes, and the
named metrics of every process. SQLite (a file, the default) or PostgreSQL (a
`postgresql://` URL, for many machines writing to one store).

A process row and its metrics are written and committed together the moment a driver
process finishes, and a cell row is completed (with the status its suite judged) the
moment its last process does, so a run killed at any point (Ctrl-C, kill -9) loses
nothing that finished, and `--resume` runs only what is missing.

Every run has a uid, so that `merge` can copy runs between stores (another machine's
file into a shared one) without duplicating any: a run the destination has gains only
the processes it lacks.

The schema has a version (SQLite: `PRAGMA user_version`; PostgreSQL: the table
`wirebench_schema`); opening an older SQLite database migrates it in one transaction,
and a newer one is refused by name. The two backends differ only in `_Sqlite` and
`_Postgres` below: placeholders, column types, how the version is kept.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import uuid
from pathlib import Path

from .cells import Plan

SCHEMA_VERSION = 7
LOCK_WAIT_S = 60.0


def is_database_error(e: BaseException) -> bool:
    """Whether a database raised e because it cannot read or write (full disk, I/O
    error, lost server), whichever backend. psycopg is imported only for a URL: an error
    of it can only come once it is."""
    psycopg = sys.modules.get("psycopg")
    return isinstance(e, sqlite3.Error) or (psycopg is not None and isinstance(e, psycopg.Error))


# A distributed run's units of work (distributed.py) and the machines that worked it.
DISTRIBUTED_SCHEMA = """
CREATE TABLE units (
    run_id INTEGER NOT NULL,
    unit INTEGER NOT NULL,             -- its index in Plan.units
    label TEXT NOT NULL,               -- the round and the comparison group it measures
    status TEXT NOT NULL,              -- queued | leased | done
    host TEXT,                         -- the worker that leased or did it last
    attempts INTEGER NOT NULL,         -- leases taken: more than 1 is work redone
    failed INTEGER NOT NULL,           -- its processes that failed their checks
    leased TEXT, finished TEXT,
    PRIMARY KEY (run_id, unit)
);
CREATE TABLE hosts (
    run_id INTEGER NOT NULL,
    host TEXT NOT NULL,
    hw_class TEXT,                     -- hosts the fleet declares identical share one
    provenance TEXT NOT NULL,          -- JSON: as the run's, of this machine
    joined TEXT NOT NULL,
    PRIMARY KEY (run_id, host)
);
"""

SCHEMA = (
    """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    finished TEXT,
    status TEXT NOT NULL,              -- running | complete | interrupted
    profile TEXT NOT NULL,
    command TEXT NOT NULL,             -- the full command line
    plan TEXT NOT NULL,                -- JSON: cells.Plan
    uid TEXT NOT NULL,                 -- the run in every store it is copied to
    provenance TEXT NOT NULL           -- JSON: git, host, CPU, kernel, governor, drivers
);
CREATE UNIQUE INDEX runs_uid ON runs (uid);
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
    layout INTEGER,                    -- the layout variant its driver ran (plan.layouts)
    server_layout INTEGER,             -- and the server's, for a pipe cell
    host TEXT,                         -- the worker's machine (distributed runs only)
    remeasured INTEGER,                -- attempts the quiet gate set aside before this one
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
    + DISTRIBUTED_SCHEMA
)


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


def _migrate_3_to_4(db: sqlite3.Connection) -> None:
    """Version 4 gives every run a uid, so that stores can be merged. An older run's uid is
    made from what it is (start, command, plan, provenance), so that two copies of one
    file, migrated apart, still name its runs alike."""
    db.execute("ALTER TABLE runs ADD COLUMN uid TEXT")
    rows = db.execute("SELECT id, started, command, plan, provenance FROM runs").fetchall()
    for run_id, *what in rows:
        uid = uuid.uuid5(uuid.NAMESPACE_URL, "wirebench-run:" + "\0".join(what))
        db.execute("UPDATE runs SET uid = ? WHERE id = ?", (str(uid), run_id))
    db.execute("CREATE UNIQUE INDEX runs_uid ON runs (uid)")


def _migrate_4_to_5(db: sqlite3.Connection) -> None:
    """Version 5 records which layout variant of its driver each process ran (variant 0,
    the only one before, for older rows)."""
    db.execute("ALTER TABLE processes ADD COLUMN layout INTEGER")
    db.execute("ALTER TABLE processes ADD COLUMN server_layout INTEGER")
    db.execute("UPDATE processes SET layout = 0")


def _migrate_5_to_6(db) -> None:
    """Version 6 has distributed runs: each process's host (NULL: the run's own machine)
    and the runs' units of work and hosts. Plain SQL: a PostgreSQL store migrates too."""
    db.execute("ALTER TABLE processes ADD COLUMN host TEXT")
    for statement in _statements(DISTRIBUTED_SCHEMA):
        db.execute(statement)


def _migrate_6_to_7(db) -> None:
    """Version 7 counts, per process, the attempts the quiet gate measured again because
    other programs kept the machine busy (runner.QuietGate; NULL: no gate)."""
    db.execute("ALTER TABLE processes ADD COLUMN remeasured INTEGER")


MIGRATIONS = {
    1: _migrate_1_to_2,
    2: _migrate_2_to_3,
    3: _migrate_3_to_4,
    4: _migrate_4_to_5,
    5: _migrate_5_to_6,
    6: _migrate_6_to_7,
}


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class StoreError(RuntimeError):
    """The database cannot be used by this version of wirebench."""


def is_url(target) -> bool:
    return re.match(r"postgres(ql)?://", str(target)) is not None


def display_name(target) -> str:
    """A store's name for messages: its path, or its URL without the password."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", str(target))


class _Sqlite:
    """SQLite: the embedded default. WAL, so that readers never wait for the writer."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        # Another run writing to the same file holds its lock for one process's rows at a
        # time: wait for it rather than fail with "database is locked".
        self.con = sqlite3.connect(path, isolation_level=None, timeout=LOCK_WAIT_S)
        self.con.row_factory = sqlite3.Row
        self.con.execute("PRAGMA journal_mode=WAL")

    def execute(self, sql: str, params=()):
        return self.con.execute(sql, params)

    def executemany(self, sql: str, rows):
        return self.con.executemany(sql, rows)

    begin = "BEGIN IMMEDIATE"  # take the write lock now, not at the first write

    def version(self) -> int:
        return self.execute("PRAGMA user_version").fetchone()[0]

    def set_version(self, version: int) -> None:
        self.execute(f"PRAGMA user_version = {version}")

    def is_empty(self) -> bool:
        tables = {r[0] for r in self.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return "runs" not in tables

    def schema(self) -> list[str]:
        return _statements(SCHEMA)

    def close(self) -> None:
        self.con.close()


class _Postgres:
    """PostgreSQL: one store for many machines. Autocommit with explicit transactions, as
    SQLite is used; `?` placeholders become psycopg's `%s`; integers are 64-bit (times in
    ns) and reals double."""

    def __init__(self, url: str):
        import psycopg
        from psycopg.rows import dict_row

        self.con = psycopg.connect(url, autocommit=True, row_factory=dict_row, connect_timeout=10)

    def execute(self, sql: str, params=()):
        return self.con.execute(sql.replace("?", "%s"), params)

    def executemany(self, sql: str, rows):
        with self.con.cursor() as cur:
            cur.executemany(sql.replace("?", "%s"), rows)

    begin = "BEGIN ISOLATION LEVEL SERIALIZABLE"

    def version(self) -> int:
        found = self.execute("SELECT to_regclass('wirebench_schema') AS t").fetchone()["t"]
        if found is None:
            return 0
        return self.execute("SELECT version FROM wirebench_schema").fetchone()["version"]

    def set_version(self, version: int) -> None:
        self.execute("CREATE TABLE IF NOT EXISTS wirebench_schema (version INTEGER NOT NULL)")
        self.execute("DELETE FROM wirebench_schema")
        self.execute("INSERT INTO wirebench_schema VALUES (?)", (version,))

    def is_empty(self) -> bool:
        return self.execute("SELECT to_regclass('runs') AS t").fetchone()["t"] is None

    def schema(self) -> list[str]:
        identity = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
        text = SCHEMA.replace("INTEGER PRIMARY KEY AUTOINCREMENT", identity)
        text = re.sub(r"\bINTEGER\b", "BIGINT", text)
        text = re.sub(r"\bREAL\b", "DOUBLE PRECISION", text)
        return _statements(text)

    def close(self) -> None:
        self.con.close()


def writable(target) -> bool:
    """Whether this process may write the store: a URL is the server's to say; a file
    needs itself (if it exists) and its folder (SQLite's -wal and -shm files) writable."""
    if is_url(target):
        return True
    path = Path(target)
    folder = next((p for p in (path.parent, *path.parents) if p.exists()), Path("/"))
    if not path.exists():
        return os.access(folder, os.W_OK)
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


class Store:
    def __init__(self, target: Path | str, readonly: bool = False):
        """A store at a file path or a `postgresql://` URL. `readonly` (a merge's source):
        SQLite opens the file read-only, and an older schema is migrated in a temporary
        copy, never in the user's file."""
        self.name = display_name(target)
        self.path = None if is_url(target) else Path(target)
        self._copy = None
        if self.path is not None and readonly:
            if not self.path.is_file():
                raise StoreError(f"{self.path} does not exist")
            self._copy = tempfile.TemporaryDirectory(prefix="wirebench-merge-")
            copy = Path(self._copy.name) / self.path.name
            shutil.copyfile(self.path, copy)
            for suffix in ("-wal", "-shm"):  # what a live writer has not checkpointed
                if Path(f"{self.path}{suffix}").exists():
                    shutil.copyfile(f"{self.path}{suffix}", f"{copy}{suffix}")
            target = copy
        self.db = _Postgres(str(target)) if self.path is None else _Sqlite(Path(target))
        if readonly and self._is_foreign():
            raise StoreError(f"{self.name} is not a wirebench database (it has no runs)")
        self._upgrade()

    def _is_foreign(self) -> bool:
        try:
            return self.db.version() == 0 and self.db.is_empty()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.name} is not a wirebench database: {e}") from e

    @contextlib.contextmanager
    def _transaction(self):
        self.db.execute(self.db.begin)
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _upgrade(self) -> None:
        try:
            version = self.db.version()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.name} is not a wirebench database: {e}") from e
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.name} has schema version {version}, written by a newer wirebench; "
                f"this one reads versions up to {SCHEMA_VERSION}"
            )
        if version == SCHEMA_VERSION:
            return
        with self._transaction():
            # Again under the write lock: a second wirebench may have created or migrated
            # the schema since the first look (two runs started at once on a new file).
            version = self.db.version()
            if version == SCHEMA_VERSION:
                return
            if version == 0 and self.db.is_empty():
                for statement in self.db.schema():
                    self.db.execute(statement)
            elif isinstance(self.db, _Postgres):
                if version < 5:  # a PostgreSQL store began at version 5
                    raise StoreError(f"{self.name} has tables but no wirebench schema version")
                for v in range(version, SCHEMA_VERSION):
                    MIGRATIONS[v](self.db)
            else:
                # Version 0 with tables is the first schema, which had no version number.
                version = max(version, 1)
                while version < SCHEMA_VERSION:
                    MIGRATIONS[version](self.db.con)
                    version += 1
            self.db.set_version(SCHEMA_VERSION)

    def close(self) -> None:
        self.db.close()
        if self._copy is not None:
            self._copy.cleanup()

    # -- runs -----------------------------------------------------------------------
    def create_run(self, profile: str, command: str, plan: Plan, provenance: dict) -> int:
        with self._transaction():
            run_id = self.db.execute(
                "INSERT INTO runs (started, status, profile, command, plan, provenance, uid) "
                "VALUES (?, 'running', ?, ?, ?, ?, ?) RETURNING id",
                (
                    _now(),
                    profile,
                    command,
                    json.dumps(plan.to_json()),
                    json.dumps(provenance),
                    str(uuid.uuid4()),
                ),
            ).fetchone()["id"]
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
            # A process run again (resume of a stored failure) replaces the stored one.
            self.db.execute(
                "DELETE FROM processes WHERE run_id = ? AND key = ? AND rep = ?", (run_id, key, rep)
            )
            self.db.execute(
                "INSERT INTO processes (run_id, key, rep, status, error, wall_ns, "
                "user_ns, sys_ns, max_rss_kb, result, command, finished, steal_ns, other_load, "
                "layout, server_layout, host, remeasured) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    outcome.layout,
                    outcome.server_layout,
                    outcome.host,
                    getattr(outcome, "remeasured", 0),
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

    def layouts(self, run_id: int) -> dict[str, dict[int, int]]:
        """The layout variant each process of each cell ran: key -> rep -> variant."""
        rows = self.db.execute(
            "SELECT key, rep, layout FROM processes WHERE run_id = ? AND layout IS NOT NULL",
            (run_id,),
        )
        out: dict[str, dict[int, int]] = {}
        for r in rows:
            out.setdefault(r["key"], {})[r["rep"]] = r["layout"]
        return out

    def process_hosts(self, run_id: int) -> dict[str, dict[int, str]]:
        """The host each process of a distributed run ran on: key -> rep -> host."""
        rows = self.db.execute(
            "SELECT key, rep, host FROM processes WHERE run_id = ? AND host IS NOT NULL",
            (run_id,),
        )
        out: dict[str, dict[int, str]] = {}
        for r in rows:
            out.setdefault(r["key"], {})[r["rep"]] = r["host"]
        return out

    def remeasured(self, run_id: int) -> tuple[int, int]:
        """The quiet gate's work in a run: processes it measured again, and the attempts
        it set aside."""
        row = self.db.execute(
            "SELECT COUNT(*) AS n, SUM(remeasured) AS tries FROM processes "
            "WHERE run_id = ? AND remeasured > 0",
            (run_id,),
        ).fetchone()
        return int(row["n"] or 0), int(row["tries"] or 0)

    def mean_walls(self, run_id: int) -> dict[str, float]:
        """Each cell's mean wall time per process so far, in seconds."""
        rows = self.db.execute(
            "SELECT key, AVG(wall_ns) / 1e9 AS s FROM processes WHERE run_id = ? "
            "AND wall_ns > 0 GROUP BY key",
            (run_id,),
        )
        return {r["key"]: float(r["s"]) for r in rows}  # PostgreSQL: a Decimal

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

    # -- distributed runs (distributed.py) ------------------------------------------------
    def set_provenance(self, run_id: int, provenance: dict) -> None:
        self.db.execute(
            "UPDATE runs SET provenance = ? WHERE id = ?", (json.dumps(provenance), run_id)
        )

    def add_units(self, run_id: int, labels: list[str]) -> None:
        self.db.executemany(
            "INSERT INTO units (run_id, unit, label, status, attempts, failed) "
            "VALUES (?, ?, ?, 'queued', 0, 0)",
            [(run_id, i, label) for i, label in enumerate(labels)],
        )

    def open_distributed_runs(self) -> list:
        """The runs with units not yet done, oldest first."""
        return self.db.execute(
            "SELECT * FROM runs r WHERE EXISTS (SELECT 1 FROM units u WHERE u.run_id = r.id "
            "AND u.status <> 'done') ORDER BY r.id"
        ).fetchall()

    def add_host(self, run_id: int, host: str, hw_class: str | None, provenance: dict) -> None:
        """A worker's machine joins a run (again: its latest provenance)."""
        with self._transaction():
            self.db.execute("DELETE FROM hosts WHERE run_id = ? AND host = ?", (run_id, host))
            self.db.execute(
                "INSERT INTO hosts VALUES (?, ?, ?, ?, ?)",
                (run_id, host, hw_class, json.dumps(provenance), _now()),
            )

    def hosts(self, run_id: int) -> list:
        return self.db.execute(
            "SELECT * FROM hosts WHERE run_id = ? ORDER BY host", (run_id,)
        ).fetchall()

    def lease_unit(self, run_id: int, unit: int, host: str) -> None:
        self.db.execute(
            "UPDATE units SET status = 'leased', host = ?, attempts = attempts + 1, leased = ? "
            "WHERE run_id = ? AND unit = ?",
            (host, _now(), run_id, unit),
        )

    def requeue_unit(self, run_id: int, unit: int) -> None:
        self.db.execute(
            "UPDATE units SET status = 'queued' WHERE run_id = ? AND unit = ? "
            "AND status = 'leased'",
            (run_id, unit),
        )

    def finish_unit(self, run_id: int, unit: int, failed: int) -> None:
        self.db.execute(
            "UPDATE units SET status = 'done', failed = ?, finished = ? "
            "WHERE run_id = ? AND unit = ?",
            (failed, _now(), run_id, unit),
        )

    def units(self, run_id: int) -> list:
        return self.db.execute(
            "SELECT * FROM units WHERE run_id = ? ORDER BY unit", (run_id,)
        ).fetchall()

    def unit_progress(self, run_id: int) -> dict:
        """A distributed run's units by the worker that did or holds each ({host: {done,
        leased, failed (units with a failed process), redone (taken more than once)}}), and
        how many wait in the queue."""
        workers: dict[str, dict[str, int]] = {}
        queued = 0
        for u in self.units(run_id):
            if u["status"] == "queued":
                queued += 1
                continue
            w = workers.setdefault(
                u["host"], dict.fromkeys(("done", "leased", "failed", "redone"), 0)
            )
            w[u["status"]] += 1
            w["failed"] += u["failed"] > 0
            w["redone"] += u["attempts"] > 1
        return {"workers": workers, "queued": queued}

    def units_left(self, run_id: int) -> int:
        return self._count(
            "SELECT COUNT(*) AS n FROM units WHERE run_id = ? AND status <> 'done'", run_id
        )

    def units_queued(self, run_id: int) -> int:
        return self._count(
            "SELECT COUNT(*) AS n FROM units WHERE run_id = ? AND status = 'queued'", run_id
        )

    def cell_failed(self, run_id: int, key: str) -> bool:
        row = self.db.execute(
            "SELECT status FROM cells WHERE run_id = ? AND key = ?", (run_id, key)
        ).fetchone()
        return row is not None and row["status"] == "error"

    def _count(self, sql: str, *params) -> int:
        return int(self.db.execute(sql, params).fetchone()["n"])


# -- merging stores ----------------------------------------------------------------------

CELL_RESULT = ("status", "error", "cpu_ns", "max_rss_kb", "finished", "steal", "other_load")
PROCESS_FIELDS = [
    "key",
    "rep",
    "status",
    "error",
    "wall_ns",
    "user_ns",
    "sys_ns",
    "max_rss_kb",
    "result",
    "command",
    "finished",
    "steal_ns",
    "other_load",
    "layout",
    "server_layout",
    "host",
    "remeasured",
]
PROCESS_COLUMNS = ", ".join(PROCESS_FIELDS)


def merge(source: Store, dest: Store) -> list[tuple[int, int, bool, int, int]]:
    """Copies every run of source into dest, each in one transaction: a run dest lacks
    (by uid) under a new id with all its cells, processes and metrics; a run dest has
    gains the processes (with their metrics) it lacks, and its cells and the run itself
    take the source's state where the source has more (a run resumed after it was
    copied). Nothing is copied twice. Returns (source id, dest id, new, cells, processes
    copied) per run."""
    done = []
    for run in source.db.execute("SELECT * FROM runs ORDER BY id").fetchall():
        src = run["id"]
        with dest._transaction():
            mine = dest.db.execute("SELECT id FROM runs WHERE uid = ?", (run["uid"],)).fetchone()
            new = mine is None
            if new:
                cols = ("started", "finished", "status", "profile", "command", "plan")
                run_id = dest.db.execute(
                    f"INSERT INTO runs ({', '.join(cols)}, provenance, uid) VALUES "
                    f"({', '.join('?' * (len(cols) + 2))}) RETURNING id",
                    (*(run[c] for c in cols), run["provenance"], run["uid"]),
                ).fetchone()["id"]
            else:
                run_id = mine["id"]
            have = dest.done_processes(run_id)
            procs = [
                p
                for p in source.db.execute(
                    f"SELECT {PROCESS_COLUMNS} FROM processes WHERE run_id = ?", (src,)
                ).fetchall()
                if (p["key"], p["rep"]) not in have
            ]
            dest.db.executemany(
                f"INSERT INTO processes (run_id, {PROCESS_COLUMNS}) "
                f"VALUES ({', '.join('?' * (1 + len(PROCESS_FIELDS)))})",
                [(run_id, *(p[c] for c in PROCESS_FIELDS)) for p in procs],
            )
            copied = {(p["key"], p["rep"]) for p in procs}
            metrics = source.db.execute("SELECT * FROM metrics WHERE run_id = ?", (src,))
            dest.db.executemany(
                "INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        run_id,
                        m["key"],
                        m["rep"],
                        m["name"],
                        m["unit"],
                        m["kind"],
                        m["iters"],
                        m["data"],
                    )
                    for m in metrics.fetchall()
                    if (m["key"], m["rep"]) in copied
                ],
            )
            cells = _merge_cells(source, dest, src, run_id, new, have)
            _merge_fleet(source, dest, src, run_id)
            if not new and run["status"] == "complete":
                dest.db.execute(
                    "UPDATE runs SET status = ?, finished = ?, plan = ? WHERE id = ?",
                    (run["status"], run["finished"], run["plan"], run_id),
                )
        done.append((src, run_id, new, cells, len(procs)))
    return done


def _merge_cells(source: Store, dest: Store, src: int, run_id: int, new: bool, had: set) -> int:
    """A new run's cells, or an existing run's cells brought up to the source's state:
    a cell the source finished and dest has not, or with more processes in the source
    than dest had (`had`: its processes before the copy)."""
    rows = source.db.execute("SELECT * FROM cells WHERE run_id = ?", (src,)).fetchall()
    if new:
        cols = [c for c in rows[0].keys() if c != "run_id"] if rows else []  # noqa: SIM118 (a Row iterates values)
        quoted = ", ".join(f'"{c}"' for c in cols)
        dest.db.executemany(
            f"INSERT INTO cells (run_id, {quoted}) VALUES ({', '.join('?' * (len(cols) + 1))})",
            [(run_id, *(r[c] for c in cols)) for r in rows],
        )
        return len(rows)
    counts: dict[str, int] = {}
    for key, _ in had:
        counts[key] = counts.get(key, 0) + 1
    theirs = {
        r["key"]: r["n"]
        for r in source.db.execute(
            "SELECT key, COUNT(*) AS n FROM processes WHERE run_id = ? GROUP BY key", (src,)
        ).fetchall()
    }
    current = {
        r["key"]: r for r in dest.db.execute("SELECT * FROM cells WHERE run_id = ?", (run_id,))
    }
    changed = 0
    for r in rows:
        ours = current.get(r["key"])
        behind = ours is None or ours["status"] == "pending" and r["status"] != "pending"
        if behind or theirs.get(r["key"], 0) > counts.get(r["key"], 0):
            dest.db.execute(
                "UPDATE cells SET reps = ?, "
                + ", ".join(f"{c} = ?" for c in CELL_RESULT)
                + " WHERE run_id = ? AND key = ?",
                (r["reps"], *(r[c] for c in CELL_RESULT), run_id, r["key"]),
            )
            changed += 1
    return changed


def _merge_fleet(source: Store, dest: Store, src: int, run_id: int) -> None:
    """A distributed run's hosts and units that dest lacks, and the units the source has
    done and dest has not."""
    hosts = {h["host"] for h in dest.hosts(run_id)}
    dest.db.executemany(
        "INSERT INTO hosts VALUES (?, ?, ?, ?, ?)",
        [
            (run_id, h["host"], h["hw_class"], h["provenance"], h["joined"])
            for h in source.hosts(src)
            if h["host"] not in hosts
        ],
    )
    ours = {u["unit"]: u for u in dest.units(run_id)}
    cols = ("label", "status", "host", "attempts", "failed", "leased", "finished")
    for u in source.units(src):
        if u["unit"] not in ours:
            dest.db.execute(
                f"INSERT INTO units (run_id, unit, {', '.join(cols)}) VALUES "
                f"({', '.join('?' * (len(cols) + 2))})",
                (run_id, u["unit"], *(u[c] for c in cols)),
            )
        elif u["status"] == "done" and ours[u["unit"]]["status"] != "done":
            dest.db.execute(
                f"UPDATE units SET {', '.join(f'{c} = ?' for c in cols)} "
                "WHERE run_id = ? AND unit = ?",
                (*(u[c] for c in cols), run_id, u["unit"]),
            )


def _statements(script: str) -> list[str]:
    return [s.strip() + ";" for s in script.split(";") if s.strip()]
