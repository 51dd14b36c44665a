"""Provenance: everything about the machine and the code that a stored number depends on."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

from . import drivers


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _git(*args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=drivers.ROOT, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def cpu_model() -> str | None:
    for line in (_read("/proc/cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or None


def governor() -> str | None:
    """The cpufreq governor of CPU 0, where the kernel exposes it (not in most VMs)."""
    return _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")


def git_state() -> dict:
    """The checkout's revision, and whether tracked files differ from it."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "revision": _git("rev-parse", "HEAD"),
        "dirty": bool(status) if status is not None else None,
    }


def provenance(builds: list[tuple[str, str]], suites=()) -> dict:
    """The run's machine and code: the drivers' identities and library versions, each
    build profile's flags as the registration states them and as the driver reports, and
    what the run's suites add (the queue's storage)."""
    names = sorted({name for name, _ in builds})
    added = {s.name: p for s in suites if (p := s.provenance())}
    return {
        "git": git_state(),
        "host": platform.node(),
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "cpus_allowed": sorted(os.sched_getaffinity(0)),
        "memory_kb": _meminfo_total(),
        "kernel": platform.release(),
        "os": _os_release(),
        "governor": governor(),
        "python": sys.version.split()[0],
        "drivers": {name: drivers.info(name, _first_build(builds, name)) for name in names},
        "builds": {
            f"{name} {build}": {
                "flags": drivers.get(name).profile(build).flags,
                "reported": drivers.info(name, build).get("build"),
            }
            for name, build in builds
        },
        **({"suites": added} if added else {}),
    }


def _first_build(builds, name) -> str:
    return next(b for n, b in builds if n == name)


def _meminfo_total() -> int | None:
    for line in (_read("/proc/meminfo") or "").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1])
    return None


def _os_release() -> str | None:
    for line in (_read("/etc/os-release") or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return None
