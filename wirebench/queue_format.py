"""The wbq queue (docs/queue-format.md) in plain Python: the harness's own reader, the
reference when two languages disagree, and a small writer that the tests use to make
queues (and break them) without any driver.

Plain file reads, no mapping: the reader sees a queue at rest (its appender finished or
died), which is what the harness and the tests need."""

from __future__ import annotations

import fcntl
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = b"wbqueue1"
VERSION = 1
HEADER_SIZE = 64
CLOCKS = {1: "mono", 2: "tsc"}

WORKING = 1 << 63
ABANDONED = 1 << 62
END = 1 << 61
FLAGS = WORKING | ABANDONED | END
LENGTH = 0xFFFF_FFFF


class QueueError(ValueError):
    """A queue that cannot be read: the message names the file and the offset."""


def cycle_name(cycle: int) -> str:
    return f"{cycle:08d}.wbq"


def cycles(d: Path) -> list[int]:
    """The cycle numbers present, in order."""
    out = []
    for p in d.iterdir():
        stem, dot, ext = p.name.partition(".")
        if ext == "wbq" and dot and stem.isdigit() and len(stem) == 8:
            out.append(int(stem))
    return sorted(out)


def _pad8(n: int) -> int:
    return (n + 7) & ~7


@dataclass
class Tail:
    """What a tailer read: the protocol's `queue tail` answer, plus the values."""

    values: list[int] = field(default_factory=list)
    timestamps: list[int] = field(default_factory=list)
    entries: int = 0
    abandoned: int = 0
    stopped: str = "end"  # end | incomplete
    file: str | None = None  # where it stopped (None: no cycle file at all)
    offset: int | None = None
    clock: str | None = None

    def summary(self) -> dict:
        v = self.values
        total = (sum(v) + (1 << 63)) % (1 << 64) - (1 << 63)  # wrapping signed 64-bit
        return {
            "entries": self.entries,
            "longs": len(v),
            "first": v[0] if v else None,
            "last": v[-1] if v else None,
            "sum": total,
            "consecutive": all(b == a + 1 for a, b in zip(v, v[1:], strict=False)),
            "monotonic": all(
                b >= a for a, b in zip(self.timestamps, self.timestamps[1:], strict=False)
            ),
            "abandoned": self.abandoned,
            "stopped": self.stopped,
            "file": self.file,
            "offset": self.offset,
        }


def _check_header(path: Path, data: bytes, cycle: int) -> tuple[int, int]:
    """(file size, clock) of a cycle file, after checking every field of its header."""
    name = path.name
    if len(data) < HEADER_SIZE:
        raise QueueError(f"{name}: truncated at offset {len(data)}: shorter than its header")
    magic, version, hsize, size, number, clock = struct.unpack_from("<8sIIQQI", data)
    if magic != MAGIC:
        raise QueueError(f"{name} offset 0: bad magic {magic!r}, not a wbq cycle file")
    if version != VERSION:
        raise QueueError(f"{name} offset 8: format version {version}, this reader knows 1")
    if hsize != HEADER_SIZE:
        raise QueueError(f"{name} offset 12: header size {hsize}, expected {HEADER_SIZE}")
    if number != cycle:
        raise QueueError(f"{name} offset 24: cycle number {number}, the file's name says {cycle}")
    if clock not in CLOCKS:
        raise QueueError(f"{name} offset 32: unknown clock {clock}")
    if len(data) < size:
        raise QueueError(
            f"{name}: truncated: {len(data)} bytes, its header (offset 16) says {size}"
        )
    return size, clock


def read(d: Path | str) -> Tail:
    """Reads a queue at rest from its lowest cycle file to its end, or to an incomplete
    entry, checking every bound; a corrupt queue raises QueueError naming file and offset."""
    d = Path(d)
    present = cycles(d)
    tail = Tail()
    if not present:
        return tail
    cycle = present[0]
    clock = None
    while True:
        path = d / cycle_name(cycle)
        data = path.read_bytes()
        size, file_clock = _check_header(path, data, cycle)
        if clock is not None and file_clock != clock:
            raise QueueError(f"{path.name} offset 32: clock {file_clock}, earlier files {clock}")
        clock = file_clock
        tail.clock = CLOCKS[clock]
        p = HEADER_SIZE
        tail.file = path.name
        while True:
            tail.offset = p
            if p + 8 > size:
                raise QueueError(f"{path.name} offset {p}: no room for a header word")
            (word,) = struct.unpack_from("<Q", data, p)
            if word == 0:
                return tail
            flags, n = word & FLAGS, word & LENGTH
            if word & ~(FLAGS | LENGTH) or flags not in (0, WORKING, ABANDONED, END):
                raise QueueError(f"{path.name} offset {p}: corrupt header word {word:#018x}")
            if flags == END:
                if n:
                    raise QueueError(f"{path.name} offset {p}: END with a length ({n})")
                break
            if p + 16 + _pad8(n) + 8 > size:
                raise QueueError(
                    f"{path.name} offset {p}: an entry of {n} bytes runs past the file's room"
                )
            if flags == WORKING:
                tail.stopped = "incomplete"
                return tail
            if flags == ABANDONED:
                tail.abandoned += 1
            else:
                if n % 8:
                    raise QueueError(f"{path.name} offset {p}: length {n} is not whole longs")
                (ts,) = struct.unpack_from("<q", data, p + 8)
                tail.timestamps.append(ts)
                tail.values.extend(struct.unpack_from(f"<{n // 8}q", data, p + 16))
                tail.entries += 1
            p += 16 + _pad8(n)
        cycle += 1
        if not (d / cycle_name(cycle)).exists():
            tail.file, tail.offset = cycle_name(cycle), HEADER_SIZE
            return tail


