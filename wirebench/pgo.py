"""The Go driver's profile for its tuned build (profile-guided optimisation).

PGO learns from a CPU profile of the program it optimises. Ours is the stock driver
running each of its own local cells (every suite, one sample at the quick profile's
iteration count; pipe cells are left out: their work is the same code as the bytes mode
plus two processes) with WIREBENCH_CPUPROFILE set, merged into one profile by
`go tool pprof -proto`. The profile is a build output (bin/default.pgo), never committed.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from pathlib import Path

from . import registry


class ProfileError(RuntimeError):
    """The profiling run failed (the build then fails with this message)."""


def profile_go(bin_dir: Path, log) -> Path:

    driver = bin_dir / "wirebench-go"
    out = bin_dir / "default.pgo"
    # The profile of an unchanged stock driver is kept: a new one would make `go build
    # -pgo` recompile everything (a minute) for the same code.
    source = bin_dir / "default.pgo.from"
    digest = hashlib.sha256(driver.read_bytes()).hexdigest()
    if out.is_file() and source.is_file() and source.read_text() == digest:
        log("the PGO profile is that of this stock driver: kept")
        return out
    listed = subprocess.run([driver, "list"], capture_output=True, text=True)
    if listed.returncode != 0:
        raise ProfileError(f"`{driver} list` failed: {listed.stderr.strip()}")
    cells = [json.loads(line) for line in listed.stdout.splitlines() if line.strip()]
    local = [
        c
        for c in cells
        if c["suite"] in registry.SUITES
        and c["params"].get("mode") not in ("pipe", "pipe-async")
        and "input" not in registry.SUITES[c["suite"]].fixtures
    ]
    log(f"profiling the stock Go driver on {len(local)} local cells for PGO")
    with tempfile.TemporaryDirectory(prefix="wirebench-pgo-") as tmp:
        profiles = []
        for n, c in enumerate(local):
            suite = registry.SUITES[c["suite"]]
            iters = suite.iters_for("quick", c["case"], c["params"])
            argv = [str(driver), "run", "--suite", c["suite"], "--case", c["case"]]
            argv += ["--lib", c["lib"]]
            for k, v in c["params"].items():
                argv += [f"--{k}", v]
            argv += ["--iters", str(iters), "--samples", "1", "--warmup", "0"]
            for fixture in suite.fixtures:  # out_dir, work_dir: an empty directory each
                cell_dir = Path(tmp) / f"{fixture}{n}"
                cell_dir.mkdir()
                argv += [f"--{fixture.replace('_', '-')}", str(cell_dir)]
            profile = Path(tmp) / f"{n}.pprof"
            env = {**os.environ, "WIREBENCH_CPUPROFILE": str(profile)}
            proc = subprocess.run(argv, env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                raise ProfileError(f"profiling `{' '.join(argv)}` failed: {proc.stderr.strip()}")
            profiles.append(str(profile))
        merged = subprocess.run(
            ["go", "tool", "pprof", "-proto", *profiles], capture_output=True, cwd=bin_dir.parent
        )
        if merged.returncode != 0:
            raise ProfileError(f"merging the PGO profiles failed: {merged.stderr.decode()}")
        out.write_bytes(merged.stdout)
    source.write_text(digest)
    return out
