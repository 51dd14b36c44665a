"""Cells, the typed plan of a run, and the tasks (processes) a plan becomes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from .processes import DEFAULT_MEMORY_LIMIT

# Build profiles (docs/methodology.md, "Build profiles"), the first the default: `stock` is
# each ecosystem's release build as its users get it by default; `tuned` what a
# performance-minded user of the language ships (drivers.py builds each). Every cell
# names its build; no ratio mixes two.
BUILDS = ("stock", "tuned")
DEFAULT_BUILD = BUILDS[0]


def builds_asked(wanted) -> list[str]:
    """The builds a run's `build` filter asks for, in BUILDS order: the default when none."""
    return [b for b in BUILDS if b in (wanted or {DEFAULT_BUILD})]


# Layout variants a driver's rounds rotate over at most by default (a variant of its own
# for each round, orchestrate.layouts): as many as adaptive repetition's rounds.
MAX_LAYOUTS = 40

# The harness's own parameters of a cell: its build and an A/A twin (suite.CORE_PARAMS,
# on every cell), the library variant of its driver (only on a variant's cells:
# suite.VARIANT), and, in a distributed run's report, the host (or hardware class) its
# processes ran on (model.split_hosts).
CORE_PARAM_NAMES = ("build", "twin", "variant", "host")


@dataclass(frozen=True, order=True)
class Cell:
    """One point of the matrix: suite, case, implementation (language, toolchain, library)
    and parameters.

    `toolchain` is None for the language's primary driver (drivers.py) and names the
    compiler otherwise, so that one language can have several drivers. A pipe cell has a
    client and a server process; `server_lang` is the server's language (the library is
    the same on both ends, since they must share a wire format).
    """

    suite: str
    case: str
    lang: str
    lib: str
    params: tuple[tuple[str, str], ...] = field(default=())
    server_lang: str | None = None
    toolchain: str | None = None

    @staticmethod
    def make(suite, case, lang, lib, params: dict[str, str], server_lang=None, toolchain=None):
        return Cell(suite, case, lang, lib, tuple(sorted(params.items())), server_lang, toolchain)

    @property
    def param(self) -> dict[str, str]:
        return dict(self.params)

    def with_param(self, name: str, value: str | None) -> Cell:
        """The same cell with one parameter set (or, for None, removed)."""
        params = {k: v for k, v in self.params if k != name}
        if value is not None:
            params[name] = value
        return dataclasses.replace(self, params=tuple(sorted(params.items())))

    @property
    def work(self) -> tuple[tuple[str, str], ...]:
        """The parameters that say what work the cell does: all but the core's (its build,
        an A/A twin, a library variant), which say what measures it."""
        return tuple(p for p in self.params if p[0] not in CORE_PARAM_NAMES)

    @property
    def build(self) -> str:
        """The drivers' build the cell runs (BUILDS)."""
        return self.param.get("build", DEFAULT_BUILD)

    @property
    def variant(self) -> str | None:
        """The library variant of its driver (library_variants.py: `capnp@0.26.0`), None
        for the driver as committed. A pipe cell's server of the same language is the same
        variant."""
        return self.param.get("variant")

    @property
    def base_driver_id(self) -> str:
        """The client's driver as committed, whatever its variant (drivers.DRIVERS)."""
        return self.lang if self.toolchain is None else f"{self.lang}-{self.toolchain}"

    @property
    def driver_id(self) -> str:
        """The client's (or local process's) driver (drivers.get)."""
        base = self.base_driver_id
        return base if self.variant is None else f"{base}+{self.variant}"

    @property
    def server_driver_id(self) -> str | None:
        """A pipe cell's server's driver: the client's variant when it is the same language."""
        if self.variant is not None and self.server_lang == self.lang:
            return f"{self.server_lang}+{self.variant}"
        return self.server_lang

    @property
    def impl(self) -> str:
        lang = self.lang if self.toolchain is None else f"{self.lang}@{self.toolchain}"
        lang = lang if self.variant is None else f"{lang}+{self.variant}"
        if self.server_lang and self.server_lang != self.lang:
            return f"{lang}:{self.server_lang}/{self.lib}"
        return f"{lang}/{self.lib}"

    @property
    def is_pipe(self) -> bool:
        return self.server_lang is not None

    @property
    def key(self) -> str:
        params = " ".join(f"{k}={v}" for k, v in self.params)
        return f"{self.suite}/{self.case}/{self.impl}" + (f" {params}" if params else "")

    def to_json(self) -> dict:
        return {
            "suite": self.suite,
            "case": self.case,
            "lang": self.lang,
            "toolchain": self.toolchain,
            "lib": self.lib,
            "params": self.param,
            "server_lang": self.server_lang,
        }

    @staticmethod
    def from_json(d: dict) -> Cell:
        return Cell.make(
            d["suite"],
            d["case"],
            d["lang"],
            d["lib"],
            d["params"],
            d.get("server_lang"),
            d.get("toolchain"),
        )


