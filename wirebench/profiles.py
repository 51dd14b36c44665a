"""Profiles: how much work a run does. Each suite keeps its own counts per profile
(iterations per case, cross-language pairs); a profile says how many processes and
samples every cell gets and how long one may take."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    reps: int  # fresh processes per cell
    samples: int  # timed samples per process
    warmup_fraction: float  # untimed iterations before the first sample, as a fraction
    timeout: float  # seconds one process may take before it is killed

    def warmup_for(self, iters: int) -> int:
        return max(1, int(iters * self.warmup_fraction))


PROFILES = {
    "quick": Profile(
        name="quick",
        description="a tenth of the published iteration counts, 3 processes x 3 samples",
        reps=3,
        samples=3,
        warmup_fraction=0.1,
        timeout=120.0,
    ),
    "standard": Profile(
        name="standard",
        description="the published iteration counts (carsales 10000, catrank 1000, "
        "eval 200000), 5 processes x 3 samples",
        reps=5,
        samples=3,
        warmup_fraction=0.1,
        timeout=600.0,
    ),
}
DEFAULT_PROFILE = "quick"
