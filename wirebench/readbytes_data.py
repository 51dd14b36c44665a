"""The readbytes suite's data file (docs/workloads.md §8): made by the harness, checked
before any cell reads it, and the page-cache states the suite can promise on it.

The file is the protobuf encoding of `Shop { repeated int32 id = 1; }` with the ids
0 .. 2,999,999, not packed: each id is the tag byte 0x08 and the id as a varint.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import mmap
import os
from functools import cache
from pathlib import Path

from .paths import RESULTS

IDS = 3_000_000
TAG = 0x08  # field 1, wire type 0 (varint)
SIZE = 12_886_336
PASSES = 10  # passes over the file per sample, the seed's
# What one pass produces, by case (the seed's check values are these times 10).
PER_PASS = {
    "count": SIZE,
    "sum": 1_457_733_664,  # the bytes' sum plus their count
    "varint": IDS * (IDS - 1) // 2,  # the ids' sum, 4,499,998,500,000
}
SHA256 = "2e86c49a79fa1405fc6756242a6e45033659e9337b2d16897ab6470de1d87c79"
DATA_DIR = RESULTS / "data" / "readbytes"
FILE_NAME = "shop-ids.pb"


class DataError(RuntimeError):
    """The data file cannot be made, or is not what docs/workloads.md says."""


def encode(ids: range = range(IDS)) -> bytes:
    out = bytearray()
    for i in ids:
        out.append(TAG)
        while i >= 0x80:
            out.append((i & 0x7F) | 0x80)
            i >>= 7
        out.append(i)
    return bytes(out)


def check(path: Path) -> None:
    """Raises DataError unless `path` holds exactly the data of §8: its size, the
    published sum, and the digest of what encode() makes."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise DataError(f"{path}: cannot be read: {e.strerror}") from None
    if len(data) != SIZE:
        raise DataError(f"{path}: {len(data):,} bytes, expected {SIZE:,}")
    total = sum(data) + len(data)
    if total != PER_PASS["sum"]:
        raise DataError(
            f"{path}: bytes sum to {total:,} with the count, expected {PER_PASS['sum']:,}"
        )
    if hashlib.sha256(data).hexdigest() != SHA256:
        raise DataError(f"{path}: the bytes differ from docs/workloads.md §8 (SHA-256)")


def write(path: Path) -> None:
    """Makes the file beside its final name, syncs it (a dirty page cannot be dropped
    from the cache, which the cold cells need) and renames it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(encode())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def data_file() -> Path:
    """The checked data file in DATA_DIR, made first if it is missing or wrong."""
    return _checked(DATA_DIR)


@cache  # once per directory and process
def _checked(directory: Path) -> Path:
    path = directory / FILE_NAME
    if path.exists():
        try:
            check(path)
            return path
        except DataError:
            pass  # made by an older or interrupted harness: make it again
    write(path)
    check(path)
    return path


def warm(path: Path) -> None:
    """Reads the file once, so a warm cell's first pass finds it in the page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def resident_pages(path: Path) -> tuple[int, int]:
    """(pages of the file in the page cache, pages of the file), by mincore(2)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size = path.stat().st_size
    pages = -(-size // mmap.PAGESIZE)
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), f"mmap of {path} failed")
        try:
            vec = (ctypes.c_ubyte * pages)()
            if libc.mincore(ctypes.c_void_p(addr), size, vec) != 0:
                raise OSError(ctypes.get_errno(), f"mincore of {path} failed")
            return sum(v & 1 for v in vec), pages
        finally:
            libc.munmap(ctypes.c_void_p(addr), size)
    finally:
        os.close(fd)


def drop(path: Path) -> None:
    """What a cold cell's driver does before every pass: POSIX_FADV_DONTNEED."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


@cache
def cold_refusal(path: Path) -> str | None:
    """Why this machine cannot promise a cold page cache for `path` (None: it can). The
    proof: after the drop that the drivers do, mincore finds none of the file's pages."""
    try:
        warm(path)
        drop(path)
        left, pages = resident_pages(path)
    except OSError as e:
        return f"the page cache of {path} cannot be inspected: {e}"
    if left:
        return (
            f"{left} of the {pages} pages of {path} stay in the page cache after "
            "POSIX_FADV_DONTNEED (a file system that keeps them, such as tmpfs)"
        )
    return None
