"""The suite contract: what a suite declares and the harness calls.

A suite (one module in wirebench/suites/, listed in wirebench/registry.py) holds
everything particular to it: its cases, its own parameters and their legal values, the
iterations each profile gives a case, how a driver's listed cell becomes cells of a run
(rpc's pipe pairs and placements), the checks that judge a driver's result, its metrics,
the fixtures the harness hands its cells, and the tables of its report section. The rest
of the harness knows suites only through `Suite`.

This module is on the floor below the suites (tests/test_structure.py): it knows cells,
the protocol's words and the result model, and no suite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .cells import BUILDS, CORE_PARAM_NAMES, Cell, Task
from .model import CellResult, Table, fmt_summary, fmt_value
from .protocol import Metric, MetricSpec


@dataclass(frozen=True)
class Param:
    """A parameter of a suite's cells: its legal values in reading order. `harness`
    parameters are the harness's own (where processes run) and never reach a driver."""

    name: str
    values: tuple[str, ...]
    help: str
    harness: bool = False


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
# (cells.BUILDS). Cells of two builds are never paired in one ratio.
BUILD = Param(
    "build",
    BUILDS,
    "the drivers' build profile: stock (each ecosystem's default release build) or tuned",
    harness=True,
)
# A/A: a cell measured twice in one run, the second time as its twin. The pair's ratio
# should be 1; how far it strays is the run's noise floor (comparisons.aa_table).
TWIN = Param(
    "twin", ("b",), "an A/A twin: the same cell again, for the run's noise floor", harness=True
)
CORE_PARAMS = (BUILD, TWIN)
# The third core parameter, `variant`, names a library variant (library_variants.py): its
# values are the run's own (`--with`), so it is no filter and no Param.
assert tuple(p.name for p in CORE_PARAMS) == CORE_PARAM_NAMES[: len(CORE_PARAMS)]


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
        harness = {p.name for p in self.all_params if p.harness} | set(CORE_PARAM_NAMES)
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

    def listed(self, driver: str, entry: dict) -> None:
        """Told each cell a driver lists, before a run's cells are made from them: what
        the suite learns from a listing (codec: each library's format). Raises
        ResultError for a listing it refuses."""

    def recall(self, section: dict) -> None:
        """Told what a stored run's provenance holds for this suite (what `provenance`
        gave), before the run resumes or is reported."""

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
        return generic_tables(self, results)

    def headline_tables(self, results: list[CellResult], base: str) -> list[Table]:
        """Tables the suite adds to the report's headline, after the ratios to `base`
        (queue: each language's cost above its null floor). By default none."""
        return []

    def attachments(self, results: list[CellResult], processes, context: dict) -> dict[str, bytes]:
        """Files written beside the report, by name: charts, logs. `processes(key)` gives
        a cell's stored process rows (their driver results); `context["all"]` is every
        cell of the run (the limit suite's among them), `context["base"]` the language
        the report reads the others against, `context["provenance"]` the run's."""
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


def signature(entry: dict) -> tuple:
    """A listed cell's identity across drivers."""
    return (entry["suite"], entry["case"], entry["lib"], tuple(sorted(entry["params"].items())))


# -- tables any suite gets ---------------------------------------------------------------


def _metric_cells(spec: MetricSpec, r: CellResult) -> list[str]:
    if not r.ok:
        return [""]
    m = r.metric(spec.name)
    if spec.kind == "histogram":
        return [
            "; ".join(
                f"p{p.percentile:g} {fmt_value(p.value, m.unit)} "
                f"[{fmt_value(p.low, m.unit)}-{fmt_value(p.high, m.unit)}]"
                for p in m.percentiles
            )
        ]
    s = m.summary
    return [fmt_summary(s, m.unit) + (" !" if s.noisy else "")]


def param_columns(suite: Suite, results: list[CellResult]) -> list[str]:
    """The suite's parameters that the run's cells carry (a run stored before `build`
    existed has none), in the suite's order."""
    return [n for n in suite.param_names() if any(n in r.cell.param for r in results)]


def generic_tables(suite: Suite, results: list[CellResult]) -> list[Table]:
    """One table per case: every metric's median (per iteration) with its interval, or
    a histogram's percentiles with theirs."""
    tables = []
    names = param_columns(suite, results)
    for case in suite.cases:
        rows = []
        for r in (r for r in results if r.cell.case == case):
            row = [r.cell.impl, *(r.cell.param.get(n, "") for n in names)]
            row += [r.status.upper() if not r.ok else "ok"]
            for spec in suite.metrics:
                row += _metric_cells(spec, r)
            rows.append(row)
        if rows:
            metric_heads = [f"{m.name} ({m.unit})" for m in suite.metrics]
            tables.append(
                Table(f"{suite.name} / {case}", ["impl", *names, "status", *metric_heads], rows)
            )
    return tables


def compared_metrics(suite: Suite, results: list[CellResult]) -> tuple[str, ...]:
    """The metrics the run's cells of a suite are compared on: the suite's timed ones, or
    for a run that only counted instructions, the count."""
    mine = [r for r in results if r.cell.suite == suite.name and r.ok]
    timed = tuple(m for m in suite.compared_metrics if any(m in r.metrics for r in mine))
    counted = any("instructions" in r.metrics for r in mine)
    return timed or (("instructions",) if counted else ())
