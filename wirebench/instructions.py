"""Deterministic measurement: instructions per iteration, counted by valgrind.

This machine has no hardware counters, but valgrind's cachegrind counts every instruction
a process executes, the same count whatever else the machine is doing. Start-up, library
loading, warm-up and teardown are the same in two runs that differ only in their
iteration count, so a cell's instructions per iteration are

    (I(n2) - I(n1)) / (n2 - n1)

from two runs of the unchanged driver (one sample each, the same warm-up): n1 a tenth of
the profile's count and, for C++, Rust and D, n2 = 2 n1. Both runs' results pass every
check a timed run's does. A pipe cell counts its client and its server. The estimated
cycles come from cachegrind's simulated caches (fixed below so that every machine
simulates the same ones) with the model docs/methodology.md gives. Two counts of a C++
cell agree within 0.01%, of a Rust cell within 0.2% (most within 0.01%).

Go is counted otherwise (GO below), for its collector and for its random seeds:

- Its collector runs as in a timed process (GOGC's default, one P), but marks with the
  world stopped (GODEBUG=gcstoptheworld=1). Marking concurrently, it does an amount of
  work that depends on timing (two counts of a cell differed by up to 15%), and its pacer
  moves the next trigger by the CPU time marking took; stopped, it marks the same heap
  every time, and the pacer starts every collection at the same heap size (95% of the way
  to GOGC's goal): the same collections at the same iterations in every run. A Go count
  includes the marking and sweeping of the collections its iterations trigger; not what
  only concurrent marking adds (write barriers and assists while it marks).
- n2 = 10 n1, the profile's count, so that the span holds the collections one timed
  sample of that count triggers (a cell that allocates little triggers none in the quick
  profile's; the standard profile's tenfold span holds tenfold as many: Go's counts
  depend on the profile, as its times do).
- Each Go process draws its own seeds (the heap's base address, the seeds of map hashes,
  when each type-assertion cache fills), and its page allocator, hashing and those
  caches cost 0.1-0.3% more or less per iteration in one process than in another, by
  cell; a longer span does not remove it. So a Go cell runs once at n1 and several times
  at n2 (every run checked), until two n2 runs that pin their median agree within AGREE
  of the span's instructions (the middle two of an even number of runs, the middle one
  and its nearest of an odd number), or four have run; I(n2) is their median (of an even
  number, the middle two's mean). The value is the instructions per iteration of a
  typical process rather than of one draw.

Only native drivers are counted: under valgrind a JIT compiles at other moments than
without it, and its counts would say more about the compiler's timing than the code.
Valgrind counts user space only: the kernel's work for a process (system calls, pipe
I/O, page faults) is in its times, not in its counts.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

# Interpreted drivers' languages that have no instruction counts.
NOT_COUNTED = {"java": "a JIT compiles at moments valgrind changes: its counts do not repeat"}


@dataclass(frozen=True)
class Counting:
    """How one language's cells are counted."""

    env: tuple[str, ...] = ()  # set for its processes under valgrind
    span: int = 2  # n2 = span * n1
    counts: int = 1  # at most this many runs at n2 (against one at n1), their median


NATIVE = Counting()
# One P (as a local cell's timed process has, pinned to one CPU); the collector on at its
# default, marking with the world stopped; up to four runs at n2 (the module's docstring).
GO = Counting(env=("GOMAXPROCS=1", "GODEBUG=gcstoptheworld=1"), span=10, counts=4)
COUNTING = {"go": GO}

# A cell whose counts vary (Go) runs at n2 until two runs that pin their median differ by
# at most this fraction of the span's instructions.
AGREE = 0.001

# A fixed cache model (sizes in bytes, associativity, line size): the simulated caches are
# the same on every machine, so counts and cycle estimates compare across machines.
CACHES = ("--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64")

# Estimated cycles (the model of iai and iai-callgrind): an L1 hit costs 1, an access that
# misses L1 and hits the last-level cache 5, and one that goes to memory 35.
L1_COST, LL_COST, RAM_COST = 1, 5, 35

# The smaller iteration count is the profile's divided by this: under valgrind a driver
# runs some 50-100 times slower, and the count needs only enough iterations to hold
# every kind of request the generator makes.
SCALE_DOWN = 10


class CountError(RuntimeError):
    """A cachegrind output that is missing or unreadable."""


def counting(*langs: str | None) -> Counting:
    """How a cell whose processes are in these languages is counted: a pipe cell with a
    Go client or server as Go's are."""
    for lang in langs:
        if lang in COUNTING:
            return COUNTING[lang]
    return NATIVE


def iteration_counts(iters: int, how: Counting = NATIVE) -> tuple[int, int]:
    n1 = max(1, iters // SCALE_DOWN)
    return n1, how.span * n1


def wrap(out_dir: str, role: str, lang: str | None = None) -> list[str]:
    """The valgrind command that runs a driver process (of `lang`) and writes its counts."""
    return [
        "env",
        *COUNTING.get(lang or "", NATIVE).env,
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=yes",
        *CACHES,
        f"--cachegrind-out-file={out_dir}/{role}.%p.out",
        f"--log-file={out_dir}/{role}.%p.log",
    ]


def read_counts(out_dir: str, role: str) -> dict[str, int]:
    """The event totals of the one process of `role` that ran with its out file there."""
    files = glob.glob(f"{out_dir}/{role}.*.out")
    if len(files) != 1:
        logs = glob.glob(f"{out_dir}/{role}.*.log")
        tail = Path(logs[0]).read_text()[-500:] if logs else "(no valgrind log)"
        raise CountError(f"cachegrind wrote {len(files)} count files for the {role}: {tail}")
    events = summary = None
    for line in Path(files[0]).read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            summary = [int(v) for v in line.split()[1:]]
    if not events or not summary or len(events) != len(summary):
        raise CountError(f"{files[0]}: no events and summary lines")
    return dict(zip(events, summary, strict=True))


def estimated_cycles(c: dict[str, int]) -> int:
    accesses = c["Ir"] + c["Dr"] + c["Dw"]
    l1_misses = c["I1mr"] + c["D1mr"] + c["D1mw"]
    ram = c["ILmr"] + c["DLmr"] + c["DLmw"]
    return L1_COST * (accesses - l1_misses) + LL_COST * (l1_misses - ram) + RAM_COST * ram


def _middle(counts: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], int]:
    """The counts in order of their instructions, and the index of the first of the
    middle two (an even number of counts) or of the middle one's nearest (an odd one)."""
    s = sorted(counts)
    k = len(s)
    if k % 2 == 0:
        return s, k // 2 - 1
    m = k // 2
    return s, m - 1 if s[m][0] - s[m - 1][0] <= s[m + 1][0] - s[m][0] else m


def settled(counts: list[tuple[int, int]], how: Counting) -> bool:
    """Whether the counts made so far end the cell's: all it may make, or two that pin
    their median (the middle two of an even number, the middle one and its nearest of an
    odd one) agree within AGREE. A count is (instructions, cycles) over the span: an n2
    run's less the n1 run's."""
    if len(counts) >= how.counts:
        return True
    if len(counts) < 2:
        return False
    s, i = _middle(counts)
    return s[i + 1][0] - s[i][0] <= AGREE * s[i][0]


def combine(counts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The counts that make the cell's: the median one, or of an even number the middle
    two (pooled: their sum over twice the span)."""
    s = sorted(counts)
    k = len(s)
    return s[k // 2 : k // 2 + 1] if k % 2 else s[k // 2 - 1 : k // 2 + 1]
