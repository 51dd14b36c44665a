"""The rpc workloads in plain Python: the generator and each case's expected answers.

This is wirebench's independent implementation of docs/workloads.md. The harness uses it
to check the digests drivers report, and `python -m wirebench.workloads` writes the golden
files in testdata/rpc/ that every driver is tested against. It draws exactly the numbers a
client draws, in the same order, but builds no message: only the expectations.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF
INT32_MAX = 0x7FFFFFFF
RPC_CASES = ("carsales", "catrank", "eval")
# Iterations per sample of each rpc case, by profile (the suite's, suites/rpc.py): quick is
# a tenth of the published counts; standard is them.
RPC_ITERS = {
    "quick": {"carsales": 1000, "catrank": 100, "eval": 20000},
    "standard": {"carsales": 10000, "catrank": 1000, "eval": 200000},
}

# Iteration counts whose digests are committed in testdata/rpc/checks.json: small ones
# for the drivers' own tests, and every count a profile gives the case.
SMALL_ITERS = (1, 2, 3, 5, 10, 20, 100, 1000)


def checked_iters(case: str) -> tuple[int, ...]:
    return tuple(sorted(set(SMALL_ITERS) | {counts[case] for counts in RPC_ITERS.values()}))


class XorShift128:
    """The 128-bit xorshift generator of the Cap'n Proto benchmarks."""

    __slots__ = ("x", "y", "z", "w")

    def __init__(self) -> None:
        self.x, self.y, self.z, self.w = 0x1D2ACD47, 0x58CA3E14, 0xF563F232, 0x0BC76199

    def next(self) -> int:
        t = (self.x ^ (self.x << 11)) & MASK32
        self.x, self.y, self.z = self.y, self.z, self.w
        w = self.w
        self.w = w ^ (w >> 19) ^ t ^ (t >> 8)
        return self.w

    def rand(self, n: int) -> int:
        return self.next() % n

    def rand_double(self, r: float) -> float:
        return float(self.next()) * r / 4294967295.0


def f32(x: float) -> float:
    """Round a double to the nearest IEEE single, as a C++ float conversion does."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def carsales_request(rng: XorShift128) -> int:
    """Draws one parking lot; returns its total value."""
    total = 0
    for _ in range(rng.rand(200)):
        rng.rand(5)  # make
        rng.rand(6)  # model
        rng.rand(9)  # color
        seats = 2 + rng.rand(6)
        doors = 2 + rng.rand(3)
        value = seats * 200 + doors * 350
        for _ in range(4):
            diameter = 25 + rng.rand(15)
            rng.next()  # airPressure = f32(30 + randDouble(20)); not part of the value
            snow = rng.rand(16) == 0
            value += diameter * diameter + (100 if snow else 0)
        length = 170 + rng.rand(150)
        width = 48 + rng.rand(36)
        height = 54 + rng.rand(48)
        value += length * width * height // 50
        horsepower = 100 * rng.rand(400)
        rng.rand(3)  # cylinders
        rng.rand(10000)  # cc
        electric = rng.rand(2) != 0
        value += horsepower * 40 + (5000 if electric else 0)  # usesGas is always true
        capacity = f32(10.0 + rng.rand_double(30.0))
        f32(rng.rand_double(capacity))  # fuelLevel
        value += 100 if rng.rand(2) else 0  # hasPowerWindows
        value += 200 if rng.rand(2) else 0  # hasPowerSteering
        value += 400 if rng.rand(2) else 0  # hasCruiseControl
        value += rng.rand(12) * 25  # cupHolders
        value += 2000 if rng.rand(2) else 0  # hasNavSystem
        total += value
    return total


def catrank_request(rng: XorShift128) -> int:
    """Draws one search result list; returns the good count (a cat and no dog)."""
    good = 0
    for _ in range(rng.rand(1000)):
        for _ in range(rng.rand(100)):  # url letters
            rng.next()
        cat = rng.rand(8) == 0
        dog = rng.rand(8) == 0
        for _ in range(2):  # words before and after the cat and dog
            for _ in range(rng.rand(20)):
                rng.next()
        good += cat and not dog
    return good


def _div(a: int, b: int) -> int:
    if b == 0 or (a == -0x80000000 and b == -1):
        return INT32_MAX
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _mod(a: int, b: int) -> int:
    if b == 0 or (a == -0x80000000 and b == -1):
        return INT32_MAX
    return a - b * _div(a, b)


def _wrap32(v: int) -> int:
    v &= MASK32
    return v - 0x100000000 if v & 0x80000000 else v


def eval_request(rng: XorShift128, depth: int = 0) -> int:
    """Draws one expression tree; returns its value (32-bit two's complement)."""
    op = rng.rand(5)
    left = rng.rand(128) + 1 if rng.rand(8) < depth else eval_request(rng, depth + 1)
    right = rng.rand(128) + 1 if rng.rand(8) < depth else eval_request(rng, depth + 1)
    if op == 0:
        return _wrap32(left + right)
    if op == 1:
        return _wrap32(left - right)
    if op == 2:
        return _wrap32(left * right)
    if op == 3:
        return _div(left, right)
    return _mod(left, right)


REQUESTS = {"carsales": carsales_request, "catrank": catrank_request, "eval": eval_request}


def expectations(case: str, count: int) -> list[int]:
    """The expected answers of the first `count` requests from a fresh generator."""
    rng, request = XorShift128(), REQUESTS[case]
    return [request(rng) for _ in range(count)]


def wrap64(v: int) -> int:
    """Reduces to a signed 64-bit two's complement value, as a wrapping i64 sum does."""
    v &= MASK64
    return v - (1 << 64) if v >> 63 else v


def digest(case: str, iters: int) -> int:
    """The check digest a driver reports for a sample of `iters` iterations."""
    return wrap64(sum(expectations(case, iters)))


def write_testdata(root: Path, progress=print) -> None:
    """Writes testdata/rpc/: generator outputs, first-20 expectations, digests."""
    out = root / "rpc"
    out.mkdir(parents=True, exist_ok=True)
    rng = XorShift128()
    lines = ["# xorshift128: the first 1000 outputs of next() from the initial state"]
    lines += [str(rng.next()) for _ in range(1000)]
    (out / "generator.txt").write_text("\n".join(lines) + "\n")
    meaning = {
        "carsales": "total value of the parking lot (u64)",
        "catrank": "good count: results with a cat and no dog",
        "eval": "value of the expression (i32)",
    }
    for case in RPC_CASES:
        head = [
            f"# {case}: the first 20 requests from one fresh generator",
            f"# INDEX VALUE, where VALUE is the {meaning[case]}",
        ]
        body = [f"{i} {v}" for i, v in enumerate(expectations(case, 20))]
        (out / f"{case}.txt").write_text("\n".join(head + body) + "\n")
    checks: dict[str, dict[str, int]] = {}
    for case in RPC_CASES:
        progress(f"digests for {case}")
        counts = checked_iters(case)
        answers = expectations(case, max(counts))
        checks[case] = {str(n): wrap64(sum(answers[:n])) for n in counts}
    (out / "checks.json").write_text(json.dumps(checks, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    write_testdata(Path(sys.argv[1] if len(sys.argv) > 1 else "testdata"))
