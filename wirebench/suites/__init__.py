"""Suites as plug-ins: what a suite declares, and the registry of suites.

A suite is one module in this package holding everything that is particular to it: its
cases, its own parameters and their legal values, the iterations each profile gives a
case, how a driver's listed cell becomes cells of a run (rpc's pipe pairs and
placements), the checks that judge a driver's result, its metrics, the fixtures the
harness hands its cells, and the tables of its report section. The core (matrix, runner,
store, stats, report) knows suites only through `Suite`.

Adding a suite is one module here, one line in SUITES, and a folder in each driver that
takes part (docs/adding-a-suite.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..drivers import BUILDS

if TYPE_CHECKING:
    from ..cells import Cell, Task
    from ..protocol import Metric
    from ..report import CellResult, Table


class ResultError(ValueError):
    """A driver's result that the harness refuses: malformed, for another cell, unverified,
    inconsistent, or wrong."""


@dataclass(frozen=True)
class Param:
    """A parameter of a suite's cells: its legal values in reading order. `harness`
    parameters are the harness's own (where processes run) and never reach a driver."""

    name: str
    values: tuple[str, ...]
    help: str
    harness: bool = False


@dataclass(frozen=True)
class MetricSpec:
    """A metric a suite's results carry (docs/protocol.md, Metrics)."""

    name: str
    kind: str  # samples | scalar | histogram
    unit: str
    help: str
    required: bool = True  # False: a result may leave it out (e.g. an operation not measured)
    by_harness: bool = False  # computed by the harness (Suite.inspect), never by a driver


@dataclass(frozen=True)
class ExpandContext:
    """What a suite's expansion may look at beyond the listed cell itself."""

    # For every driver, the signatures (suite, case, lib, params) of the cells it lists.
    supported: dict[str, frozenset[tuple]]
    filters: dict[str, frozenset[str] | None]
    # --pair: exactly these (client, server) drivers, and no other cells.
    pairs: frozenset[tuple[str, str]] | None
    # The profile whose cross-language cells to add (each suite keeps its own), or None
    # for none of them (--no-pairs).
    pairs_of_profile: str | None


# The harness's parameter of every cell of every suite: which build of the drivers ran it
# (drivers.BUILDS). Cells of two builds are never paired in one ratio.
BUILD = Param(
    "build",
    BUILDS,
    "the drivers' build profile: stock (each ecosystem's default release build) or tuned",
    harness=True,
)
# A/A: a cell measured twice in one run, the second time as its twin. The pair's ratio
# should be 1; how far it strays is the run's noise floor (report.aa_table).
TWIN = Param(
    "twin", ("b",), "an A/A twin: the same cell again, for the run's noise floor", harness=True
)
CORE_PARAMS = (BUILD, TWIN)


def signature(entry: dict) -> tuple:
    """A listed cell's identity across drivers."""
    return (entry["suite"], entry["case"], entry["lib"], tuple(sorted(entry["params"].items())))