class Writer:
    """A minimal appender for tests: plain writes, no mapping, no orderings to choose. It
    takes the queue's lock like every appender, and recovers a dead appender's entry."""

    def __init__(self, d: Path | str, cycle_size: int = 64 << 10, clock: int = 1):
        self.dir = Path(d)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.size, self.clock = cycle_size, clock
        self._lock = open(self.dir / "queue.lock", "a+")  # noqa: SIM115 (held while open)
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.seek(0)
            pid = self._lock.read().strip()
            self._lock.close()
            raise QueueError(f"queue {self.dir} already has an appender (pid {pid})") from None
        self._lock.truncate(0)
        self._lock.write(str(os.getpid()))
        self._lock.flush()
        for tmp in self.dir.glob("*.wbq.tmp"):
            tmp.unlink()
        present = cycles(self.dir)
        self.cycle = present[-1] if present else 0
        if not present:
            self._create(0)
        self.pos = self._recover()
        self.ts = 0

    def _path(self, cycle: int) -> Path:
        return self.dir / cycle_name(cycle)

    def _create(self, cycle: int) -> None:
        tmp = self.dir / (cycle_name(cycle) + ".tmp")
        with open(tmp, "xb") as f:
            f.truncate(self.size)
            header = (MAGIC, VERSION, HEADER_SIZE, self.size, cycle, self.clock)
            f.write(struct.pack("<8sIIQQI", *header))
        tmp.rename(self._path(cycle))

    def _word(self, pos: int, value: int | None = None) -> int:
        with open(self._path(self.cycle), "r+b") as f:
            f.seek(pos)
            if value is None:
                return struct.unpack("<Q", f.read(8))[0]
            f.write(struct.pack("<Q", value))
            return value

    def _recover(self) -> int:
        # An empty last file (a pretoucher's) means the append position is in the one
        # before it, if that one has not ended.
        previous = self.cycle > 0 and self._path(self.cycle - 1).exists()
        if previous and self._word(HEADER_SIZE) == 0:
            self.cycle -= 1
            pos = self._scan()
            if pos is not None:
                return pos
            self.cycle += 1
        pos = self._scan()
        if pos is None:  # the file ended: continue in the next
            self.cycle += 1
            if not self._path(self.cycle).exists():
                self._create(self.cycle)
            pos = HEADER_SIZE
        return pos

    def _scan(self) -> int | None:
        """The first free position of the current file (None: it ends in END), turning a
        dead appender's WORKING entry into ABANDONED on the way."""
        p = HEADER_SIZE
        while True:
            word = self._word(p)
            if word == 0:
                return p
            if word & END:
                return None
            if word & WORKING:
                self._word(p, ABANDONED | (word & LENGTH))
            p += 16 + _pad8(word & LENGTH)

    def append(self, values: list[int], complete: bool = True) -> None:
        """One entry holding `values`; `complete=False` leaves it WORKING with half of its
        values written, as a process killed in the middle of a write."""
        n = 8 * len(values)
        if HEADER_SIZE + 16 + _pad8(n) + 8 > self.size:
            raise QueueError(f"an entry of {n} bytes exceeds the cycle file's room")
        if self.pos + 16 + _pad8(n) + 8 > self.size:
            self._word(self.pos, END)
            self.cycle += 1
            if not self._path(self.cycle).exists():
                self._create(self.cycle)
            self.pos = HEADER_SIZE
        self._word(self.pos, WORKING | n)
        written = values if complete else values[: len(values) // 2]
        self.ts += 1
        with open(self._path(self.cycle), "r+b") as f:
            f.seek(self.pos + 8)
            f.write(struct.pack(f"<q{len(written)}q", self.ts, *written))
        if complete:
            self._word(self.pos, n)
            self.pos += 16 + _pad8(n)

    def close(self) -> None:
        self._lock.close()
