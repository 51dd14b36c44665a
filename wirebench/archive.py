"""A stored run as a file to commit beside the documents made from it (docs/data/): the
run's rows (the run, its cells, its processes with the drivers' results, its metrics) as
JSON, gzip'd without a timestamp so that the same run always gives the same bytes, and
back into a store of its own, where every report and table reads it as it read the
original. `wirebench publish` writes one; `wirebench results` reads them.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

from .store import PROCESS_FIELDS, Store

FORMAT = 1
TABLES = ("cells", "processes", "metrics")


def write(store: Store, run_id: int, path: Path, code_tree: str | None = None) -> str:
    """The run `run_id` of `store` into `path`; returns the run's uid. `code_tree`: the
    drivers' code at the run's revision (env.code_tree), kept in its provenance's git
    entry, so that a document can say whether the measured drivers are the checkout's
    without the revision's history."""
    run = dict(store.run(run_id))
    if code_tree:
        prov = json.loads(run["provenance"] or "{}")
        prov.setdefault("git", {})["code_tree"] = code_tree
        run["provenance"] = json.dumps(prov, sort_keys=True)
    data = {"format": FORMAT, "run": {k: v for k, v in run.items() if k != "id"}}
    for table in TABLES:
        rows = store.db.execute(
            f"SELECT * FROM {table} WHERE run_id = ? ORDER BY key"
            + (", rep" if table != "cells" else "")
            + (", name" if table == "metrics" else ""),
            (run_id,),
        ).fetchall()
        data[table] = [{k: r[k] for k in r.keys() if k != "run_id"} for r in rows]  # noqa: SIM118 (a Row iterates values)
    text = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
        z.write(text)
    return run["uid"]


class ArchiveError(ValueError):
    pass


def _load(path: Path) -> dict:
    try:
        data = json.loads(gzip.decompress(Path(path).read_bytes()))
    except (OSError, ValueError) as e:
        raise ArchiveError(f"{path}: not a wirebench run archive ({e})") from None
    if data.get("format") != FORMAT:
        raise ArchiveError(f"{path}: archive format {data.get('format')!r}, expected {FORMAT}")
    return data


def uid(path: Path) -> str:
    """The uid of the run archived in `path`."""
    return _load(path)["run"]["uid"]


def read(path: Path) -> tuple[Store, int]:
    """A store (a temporary SQLite file) holding the archived run, and the run's id."""
    data = _load(path)
    where = tempfile.TemporaryDirectory(prefix="wirebench-archive-")
    store = Store(Path(where.name) / "run.db")
    store.scratch = where  # removed with the store
    run = data["run"]
    cols = sorted(run)
    with store._transaction():
        run_id = store.db.execute(
            f"INSERT INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
            "RETURNING id",
            [run[c] for c in cols],
        ).fetchone()["id"]
        for table in TABLES:
            rows = data[table]
            if not rows:
                continue
            names = PROCESS_FIELDS if table == "processes" else sorted(rows[0])
            quoted = ", ".join(f'"{c}"' for c in names)
            marks = ", ".join("?" * (len(names) + 1))
            store.db.executemany(
                f"INSERT INTO {table} (run_id, {quoted}) VALUES ({marks})",
                [(run_id, *(r.get(c) for c in names)) for r in rows],
            )
    return store, run_id
