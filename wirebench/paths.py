"""Where things are: the checkout, and the file system a path lies on.

The bottom floor of the harness (tests/test_structure.py): it imports nothing of
wirebench.
"""

from __future__ import annotations

import contextlib
import fcntl
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout (drivers/, docs/, results/)
RESULTS = ROOT / "results"  # the default store, fixtures and generated data (ignored)
DOCS = ROOT / "docs"


def mount_of(path: Path) -> dict:
    """The file system holding `path` (its nearest existing ancestor): mount point, type
    and device, from /proc/mounts."""
    p = path
    while not p.exists():
        p = p.parent
    p = p.resolve()
    best = {"mount": "/", "fs": "?", "device": "?"}
    try:
        lines = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return best
    for line in lines:
        device, mount, fs, *_ = line.split()
        if (p == Path(mount) or Path(mount) in p.parents) and len(mount) >= len(best["mount"]):
            best = {"mount": mount, "fs": fs, "device": device}
    return best


@contextlib.contextmanager
def locked(path: Path):
    """An exclusive lock on a file, across processes (flock: the kernel drops it with the
    process that held it, however that process died)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
