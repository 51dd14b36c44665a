"""What wirebench can measure: suites, cases, parameters and profiles.

The drivers say which cells they support (`DRIVER list`); this module says what the words
mean, which values are legal for a filter, and how many iterations a profile gives each
case. It is the one place to extend when a suite, case or parameter is added.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SUITES = {
    "rpc": "the Cap'n Proto benchmark cases: request/response with work at both ends",
    "limit": "the machine's limits, shown beside every library (memcpy bandwidth)",
}

CASES = {
    "rpc": {
        "carsales": "numbers-heavy: a parking lot of cars in, its total value out",
        "catrank": "strings-heavy: search results in, re-ranked results out",
        "eval": "pointer-heavy, small messages: an expression tree in, its value out",
    },
    "limit": {"memcpy": "copy one block between two buffers"},
}

# Parameter name -> legal values. `placement` is the harness's own (where pipe processes
# run); the rest are passed to the driver as --NAME VALUE.
PARAMS = {
    "mode": ("object", "bytes", "pipe", "pipe-async"),
    "compression": ("none", "packed"),
    "reuse": ("reuse", "no-reuse"),
    "placement": ("one-core", "two-cores", "unpinned"),
    "block": ("16KiB", "1MiB", "64MiB"),
}
PIPE_MODES = ("pipe", "pipe-async")
HARNESS_PARAMS = ("placement",)
DEFAULT_PLACEMENT = "one-core"

PLACEMENTS = {
    "one-core": "client and server pinned to the same CPU (the default: stable here)",
    "two-cores": "client and server pinned to different CPUs",
    "unpinned": "the scheduler decides",
}


@dataclass(frozen=True)
class Profile:
    """How much work a run does: processes per cell, samples per process, iterations."""

    name: str
    description: str
    reps: int  # fresh processes per cell
    samples: int  # timed samples per process
    iters: dict[str, int]  # iterations per sample, by rpc case
    memcpy_bytes: int  # bytes copied per memcpy sample, whatever the block size
    warmup_fraction: float  # untimed iterations before the first sample, as a fraction
    timeout: float  # seconds one process may take before it is killed
    # The pipe cells that also run between languages (client in one, server in the other)
    # for every ordered pair of languages built: the library and parameter values allowed.
    pairs: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def iters_for(self, case: str, params: dict[str, str]) -> int:
        if case == "memcpy":
            return max(1, self.memcpy_bytes // block_bytes(params["block"]))
        return self.iters[case]

    def warmup_for(self, iters: int) -> int:
        return max(1, int(iters * self.warmup_fraction))


_BLOCK_BYTES = {"16KiB": 16 << 10, "1MiB": 1 << 20, "64MiB": 64 << 20}


PROFILES = {
    "quick": Profile(
        name="quick",
        description="a tenth of the published iteration counts, 3 processes x 3 samples",
        reps=3,
        samples=3,
        iters={"carsales": 1000, "catrank": 100, "eval": 20000},
        memcpy_bytes=256 << 20,
        warmup_fraction=0.1,
        timeout=120.0,
        # One representative cell per case and wire format: 6 per ordered pair of languages.
        pairs={
            "lib": ("capnp", "protobuf"),
            "mode": ("pipe",),
            "compression": ("none",),
            "reuse": ("reuse",),
        },
    ),
    "standard": Profile(
        name="standard",
        description="the published iteration counts (carsales 10000, catrank 1000, "
        "eval 200000), 5 processes x 3 samples",
        reps=5,
        samples=3,
        iters={"carsales": 10000, "catrank": 1000, "eval": 200000},
        memcpy_bytes=1 << 30,
        warmup_fraction=0.1,
        timeout=600.0,
        pairs={"lib": ("capnp", "protobuf"), "mode": ("pipe", "pipe-async"), "reuse": ("reuse",)},
    ),
}
DEFAULT_PROFILE = "quick"


def block_bytes(block: str) -> int:
    return _BLOCK_BYTES[block]