# -- the plan ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanEntry:
    """One cell of a run and how much work each of its processes does."""

    cell: Cell
    iters: int
    samples: int
    warmup: int
    reps: int  # fresh timed processes
    instructions: bool = False  # and one instruction count (after them): rep `reps`
    pilot: int | None = None  # its rounds in the pilot, once a second stage grew the plan

    @property
    def processes(self) -> int:
        return self.reps + self.instructions

    def to_json(self) -> dict:
        return {
            "cell": self.cell.to_json(),
            "iters": self.iters,
            "samples": self.samples,
            "warmup": self.warmup,
            "reps": self.reps,
            "instructions": self.instructions,
            **({"pilot": self.pilot} if self.pilot is not None else {}),
        }

    @staticmethod
    def from_json(d: dict) -> PlanEntry:
        return PlanEntry(
            Cell.from_json(d["cell"]),
            d["iters"],
            d["samples"],
            d["warmup"],
            d["reps"],
            d.get("instructions", False),
            d.get("pilot"),
        )


@dataclass(frozen=True)
class Plan:
    """What a run will do, stored with it so that `--resume` does exactly the same."""

    profile: str
    timeout: float  # seconds one process may take
    entries: tuple[PlanEntry, ...]
    order: str = "interleaved"
    # Adaptive repetition (adaptive.py): more rounds while a headline ratio's interval is
    # wider than ±until (a fraction), within budget seconds of running.
    until: float | None = None
    budget: float | None = None
    # Bytes of address space each process may map (RLIMIT_AS); None: no limit.
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT
    # Layout variants per driver (drivers.py): round r of a cell runs variant r mod K of
    # each of its drivers, so that its ratios average over code layouts. Absent: K = 1.
    layouts: dict[str, int] = field(default_factory=dict)
    # adaptive.py: the rounds of the pilot a second stage was sized from (once per run);
    # None: not sized (yet). Intervals then take their variance from the pilot (stats.py).
    pilot: int | None = None
    # Seeded address placement (processes.py): round r runs with randomisation off at
    # seed r mod P, in every driver. 0: the kernel's randomisation, unseeded.
    address_seeds: int = 0
    # The library variants of its drivers (library_variants.py), each as `--with` gave it:
    # {"lang", "name", "source"}, by the label its cells carry.
    library_variants: dict[str, dict] = field(default_factory=dict)
    # An A/B run's two sides (ab.Side.to_json: as given, and the variant each resolved
    # to), for reading it whenever it is reported.
    ab: tuple[dict, ...] = ()
    # The quiet gate (runner.QuietGate): a process measured while other programs kept the
    # machine busy is measured again. Off for a run stored before it existed.
    quiet: bool = False
    # The layouts were not given (--layouts): every round runs a variant of its own, and a
    # second stage that adds rounds adds variants (with_fresh_layouts).
    fresh_layouts: bool = False
    # The uid of the dimensioning run whose design (design.py) set its samples and sample
    # lengths; None: the profile's own counts.
    design: str | None = None

    def with_fresh_layouts(self) -> Plan:
        """The plan with as many variants of each driver as its cells' rounds (at most
        MAX_LAYOUTS), where its layouts grow with its rounds; else itself."""
        if not self.fresh_layouts:
            return self
        rounds: dict[str, int] = {}
        for e in self.entries:
            c = e.cell
            for name in (c.driver_id, c.server_driver_id):
                if name in self.layouts:
                    rounds[name] = max(rounds.get(name, 0), e.reps)
        grown = {n: max(k, min(MAX_LAYOUTS, rounds.get(n, 0))) for n, k in self.layouts.items()}
        return dataclasses.replace(self, layouts=grown)

    def to_json(self) -> dict:
        return {
            "profile": self.profile,
            "timeout": self.timeout,
            "memory_limit": self.memory_limit,
            "order": self.order,
            "until": self.until,
            "budget": self.budget,
            "layouts": self.layouts,
            "pilot": self.pilot,
            "address_seeds": self.address_seeds,
            "quiet": self.quiet,
            "fresh_layouts": self.fresh_layouts,
            "design": self.design,
            **({"library_variants": self.library_variants} if self.library_variants else {}),
            **({"ab": list(self.ab)} if self.ab else {}),
            "cells": [e.to_json() for e in self.entries],
        }

    @staticmethod
    def from_json(d: dict) -> Plan:
        entries = tuple(PlanEntry.from_json(e) for e in d["cells"])
        return Plan(
            d["profile"],
            d["timeout"],
            entries,
            d.get("order", "interleaved"),
            d.get("until"),
            d.get("budget"),
            d.get("memory_limit", DEFAULT_MEMORY_LIMIT),
            d.get("layouts") or {},
            d.get("pilot"),
            d.get("address_seeds") or 0,
            d.get("library_variants") or {},
            tuple(d.get("ab") or ()),
            bool(d.get("quiet", False)),
            bool(d.get("fresh_layouts", False)),
            d.get("design"),
        )

    def layout(self, driver: str, rep: int) -> int:
        """The layout variant of `driver` that round `rep` runs."""
        return rep % self.layouts.get(driver, 1)

    def address_seed(self, rep: int) -> int | None:
        """The address seed round `rep` runs at; None: randomised by the kernel."""
        return rep % self.address_seeds if self.address_seeds else None

    @property
    def drivers(self) -> list[str]:
        """Every driver the plan starts (clients, local processes and servers)."""
        return sorted({name for name, _ in self.builds})

    @property
    def builds(self) -> list[tuple[str, str]]:
        """Every (driver, build profile) the plan starts."""
        ids = {(e.cell.driver_id, e.cell.build) for e in self.entries}
        ids |= {(e.cell.server_driver_id, e.cell.build) for e in self.entries if e.cell.is_pipe}
        return sorted(ids)

    @property
    def variants(self) -> list[tuple[str, str, int]]:
        """Every (driver, build profile, layout variant) the plan starts."""
        return [(n, b, k) for n, b in self.builds for k in range(self.layouts.get(n, 1))]

    def tasks(self, executables: dict[tuple[str, str, int], Path]) -> list[tuple[int, Task, bool]]:
        """The processes in running order: (rep, task, whether it is its cell's last).
        `executables` maps a (driver, build, layout variant) to its executable.

        Interleaved: every cell's first process, then every cell's second, and so on, so
        that a slow drift of the machine touches all cells alike. Within a round the cells
        a ratio sets side by side (the same case, library and parameters in each language,
        build or A/A twin) run back to back, seconds apart rather than minutes, so that
        the drift cancels in their ratio; which of them goes first rotates from round to
        round. Instruction counts come after every timed process: they do not depend on
        the machine's state.
        """
        return [t for _, unit in self.units(executables) for t in unit]

    def units(self, executables=None) -> list[tuple[str, list[tuple[int, Task, bool]]]]:
        """The processes of `tasks`, in its order, cut into units of work: each comparison
        group of each round (the cells a ratio compares, back to back), and each
        instruction count alone; (a label, its tasks) each. A distributed run's workers
        take whole units, so that no ratio is measured across two machines. Without
        `executables`, the tasks name none (for their cells and rounds only)."""
        executables = executables or dict.fromkeys(self.variants, Path())
        units = []

        def task(e: PlanEntry, measure: str, rep: int) -> Task:
            c = e.cell
            layout = self.layout(c.driver_id, rep)
            server_layout = self.layout(c.server_driver_id, rep) if c.is_pipe else 0
            return Task(
                cell=c,
                iters=e.iters,
                samples=e.samples,
                warmup=e.warmup,
                timeout=self.timeout,
                memory_limit=self.memory_limit,
                client=executables[c.driver_id, c.build, layout],
                server=executables[c.server_driver_id, c.build, server_layout]
                if c.is_pipe
                else None,
                measure=measure,
                layout=layout,
                server_layout=server_layout,
                address_seed=self.address_seed(rep),
            )

        groups: dict[tuple, list[PlanEntry]] = {}
        for e in self.entries:
            c = e.cell
            groups.setdefault((c.suite, c.case, c.lib, c.work), []).append(e)
        for rep in range(max((e.reps for e in self.entries), default=0)):
            for (suite, case, lib, _), group in groups.items():
                turn = rep % len(group)
                unit = [
                    (rep, task(e, "time", rep), rep == e.processes - 1)
                    for e in group[turn:] + group[:turn]
                    if rep < e.reps
                ]
                if unit:
                    label = f"round {rep + 1}: {suite} {case} {lib}, {len(unit)} cells"
                    units.append((label, unit))
        for e in self.entries:
            if e.instructions:  # counted in variant 0: counts do not vary by process
                units.append(
                    (f"instructions: {e.cell.key}", [(e.reps, task(e, "instructions", 0), True)])
                )
        return units


@dataclass
class Task:
    """One process of one cell (two for a pipe cell): how much work, which drivers."""

    cell: Cell
    iters: int
    samples: int
    warmup: int
    timeout: float
    client: Path  # the driver executable of the cell's language
    server: Path | None = None  # pipe cells: the server's driver executable
    measure: str = "time"  # or "instructions": counted under valgrind (instructions.py)
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT  # RLIMIT_AS of each process
    layout: int = 0  # the layout variant of the client (or local process) driver
    server_layout: int = 0  # and of the server's, for a pipe cell
    address_seed: int | None = None  # Plan.address_seed of its round
