"""The `wirebench` command: list, build, run, report, runs."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from . import (
    ab,
    adaptive,
    compare,
    design,
    distributed,
    drivers,
    export,
    html,
    matrix,
    orchestrate,
    paths,
    publish,
    registry,
    report,
    site,
)
from .cells import BUILDS, DEFAULT_BUILD
from .orchestrate import Request, RunError
from .profiles import DEFAULT_PROFILE, PROFILES
from .store import (
    Store,
    StoreError,
    display_name,
    is_database_error,
    is_url,
    merge,
    writable,
)

DEFAULT_DB = paths.RESULTS / "wirebench.db"
# The options `run --resume` takes: the store, and how the result is shown. Any other
# option given with it is refused by name (the run is finished as it was planned).
RESUME_TAKES = frozenset({"resume", "db", "show_report", "as_json", "lease"})
# Tables and progress lines are wide: in a log or a pipe, do not fold them to 80 columns.
console = Console(stderr=True, width=None if sys.stderr.isatty() else 220)
out = Console(width=None if sys.stdout.isatty() else 220)


def _fail(message: str, code: int = 2) -> None:
    console.print(f"[bold red]error:[/] {message}", highlight=False)
    sys.exit(code)


class MemorySize(click.ParamType):
    """A size in bytes: 8GiB, 512MiB, 1073741824; `none` (0) for no limit."""

    name = "size"
    UNITS = {"": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20}
    UNITS |= {"g": 1 << 30, "gib": 1 << 30}

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = value.strip().lower()
        if text == "none":
            return 0
        number, unit = text.rstrip("kmgib"), text[len(text.rstrip("kmgib")) :]
        try:
            size = int(float(number) * self.UNITS[unit])
        except (ValueError, KeyError):
            self.fail(f"{value!r} is not a size (8GiB, 512MiB or none)", param, ctx)
        if size < 16 << 20:
            self.fail(f"{value!r} is too small for a driver to start (16MiB at least)", param, ctx)
        return size


def _db_option(f):
    return click.option(
        "--db",
        metavar="PATH|URL",
        default=lambda: os.environ.get("WIREBENCH_DB", str(DEFAULT_DB)),
        show_default="results/wirebench.db",
        help="The results: an SQLite file, or a PostgreSQL URL (postgresql://user@host/db) "
        "that many machines share.",
    )(f)


def _open_store(db: str, must_exist: bool = False, write: bool = False) -> Store:
    """The store; `write`: for a command that stores results (run, merge). A read-only
    file is refused for those, by name, and read through a copy by the others."""
    if must_exist and not is_url(db) and not Path(db).exists():
        _fail(f"no results database at {db}; `wirebench run` makes one")
    can_write = writable(db)
    if write and not can_write:
        _fail(
            f"the results database {db} is read-only here: this command stores results in "
            "it. Make it (and its folder) writable, or give --db another file; report, "
            "runs, compare and export read a read-only store."
        )
    try:
        return Store(db, readonly=not can_write)
    except StoreError as e:
        _fail(f"cannot use the results database: {e}")
    except Exception as e:  # sqlite3, psycopg and OSError alike: name the store
        _fail(f"cannot open the results database {display_name(db)}: {e}".strip())


def report_dir(db: str) -> Path:
    """Where reports go: beside an SQLite file; for a server, the default results folder."""
    return DEFAULT_DB.parent if is_url(db) else Path(db).parent


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """wirebench: verified, repeatable benchmarks of serialization, messaging and byte I/O
    across languages. `wirebench run` measures and reports; see README.md."""


# -- list ----------------------------------------------------------------------------------------


@main.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
def list_cmd(as_json: bool) -> None:
    """Suites, cases, parameters, metrics, implementations, and which drivers are built."""
    data = orchestrate.catalogue()
    if as_json:
        out.print_json(json.dumps(data))
        return
    for name, s in data["suites"].items():
        out.print(f"[bold]suite {name}[/]: {s['description']}")
        for case, desc in s["cases"].items():
            out.print(f"  case {case}: {desc}")
        for param, values in s["params"].items():
            out.print(f"  parameter {param}: {', '.join(values)}")
        for metric, desc in s["metrics"].items():
            out.print(f"  metric {metric}: {desc}")
    out.print("[bold]profiles[/]")
    for k, v in data["profiles"].items():
        out.print(f"  {k}: {v}")
    out.print("[bold]drivers[/]")
    for name, e in data["drivers"].items():
        who = f"{name} ({e['lang']}, {e['toolchain']})"
        if e["built"]:
            libs = ", ".join(f"{e['lang']}/{lib}" for lib in e.get("libs", []))
            out.print(f"  {who}: built, {e.get('cells', '?')} cells; {libs} {e.get('error', '')}")
        else:
            missing = f" (missing: {', '.join(e['missing'])})" if e["missing"] else ""
            out.print(f"  {who}: not built: `wirebench build {name}`{missing}")


# -- build ---------------------------------------------------------------------------------------


def _build(builds: list[tuple[str, str]], only_missing: bool = False) -> dict[str, str]:
    """Builds each (driver, build profile); cargo, CMake and Go rebuild only what changed,
    and a command two builds share runs once. A library variant is always brought up to
    date, and one that fails to build does not stop the run: {driver: why} of those."""
    ran: set = set()
    broken: dict[str, str] = {}
    for name, build in builds:
        d = drivers.get(name)
        if only_missing and d.variant is None and d.is_built(build):
            continue
        console.print(f"building the {name} driver ({build})", highlight=False)
        try:
            d.build_driver(
                lambda m: console.print(f"  {m}", highlight=False, markup=False), build, ran
            )
        except drivers.DriverError as e:
            if d.variant is None:
                _fail(str(e), 1)
            console.print(f"[red]error:[/] {e}; its cells will be error rows", highlight=False)
            broken[name] = str(e)
    return broken


def _build_variants(plan, broken: dict[str, str]) -> None:
    """Relinks the layout variants the plan rotates over that are missing or stale (of the
    drivers that built; a library variant's failure joins `broken`)."""
    ran: set = set()  # variant 0's commands, run once (go generate)
    for name, build in plan.builds:
        k = plan.layouts.get(name, 1)
        if k > 1 and name not in broken:
            console.print(f"layout variants of the {name} driver ({build}): {k}", highlight=False)
            try:
                drivers.get(name).build_variants(
                    lambda m: console.print(f"  {m}", highlight=False, markup=False), build, k, ran
                )
            except drivers.DriverError as e:
                if drivers.get(name).variant is None:
                    _fail(str(e), 1)
                console.print(f"[red]error:[/] {e}; its cells will be error rows", highlight=False)
                broken[name] = str(e)


@main.command()
@click.argument("names", nargs=-1)
@click.option(
    "--build",
    "which",
    type=click.Choice([*BUILDS, "all"]),
    default=DEFAULT_BUILD,
    show_default=True,
    help="Which build: stock (each ecosystem's default release build), tuned, or all "
    "(the cells' `build`; `run --profile` is how much work, not this).",
)
def build(names: tuple[str, ...], which: str) -> None:
    """Builds the drivers (all, or the ones named: cpp, rust, go, java)."""
    try:
        selected = [drivers.get(name).name for name in names] or list(drivers.DRIVERS)
    except drivers.DriverError as e:
        _fail(str(e))
    profiles = BUILDS if which == "all" else (which,)
    _build([(name, b) for name in selected for b in profiles])
    console.print(f"built ({', '.join(profiles)}): " + ", ".join(selected), highlight=False)


# -- run -----------------------------------------------------------------------------------------


def _filter_options(f):
    helps = {
        "suite": f"Suites ({', '.join(registry.SUITES)}).",
        "case": f"Cases ({', '.join(c for s in registry.SUITES.values() for c in s.cases)}).",
        "lang": "Languages (cpp, rust, go, java).",
        "toolchain": "Toolchains (g++, clang++, rustc, gc, openjdk, gdc, ldc2): chooses drivers.",
        "lib": "Libraries (capnp, protobuf, null, ...).",
    }
    for name in reversed(matrix.FILTER_NAMES):
        text = helps.get(name) or registry.param_help(name) + "."
        f = click.option(f"--{name}", metavar="LIST", help=text + " Comma list.")(f)
    return f


def _verdict_options(threshold: float):
    """How a comparison calls a cell different, and when its exit code fails a CI job
    (compare; run --ab, whose sides share every round and so see smaller changes)."""

    def apply(f):
        f = click.option(
            "--fail-on",
            type=click.Choice(["slower", "any", "never"]),
            default="slower",
            show_default=True,
            help="Exit 1 when a cell is slower (or has lost its number), on any difference, "
            "or never.",
        )(f)
        f = click.option(
            "--alpha",
            type=click.FloatRange(0, 1, min_open=True),
            default=compare.DEFAULT_ALPHA,
            show_default=True,
            help="False discovery rate: a change is called when its adjusted p (q) is below it.",
        )(f)
        return click.option(
            "--threshold",
            type=click.FloatRange(0, 10),
            default=threshold,
            show_default=True,
            help=f"Smallest change called a difference ({threshold:.2f}: ±{threshold:.0%}).",
        )(f)

    return apply


@main.command()
@_filter_options
@click.option(
    "--profile",
    type=click.Choice(list(PROFILES)),
    default=DEFAULT_PROFILE,
    show_default=True,
    help="How much work: quick or standard (published counts).",
)
@click.option("--repeat", type=click.IntRange(1), help="Processes per cell (profile's by default).")
@click.option("--samples", type=click.IntRange(1), help="Timed samples per process.")
@click.option(
    "--iters", type=click.IntRange(1), help="Iterations per sample, for every case (not limits)."
)
@click.option("--timeout", type=click.FloatRange(min=0.1), help="Seconds one process may take.")
@click.option(
    "--memory-limit",
    type=MemorySize(),
    metavar="SIZE",
    help="Address space each process may map: 8GiB (the default), 512MiB, or none.",
)
@click.option(
    "--pair",
    metavar="LIST",
    help="Pipe cells between languages, CLIENT:SERVER (rust:cpp,cpp:rust); only those run.",
)
@click.option("--no-pairs", is_flag=True, help="Leave out the profile's cross-language pairs.")
@click.option("--no-limits", is_flag=True, help="Leave out the memcpy limit cells.")
@click.option(
    "--headline",
    is_flag=True,
    help="Only the headline cells each suite chooses (what `make bench` runs; "
    "docs/methodology.md says what they leave out).",
)
@click.option(
    "--aa",
    "twins",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="A/A twins per suite and language: cells measured twice, for the noise floor.",
)
@click.option(
    "--measure",
    type=click.Choice(["time", "instructions", "all"]),
    default="time",
    show_default=True,
    help="Wall-clock time in fresh processes, instructions per iteration counted by "
    "valgrind (native drivers; exact, repeatable), or both.",
)
@click.option(
    "--until",
    type=click.FloatRange(0.001, 1.0),
    metavar="WIDTH",
    help="Adaptive repetition in two stages: a pilot of at least 6 rounds, then, for the "
    "cells of every headline ratio whose 95%% interval is wider than ±WIDTH (0.05: ±5%%), "
    "as many more as the pilot's variance says it needs (Stein's rule), sized once.",
)
@click.option(
    "--budget",
    type=click.FloatRange(min=1.0),
    metavar="SECONDS",
    help="With --until: the seconds the run may take. The pilot takes at most 60%% of it "
    "by the design's costs (cells costly for their noise get 4-6 rounds), the second stage "
    "what is left.",
)
@click.option(
    "--layouts",
    type=int,
    metavar="K",
    help="Layout variants per native driver: round r runs variant r mod K (relinked with "
    "a shuffled code layout; 1: one binary). Default: each language's, from the "
    "dimensioning experiment in docs/methodology.md.",
)
@click.option(
    "--address-seeds",
    type=int,
    default=0,
    metavar="P",
    help="Place every process by a seed instead of randomly: round r runs with address "
    "randomisation off and its stack moved by seed r mod P (docs/methodology.md, "
    '"Address placement"). 0: randomised by the kernel.',
)
@click.option(
    "--claims",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Only the cells the claims of FILE compare (docs/claims.toml: the seeds' claims); "
    "with --headline, those and the headline cells.",
)
@click.option(
    "--with",
    "with_",
    multiple=True,
    metavar="LANG:NAME=SOURCE",
    help="A library variant (repeatable): the driver of LANG built against another version "
    "or checkout of its library NAME (rust:capnp=0.26.0, go:capnp=../go-capnp, "
    "cpp:capnp=/opt/capnp-1.1 as an install prefix); its cells run beside the committed "
    "driver's, labelled NAME@SOURCE (docs/methodology.md, 'Library variants').",
)
@click.option(
    "--ab",
    multiple=True,
    metavar="SIDE",
    help="An A/B run: --ab B, or --ab A --ab B (A: the committed drivers by default). A side "
    "is `committed`, `build=stock|tuned`, or a library variant LANG:NAME=SOURCE. Both sides "
    "of every cell run back to back in each round; B is read against A, paired by round "
    "(docs/methodology.md, 'A/B'), and the exit code is compare's.",
)
@click.option(
    "--quiet-gate/--no-quiet-gate",
    "quiet",
    default=True,
    show_default=True,
    envvar="WIREBENCH_QUIET_GATE",
    help="Measure a process again (at most twice, and a tenth of the run's processes) when "
    "other programs kept over 0.1 CPU busy while it ran, after waiting for quiet "
    '(docs/methodology.md, "The quiet gate").',
)
@_verdict_options(compare.AB_THRESHOLD)
@click.option("--resume", "resume", type=int, metavar="RUN", help="Finish a stopped run.")
@click.option(
    "--distribute",
    is_flag=True,
    help="Store the plan and queue its units of work for a fleet: `wirebench worker --db "
    "URL` on each machine runs them (a PostgreSQL store; docs/fleet.md).",
)
@click.option(
    "--lease",
    type=click.FloatRange(min=1),
    default=distributed.DEFAULT_LEASE,
    show_default=True,
    metavar="SECONDS",
    help="With --distribute: seconds after a worker's last heartbeat that its unit goes "
    "back to the queue.",
)
@click.option(
    "--report/--no-report",
    "show_report",
    default=True,
    show_default=True,
    help="Print the report and write it as Markdown when done.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run's results as JSON.")
@_db_option
def run(
    profile,
    repeat,
    samples,
    iters,
    timeout,
    memory_limit,
    pair,
    no_pairs,
    no_limits,
    measure,
    headline,
    twins,
    until,
    budget,
    layouts,
    address_seeds,
    claims,
    with_,
    ab,
    quiet,
    threshold,
    alpha,
    fail_on,
    resume,
    distribute,
    lease,
    show_report,
    as_json,
    db,
    **filters,
) -> None:
    """Runs cells in fresh, pinned processes, verifies and stores each as it finishes."""
    if resume is not None:
        ctx = click.get_current_context()
        asked = [
            f"--{name.replace('_', '-')}"
            for name in ctx.params
            if name not in RESUME_TAKES
            and ctx.get_parameter_source(name)
            not in (click.core.ParameterSource.DEFAULT, click.core.ParameterSource.ENVIRONMENT)
        ]
        if asked:
            _fail(
                "--resume finishes a run as it was planned; it takes no filters or counts "
                f"(given: {', '.join(asked)})"
            )
        store = _open_store(db, write=True)
        try:
            plan, warning = orchestrate.resume(store, resume)
        except RunError as e:
            _fail(str(e))
        if warning:
            console.print(f"warning: {warning}", highlight=False)
        broken = _build(plan.builds, only_missing=True)
        _build_variants(plan, broken)
        run_id = resume
    else:
        req = Request(
            filters=filters,
            profile=profile,
            reps=repeat,
            samples=samples,
            iters=iters,
            timeout=timeout,
            memory_limit=memory_limit,
            pairs=pair,
            no_pairs=no_pairs,
            no_limits=no_limits,
            measure=measure,
            twins=twins,
            headline=headline,
            until=until,
            budget=budget,
            layouts=layouts,
            address_seeds=address_seeds,
            claims=claims,
            with_=with_,
            ab=ab,
            quiet=quiet,
        )
        try:
            names = orchestrate.selected_drivers(req)
            _build([(n, b) for n in names for b in orchestrate.selected_builds(req)])
            plan = orchestrate.plan(req, names)
        except RunError as e:
            _fail(str(e))
        broken = _build([(n, b) for n, b in plan.builds if drivers.get(n).variant])
        _build_variants(plan, broken)
        if plan.until:
            pilot, warning = adaptive.pilot_fits(plan, design.load())
            if warning:
                console.print(f"warning: {warning}", highlight=False)
            elif plan.budget and pilot == pilot:
                fewer = sum(e.reps < (req.reps or adaptive.PILOT) for e in plan.entries)
                console.print(
                    f"the pilot: about {pilot:.0f} s of the {plan.budget:.0f} s budget, by the "
                    "design's costs (docs/data/design.json)"
                    + (f"; {fewer} cells get fewer rounds to fit it" if fewer else ""),
                    highlight=False,
                )
        store = _open_store(db, write=True)
        command = shlex.join(["wirebench", *sys.argv[1:]])
        run_id = None
    if distribute:
        try:
            distributed.check_request(db, plan)
        except distributed.DistributedError as e:
            _fail(str(e))
    try:
        if run_id is None:
            run_id = orchestrate.start(store, req, plan, command)
            if distribute:
                _distribute(store, db, run_id, plan, lease, as_json)
                return
        if distributed.is_distributed(json.loads(store.run(run_id)["provenance"])):
            status = _work_here(store, db, run_id)
        else:
            status = _run_with_progress(store, run_id, plan, broken)
        data = orchestrate.build_report(store, run_id)
    except Exception as e:
        if not is_database_error(e):
            raise
        resume_hint = f"`wirebench run --resume {run_id}` finishes it" if run_id else "rerun it"
        _fail(
            f"the results database {display_name(db)} failed: {str(e).strip()}. Every "
            f"process stored before is kept; the run stopped here. Once the store can be "
            f"written again (free disk space?), {resume_hint}.",
            code=1,
        )
    if status == "interrupted":
        console.print(
            f"interrupted: finished cells are stored; `wirebench run --resume {run_id}` "
            "completes the run",
            highlight=False,
        )
    verdict = _ab_comparison(store, run_id, data, plan, threshold, alpha) if plan.ab else None
    if as_json:
        extra = {"ab": compare.as_json(verdict)} if verdict else {}
        out.print_json(json.dumps(report.as_json(data) | extra))
    elif show_report:
        _emit_report(data, db)
    if verdict is not None and not as_json:
        click.echo(compare.markdown(verdict), nl=False)
    if status == "interrupted":
        sys.exit(130)
    if verdict is not None and verdict.regressed(fail_on):
        sys.exit(1)
    if data.errors:
        console.print(
            f"{len(data.errors)} cells failed; their errors are in the report", highlight=False
        )
        sys.exit(1)


def _distribute(store, db, run_id, plan, lease, as_json) -> None:
    units = distributed.enqueue(store, db, run_id, plan, lease)
    processes = len(orchestrate.pending(store, run_id, plan))
    if as_json:
        out.print_json(json.dumps({"run": run_id, "units": units, "processes": processes}))
        return
    console.print(
        f"run {run_id}: {len(plan.entries)} cells, {processes} processes in {units} units of "
        f"work, queued in {display_name(db)}. Start `wirebench worker --db URL` on each "
        f"machine; `wirebench runs` shows each worker's progress, and `wirebench report "
        f"--run {run_id}` the results once done.",
        highlight=False,
    )


def _work_here(store, db, run_id) -> str:
    """`--resume` of a distributed run: this machine works it as a worker would."""
    console.print(f"run {run_id} is distributed: working it here as one of its workers")
    worker = distributed.Worker(db, only={run_id}, say=_say, prepare=_prepare)
    distributed.work(worker)
    return "interrupted" if store.units_left(run_id) else "complete"


def _say(message: str) -> None:
    console.print(message, highlight=False, markup=False)


def _prepare(plan) -> dict[str, str]:
    """Builds what a plan needs and this machine lacks: {driver: why it did not build}."""
    broken = _build(plan.builds, only_missing=True)
    _build_variants(plan, broken)
    return broken


@main.command()
@click.option(
    "--host",
    metavar="NAME",
    default=distributed.host_name,
    show_default="this machine's host name",
    help="This machine's name in the run's tables.",
)
@click.option(
    "--class",
    "hw_class",
    metavar="NAME",
    help="A hardware class: hosts that declare the same class are reported together once "
    "the report's check across them agrees (docs/fleet.md).",
)
@click.option("--run", "only", type=int, multiple=True, metavar="ID", help="Only this run.")
@click.option("--forever", is_flag=True, help="When no run has work left, wait for new ones.")
@click.option(
    "--unlocked",
    is_flag=True,
    help="Measure without the machine lock, beside other workers of this machine (tests: "
    "their timings disturb each other).",
)
@_db_option
def worker(host, hw_class, only, forever, unlocked, db) -> None:
    """Works the distributed runs of the store (`run --distribute`): pulls one unit of work
    at a time, runs its processes under this machine's lock and stores them, until no run
    it may work has any left. A run whose drivers differ from this machine's is refused."""
    if not is_url(db):
        _fail("a worker works a shared store: --db postgresql://...")
    if unlocked:
        _say(f"worker {host}: measuring without the machine lock (--unlocked)")
    w = distributed.Worker(
        db,
        host=host,
        hw_class=hw_class,
        only=set(only) or None,
        locked=not unlocked,
        say=_say,
        prepare=_prepare,
    )
    try:
        done = distributed.work(w, forever=forever)
    except distributed.DistributedError as e:
        _fail(str(e), 1)
    except KeyboardInterrupt:
        _say(
            f"worker {host}: stopped; a unit it held goes back to the queue a lease after "
            "its last heartbeat, and its finished processes are kept"
        )
        sys.exit(130)
    _say(f"worker {host}: no work left; {done} units done here")


def _ab_comparison(store, run_id, data, plan, threshold, alpha) -> compare.Comparison:
    """An A/B run's B against its A, cell by cell, paired by round (ab.py)."""
    row = store.run(run_id)
    prov = json.loads(row["provenance"])
    return ab.comparison(data.results, dict(row), prov, plan.ab, threshold, alpha)


def _run_with_progress(store, run_id, plan, broken=None) -> str:
    tasks = orchestrate.pending(store, run_id, plan)
    total = len(tasks)
    console.print(
        f"run {run_id}: {len(plan.entries)} cells, {total} processes, profile {plan.profile}"
        + (
            f", more rounds while a headline ratio is wider than ±{plan.until:.0%}"
            if plan.until
            else ""
        ),
        highlight=False,
    )
    # On a terminal a live bar; in a log (CI, nohup) one line per process with an ETA.
    live = console.is_terminal
    started, ran, finished = time.monotonic(), 0, 0
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
        disable=not live,
    ) as progress:
        bar = progress.add_task("starting", total=len(tasks))

        def on_progress(task, rep, outcome):
            nonlocal ran, finished
            if outcome is None:
                progress.update(bar, description=f"{task.cell.key} #{rep + 1}"[:70])
                return
            finished += 1
            progress.advance(bar)
            if outcome == "skipped":
                return
            ran += 1
            if not outcome.ok:
                progress.console.print(
                    f"[red]FAILED[/] {task.cell.key}: {outcome.error}", highlight=False
                )
            if not live:
                elapsed = time.monotonic() - started
                eta = elapsed / ran * (total - finished)
                console.print(
                    f"[{finished}/{total}] {task.cell.key} #{rep + 1} "
                    f"{'ok' if outcome.ok else 'FAILED'} {outcome.wall_ns / 1e9:.1f} s, "
                    f"ETA {int(eta // 60)}:{int(eta % 60):02d}",
                    highlight=False,
                    markup=False,
                )

        def on_round(stage, added):
            nonlocal total
            total = finished + len(added)
            progress.update(bar, total=total)
            partly = f", {len(stage.partial)} part of the way (budget)" if stage.partial else ""
            left = f", {stage.left_wide} left as they are (budget)" if stage.left_wide else ""
            progress.console.print(
                f"second stage, sized from the pilot: {len(stage.keys)} cells, {len(added)} "
                f"processes, about {stage.seconds:.0f} s, to narrow {len(stage.wide)} headline "
                f"ratios to ±{plan.until:.0%}{partly}{left}",
                highlight=False,
            )

        def build(grown) -> None:
            progress.console.print(
                "the second stage's rounds, each on a layout variant of its own:"
            )
            _build_variants(grown, broken if broken is not None else {})

        return orchestrate.execute(store, run_id, plan, on_progress, on_round, broken, build)


def _emit_report(data: report.Report, db: str, html_dir: Path | None = None) -> Path | None:
    """Prints the report and writes it beside the database: report-N.md, and report-N/
    with the charts and logs and the HTML site (index.html) over them, or the site and
    its files in html_dir. A folder that cannot be written (a read-only store's) costs
    the files, with a warning, not the printed report."""
    report.print_terminal(data, out)
    where = report_dir(db)
    path = where / f"report-{data.run['id']}.md"
    site = html_dir or where / data.files_dir
    try:
        for files in dict.fromkeys([site, where / data.files_dir]):  # --html DIR first
            for name, content in data.attachments.items():
                f = files / name
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_bytes(content)
            if files == site:
                pages = html.write(data, site)
        path.write_text(report.markdown(data))
    except OSError as e:
        console.print(
            f"warning: the report's files were not written ({e}); "
            "`wirebench report --html DIR` writes them elsewhere",
            highlight=False,
        )
        return None
    console.print(f"report written to {path} and {pages[0]}", highlight=False)
    return path


# -- report, runs --------------------------------------------------------------------------------


@main.command("report")
@click.option("--run", "run_id", type=int, metavar="ID", help="The run (default: the latest).")
@click.option(
    "--compare",
    metavar="A:B",
    help="Side by side with ratios: two languages (rust:cpp) or two libraries (capnp:protobuf).",
)
@click.option(
    "--against",
    metavar="LANG",
    help="Every language as a ratio to this one (default: cpp, when the run has several).",
)
@click.option(
    "--html",
    "html_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the HTML site (index.html, a page per suite, the charts) into this "
    "directory (by default it goes in report-N/ beside the Markdown).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@_db_option
def report_cmd(run_id, compare, against, html_dir, as_json, db) -> None:
    """Prints a stored run's tables and writes them as Markdown and HTML beside the
    database."""
    pair = None
    if compare:
        a, sep, b = compare.partition(":")
        if not (sep and a and b):
            _fail(f"--compare takes A:B (like rust:cpp or capnp:protobuf), not {compare!r}")
        pair = (a, b)
    store = _open_store(db, must_exist=True)
    try:
        data = orchestrate.build_report(store, run_id, compare=pair, against=against)
    except RunError as e:
        _fail(str(e))
    if as_json:
        out.print_json(json.dumps(report.as_json(data)))
    else:
        _emit_report(data, db, html_dir)


def _machine(prov: dict) -> dict:
    return {"host": prov.get("host"), "cpu": prov.get("cpu"), "cpus": prov.get("cpus")}


@main.command()
@click.option("--host", metavar="NAME", help="Only the runs of this machine.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@_db_option
def runs(host, as_json, db) -> None:
    """The stored runs, of every machine that wrote to the store."""
    store = _open_store(db, must_exist=True)
    rows = [(r, json.loads(r["provenance"])) for r in store.runs()]
    if host:
        rows = [(r, prov) for r, prov in rows if prov.get("host") == host]
    store = _open_store(db, must_exist=True)
    fleet = {r["id"]: store.unit_progress(r["id"]) for r, p in rows if "distributed" in p}
    if as_json:
        keys = ("id", "uid", "started", "finished", "status", "profile", "command")
        counts = ("n_cells", "n_ok", "n_error")
        out.print_json(
            json.dumps(
                [
                    {k: r[k] for k in keys + counts}
                    | _machine(p)
                    | ({"distributed": fleet[r["id"]]} if r["id"] in fleet else {})
                    for r, p in rows
                ]
            )
        )
        return
    for r, prov in rows:
        rev = ((prov.get("git") or {}).get("revision") or "?")[:10]
        m = _machine(prov)
        out.print(
            f"{r['id']:>4}  {r['started']}  {r['status']:<11} {r['profile']:<8} "
            f"{r['n_ok']}/{r['n_cells']} ok, {r['n_error']} error  git {rev}  "
            f"{m['host']} ({m['cpu']} x{m['cpus']})  {r['command']}",
            highlight=False,
            markup=False,
        )
        for line in distributed.progress_lines(fleet.get(r["id"])):
            out.print(f"      {line}", highlight=False, markup=False)


@main.command("merge")
@click.argument("source", metavar="SOURCE")
@_db_option
def merge_cmd(source, db) -> None:
    """Copies every run of SOURCE (an SQLite file, say another machine's) into the store
    (--db): new runs under new ids, and to a run already there only the processes it
    lacks. Merging twice copies nothing twice; SOURCE is never changed."""
    if not is_url(source) and not Path(source).is_file():
        _fail(f"no results database at {source}")
    same = is_url(source) and source == db
    if not same and not is_url(source) and not is_url(db) and Path(db).exists():
        same = Path(source).resolve() == Path(db).resolve()
    if same:
        _fail(f"{display_name(source)} is the store itself: nothing to merge")
    try:
        src = Store(source, readonly=True)
    except StoreError as e:
        _fail(f"cannot merge from {display_name(source)}: {e}")
    except Exception as e:
        _fail(f"cannot open {display_name(source)}: {e}")
    dest = _open_store(db, write=True)
    for src_id, dest_id, new, cells, procs in merge(src, dest):
        if new:
            what = f"-> {dest_id} (new: {cells} cells, {procs} processes)"
        else:
            what = f"= {dest_id} (already there: {procs} new processes, {cells} cells updated)"
        out.print(f"run {src_id} {what}", highlight=False)
    src.close()


# -- compare, export -----------------------------------------------------------------------------


@main.command("compare")
@click.argument("run_ids", metavar="BASE [RUN]", nargs=-1, type=int, required=True)
@click.option(
    "--between",
    metavar="A:B",
    help="Within one run: two drivers (cpp:rust) or two libraries (protobuf:capnp), "
    "B read against A.",
)
@_verdict_options(compare.DEFAULT_THRESHOLD)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@_db_option
def compare_cmd(run_ids, between, threshold, alpha, fail_on, as_json, db) -> None:
    """Cell by cell, RUN against BASE (before and after a change, or two machines), or
    two drivers or libraries of one run: the ratio with its 95% interval, a t test, and
    a verdict (faster, slower, no difference). Markdown for a pull request, or
    JSON; the exit code fails a CI job on a regression."""
    if len(run_ids) > 2 or (between is None) == (len(run_ids) == 1):
        _fail("compare takes two runs (BASE RUN), or one run and --between A:B")
    store = _open_store(db, must_exist=True)
    try:
        if between:
            a, sep, b = between.partition(":")
            if not (sep and a and b):
                _fail(f"--between takes A:B (like cpp:rust or protobuf:capnp), not {between!r}")
            sides = compare.within_sides(store, run_ids[0], a, b)
        else:
            sides = tuple(compare.run_side(store, r) for r in run_ids)
    except compare.CompareError as e:
        _fail(str(e))
    result = compare.compare(*sides, threshold=threshold, alpha=alpha)
    if as_json:
        out.print_json(json.dumps(compare.as_json(result)))
    else:
        click.echo(compare.markdown(result), nl=False)
    if result.regressed(fail_on):
        sys.exit(1)


@main.command("export")
@click.argument("run_id", metavar="[RUN]", required=False, type=int)
@click.option(
    "--format", "fmt", type=click.Choice(export.FORMATS), default="json", show_default=True
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file (default: standard output).",
)
@_db_option
def export_cmd(run_id, fmt, output, db) -> None:
    """A stored run (default: the latest) as JSON, CSV or BMF (the Bencher Metric Format),
    with every metric, its 95% interval and its unit."""
    store = _open_store(db, must_exist=True)
    row = store.run(run_id)
    if row is None:
        _fail(f"no run {run_id} in the results database; `wirebench runs` lists them")
    run_id = row["id"]
    if fmt == "bmf":
        text, left_out = export.to_bmf(store, run_id)
        if left_out:
            console.print(
                f"BMF has no place for a cell without a number: {len(left_out)} failed or "
                "unfinished cells left out: " + ", ".join(left_out),
                highlight=False,
                markup=False,
            )
    else:
        text = export.to_json(store, run_id) if fmt == "json" else export.to_csv(store, run_id)
    if output:
        output.write_text(text)
        console.print(f"run {run_id} exported as {fmt} to {output}", highlight=False)
    else:
        click.echo(text, nl=False)


@main.command("site")
@click.argument("out_dir", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--by",
    type=click.Choice(site.BY),
    default="date",
    show_default=True,
    help="The order of the runs along each history chart.",
)
@_db_option
def site_cmd(out_dir, by, db) -> None:
    """The history site of a whole store into DIR: every run with its report, and per
    cell a chart across the runs (one line per host, A/B runs marked). Works from file://."""
    store = _open_store(db, must_exist=True)
    pages = site.write(store, out_dir, by)
    console.print(f"{len(pages)} pages written; open {pages[0]}", highlight=False)


@main.command("publish")
@click.argument("run_id", metavar="RUN", type=int)
@click.option(
    "--as",
    "name",
    required=True,
    help="The name docs/results.md.j2 calls the run by (docs/data/NAME.json.gz).",
)
@click.option(
    "--allow-dirty",
    is_flag=True,
    help="Publish a run of a tree with uncommitted changes (refused otherwise).",
)
@_db_option
def publish_cmd(run_id, name, allow_dirty, db) -> None:
    """Archives a complete run in docs/data/ for the documents made from it (then run
    `wirebench results`): its cells, processes and metrics, uid, revision and command."""
    store = _open_store(db, must_exist=True)
    try:
        path, uid = publish.publish(store, run_id, name, allow_dirty=allow_dirty)
    except publish.PublishError as e:
        _fail(str(e))
    console.print(f"run {run_id} ({uid}) published as {name}: {path}", highlight=False)


@main.command("design")
@click.option(
    "--run",
    "run_id",
    type=int,
    metavar="RUN",
    help="Choose the design from a stored dimensioning run instead of running one.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=design.DESIGN_FILE,
    show_default=True,
    help="Where the design is written (every quick-profile plan reads docs/data/design.json).",
)
@_filter_options
@_db_option
def design_cmd(run_id, out, db, **filters) -> None:
    """Measures how this machine's variance and costs split between samples, processes and
    layouts for every suite and driver (the dimensioning run: a few headline cells each,
    some minutes), and writes the design of repetition chosen from them (design.py):
    iterations per sample and samples per process, per suite and driver. The filters
    narrow the dimensioning run (a design then has levels for what it ran only)."""
    store = _open_store(db, must_exist=run_id is not None, write=True)
    if run_id is None:
        req = Request(filters=filters, profile=DEFAULT_PROFILE)
        try:
            names = orchestrate.selected_drivers(req)
            _build([(n, DEFAULT_BUILD) for n in names])
            plan = orchestrate.dimensioning(names, filters)
        except RunError as e:
            _fail(str(e))
        broken = _build([(n, b) for n, b in plan.builds if drivers.get(n).variant])
        _build_variants(plan, broken)
        run_id = orchestrate.start(store, req, plan, shlex.join(["wirebench", *sys.argv[1:]]))
        if _run_with_progress(store, run_id, plan, broken) != "complete":
            _fail(
                f"the dimensioning run {run_id} was interrupted: `wirebench design --run "
                f"{run_id}` after `wirebench run --resume {run_id}`",
                130,
            )
    row = store.run(run_id)
    if row is None:
        _fail(f"no run {run_id} in {display_name(db)}")
    levels = design.measure(store, run_id)
    if not levels:
        _fail(f"run {run_id} has no cell of several processes and samples to design from")
    chosen = design.Design(row["uid"], {(v.suite, v.driver): v for v in levels})
    design.save(chosen, out)
    if out == design.DESIGN_FILE:
        path, _ = publish.publish(store, run_id, design.RUN_NAME)
        console.print(f"the dimensioning run {run_id} ({row['uid']}) archived as {path}")
        text = design.METHODOLOGY.read_text()
        design.METHODOLOGY.write_text(design.render_into(text, chosen))
    for line in design.table(chosen):
        click.echo(line)
    console.print(f"wrote {out}", highlight=False)


@main.command("results")
@click.option(
    "--check",
    is_flag=True,
    help="Do not write: exit 1 if docs/results.md differs from what the data make.",
)
def results_cmd(check) -> None:
    """Renders docs/results.md from the published runs (docs/data/), the seed claims
    (docs/claims.toml) and the template docs/results.md.j2."""
    try:
        text, charts = publish.render_all()
    except publish.PublishError as e:
        _fail(str(e))
    current = publish.OUTPUT.read_text() if publish.OUTPUT.exists() else None
    kept = {p.name: p.read_bytes() for p in publish.CHARTS.glob("*.svg")}
    if check:
        if current != text or kept != charts:
            _fail(
                f"{publish.OUTPUT} or its charts are not what `wirebench results` makes from "
                "the data",
                1,
            )
        console.print(f"{publish.OUTPUT} is what the data make", highlight=False)
        return
    publish.OUTPUT.write_text(text)
    publish.CHARTS.mkdir(exist_ok=True)
    for name in set(kept) - set(charts):
        (publish.CHARTS / name).unlink()
    for name, data in charts.items():
        (publish.CHARTS / name).write_bytes(data)
    console.print(f"wrote {publish.OUTPUT} and {len(charts)} charts", highlight=False)


if __name__ == "__main__":
    main()
