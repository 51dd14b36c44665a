"""Deterministic measurement: instructions per iteration, counted by valgrind.

This machine has no hardware counters, but valgrind's cachegrind counts every instruction
a process executes, the same count whatever else the machine is doing. Start-up, library
loading, warm-up and teardown are the same in two runs that differ only in their
iteration count, so the cell's instructions per iteration are

    (I(n2) - I(n1)) / (n2 - n1)

from two runs of the unchanged driver (one sample each, the same warm-up), with n2 = 2 n1.
Both runs' results pass every check a timed run's does. A pipe cell counts its client and
its server. The estimated cycles come from cachegrind's simulated caches (fixed below so
that every machine simulates the same ones) with the model docs/methodology.md gives.

Only native drivers are counted: under valgrind a JIT compiles at other moments than
without it, and its counts would say more about the compiler's timing than the code.
"""

from __future__ import annotations

import glob
from pathlib import Path

# Interpreted drivers' languages that have no instruction counts.
NOT_COUNTED = {"java": "a JIT compiles at moments valgrind changes: its counts do not repeat"}

# Go's collector runs concurrently, and how much it marks depends on timing: two counts
# of one cell differed by up to 15% with it on, by under 0.5% with it off (and one
# thread). Go's counts therefore leave collection out; its timed figures include it.
COUNTING_ENV = ("GOGC=off", "GOMAXPROCS=1")

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


def iteration_counts(iters: int) -> tuple[int, int]:
    n1 = max(1, iters // SCALE_DOWN)
    return n1, 2 * n1


def wrap(out_dir: str, role: str) -> list[str]:
    """The valgrind command that runs a driver process and writes its counts."""
    return [
        "env",
        *COUNTING_ENV,
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