@dataclass
class Suite:
    """The base of every suite. A suite module makes one instance of a subclass."""

    name: str
    description: str
    cases: dict[str, str]
    params: tuple[Param, ...]
    metrics: tuple[MetricSpec, ...]
    reading: str = ""  # how to read the suite's tables, printed above them
    primary: str = "time"  # the metric that comparisons and ratios use
    # Suites with several timed operations compare each of them (codec); default: primary.
    compared: tuple[str, ...] = ()
    # What the harness hands each process: "input", "work_dir", "out_dir".
    fixtures: tuple[str, ...] = ()
    # Libraries in reading order (the floor first); the others follow alphabetically.
    lib_order: tuple[str, ...] = ()
    # Shown beside every run, whatever the suite filter (the machine's limits).
    accompanies_every_run: bool = False
    # Iterations per sample, by profile and case.
    iters: dict[str, dict[str, int]] = field(default_factory=dict)
    # Whether valgrind may count the cells' instructions (a suite whose samples are
    # runs of a latency recorder, like queue, has no per-iteration count to give).
    countable: bool = True
    # Parameters a cell's key leaves out when they take this value (codec's packing: the
    # keys of cells from before it existed stay), so that a pattern can still name them.
    implied: dict[str, str] = field(default_factory=dict)

    # -- the matrix ---------------------------------------------------------------------
    @property
    def all_params(self) -> tuple[Param, ...]:
        """The suite's parameters, then the core's (build)."""
        return (*self.params, *CORE_PARAMS)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.all_params if p.name == name), None)

    def driver_params(self, params: dict[str, str]) -> dict[str, str]:
        harness = {p.name for p in self.all_params if p.harness}
        return {k: v for k, v in params.items() if k not in harness}

    def expand(self, driver: str, entry: dict, ctx: ExpandContext) -> list[tuple[dict, str | None]]:
        """The cells of a run that one listed cell of `driver` becomes, as (params, server
        driver or None). By default the cell itself, unless --pair asked for pipe pairs
        only."""
        return [] if ctx.pairs else [(dict(entry["params"]), None)]

    def headline(self, cell: Cell, default: bool) -> bool:
        """Whether the cell is in the headline run (`wirebench run --headline`, what `make
        bench` runs): a stratified few that every headline ratio needs. `default`: the
        cell is the first its driver lists for its case and library. By default, all."""
        return True

    def iters_for(self, profile: str, case: str, params: dict[str, str]) -> int:
        return self.iters[profile][case]

    def samples_for(self, profile: str, case: str) -> int | None:
        """Timed samples per process, where the suite's differ from the profile's (queue:
        a sample is a run, and the seed's profile has 10,000)."""
        return None

    def warmup_for(self, profile: str, case: str, iters: int) -> int | None:
        """Untimed iterations before the first sample, where the suite's differ from the
        profile's fraction of `iters`."""
        return None

    def fixture_parent(self, cell: Cell, name: str) -> Path | None:
        """Where a cell's `work_dir`/`out_dir` is made (None: the system's temporary
        directory); raises ResultError where the cell's parameters cannot be honoured."""
        return None

    def provenance(self) -> dict:
        """What a run of this suite adds to the run's provenance (queue: its storage)."""
        return {}

    def input_file(self, cell: Cell):
        """Suites with the `input` fixture: the file the harness made (and checked) for
        the cell, handed to the driver as --input."""
        raise NotImplementedError(f"suite {self.name} declares no input file")

    # -- judging results --------------------------------------------------------------
    def check_result(self, task: Task, result: dict, metrics: dict[str, Metric]) -> None:
        """Raises ResultError for a result this suite refuses (beyond the protocol's own
        checks, which have passed)."""

    def check_server(self, task: Task, server: dict, client: dict) -> None:
        """Pipe cells: raises ResultError for a server result this suite refuses."""

    def inspect(self, task: Task, result: dict, fixtures: dict[str, str]) -> dict[str, Metric]:
        """After a process that was handed fixtures: metrics the harness computes itself
        from what the driver left there (e.g. compressed sizes of its encodings)."""
        return {}

    def judge_cell(self, processes: list[dict]) -> tuple[str, str | None]:
        """A finished cell's status from its processes (rows with status, error, rep and
        metrics): ok if every process is, else the first error."""
        for p in processes:
            if p["status"] != "ok":
                return "error", f"process {p['rep'] + 1}: {p['error']}"
        return "ok", None

    # -- the report ---------------------------------------------------------------------
    def tables(self, results: list[CellResult], context: dict) -> list[Table]:
        """The suite's section of a report. By default one table per case with every
        metric's summary. `context["all"]` is every timed cell of the build,
        `context["provenance"]` the run's (its drivers' build flags among it)."""
        from ..report import generic_tables

        return generic_tables(self, results)

    def headline_tables(self, results: list[CellResult], base: str) -> list[Table]:
        """Tables the suite adds to the report's headline, after the ratios to `base`
        (queue: each language's cost above its null floor). By default none."""
        return []

    def attachments(self, results: list[CellResult], processes, context: dict) -> dict[str, bytes]:
        """Files written beside the report, by name: charts, logs. `processes(key)` gives
        a cell's stored process rows (their driver results); `context["all"]` is every
        cell of the run (the limit suite's among them), `context["base"]` the language
        the report reads the others against."""
        return {}

    @property
    def compared_metrics(self) -> tuple[str, ...]:
        return self.compared or (self.primary,)

    def lib_rank(self, lib: str) -> tuple[int, str]:
        """A library's place in reading order: lib_order first, then alphabetical."""
        order = self.lib_order
        return (order.index(lib) if lib in order else len(order), lib)

    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.all_params)


def _registry() -> dict[str, Suite]:
    from . import codec, limit, queue, readbytes, rpc

    suites = (rpc.SUITE, codec.SUITE, queue.SUITE, readbytes.SUITE, limit.SUITE)
    return {s.name: s for s in suites}


SUITES: dict[str, Suite] = _registry()


def get(name: str) -> Suite:
    try:
        return SUITES[name]
    except KeyError:
        raise KeyError(f"unknown suite {name!r}; known: {', '.join(SUITES)}") from None


def all_params() -> dict[str, tuple[str, ...]]:
    """Every parameter name of every suite, with the union of its legal values (in reading
    order): the command line's filters."""
    out: dict[str, list[str]] = {}
    for suite in SUITES.values():
        for p in suite.all_params:
            values = out.setdefault(p.name, [])
            values += [v for v in p.values if v not in values]
    return {k: tuple(v) for k, v in out.items()}


def param_help(name: str) -> str:
    core = next((p for p in CORE_PARAMS if p.name == name), None)
    if core is not None:
        return core.help
    return "; ".join(
        f"{s.name}: {s.param(name).help}" for s in SUITES.values() if s.param(name) is not None
    )
