"""Provenance: everything about the machine and the code that a stored number depends on."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

from . import drivers, paths, processes


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _git(*args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=paths.ROOT, capture_output=True, text=True, timeout=10
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


def machine_settings() -> dict:
    """What the kernel does to every process that can move a measurement: address
    randomisation (the system's setting, 0 off and 2 full, unless the harness runs under
    `setarch -R`, whose personality its drivers inherit), transparent huge pages
    ([brackets] mark the mode in force), the clock source behind the monotonic clock, and
    the CPU governor."""
    personality = int(_read("/proc/self/personality") or "0", 16)
    aslr = _read("/proc/sys/kernel/randomize_va_space")
    return {
        "aslr": "0 (setarch -R)" if personality & processes.ADDR_NO_RANDOMIZE else aslr,
        "thp": _read("/sys/kernel/mm/transparent_hugepage/enabled"),
        "thp_defrag": _read("/sys/kernel/mm/transparent_hugepage/defrag"),
        "clocksource": _read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        "governor": governor(),
    }


def git_state() -> dict:
    """The checkout's revision, and whether tracked files differ from it."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "revision": _git("rev-parse", "HEAD"),
        "dirty": bool(status) if status is not None else None,
    }


# What a driver is made of: a published run's drivers are the checkout's when these trees
# are the same at its revision as at HEAD.
DRIVER_CODE = ("drivers", "schemas")


def code_tree(revision: str = "HEAD") -> str | None:
    """The git tree ids of the drivers' code (DRIVER_CODE) at `revision`, as one string;
    None where git cannot say (the revision not in this clone, no git)."""
    trees = [_git("rev-parse", f"{revision}:{d}") for d in DRIVER_CODE]
    return None if None in trees else "+".join(trees)


def provenance(builds: list[tuple[str, str]], suites=(), variants=()) -> dict:
    """The run's machine and code: the drivers' identities and library versions, each
    build profile's flags as the registration states them and as the driver reports, how
    each layout variant was made, what the kernel does to every process, the environment
    every driver process gets, and what the run's suites add (the queue's storage)."""
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
        "machine": machine_settings(),
        "process_env": dict(processes.DRIVER_ENV),
        "python": sys.version.split()[0],
        "drivers": {name: _info(name, _first_build(builds, name)) for name in names},
        "builds": {
            f"{name} {build}": {
                "flags": drivers.get(name).profile(build).flags,
                "reported": _info(name, build).get("build"),
            }
            for name, build in builds
        },
        "layouts": {
            f"{name} {build} {k}": drivers.get(name).variant_flags(build, k)
            for name, build, k in variants
        },
        **({"suites": added} if added else {}),
    }


def _info(name: str, build: str) -> dict:
    """The driver's `info`; for one that did not build (a library variant's cells are
    then error rows), why not."""
    try:
        return drivers.info(name, build)
    except drivers.DriverError as e:
        return {"error": str(e)}


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
