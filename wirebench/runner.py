"""The runner: runs each process of a plan, judges its result, stores it at once.

A process that crashes, hangs past the timeout, exits non-zero, or prints a malformed,
inconsistent or unverified result becomes an Outcome with status "error" and the reason
(the protocol's checks, then the cell's suite's); nothing raised from here stops a run.
"""

from __future__ import annotations

import dataclasses
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import adaptive, instructions, processes, protocol, registry
from .cells import Plan, Task
from .protocol import Metric, ResultError

# The driver identity a result must carry, by executable: {"lang", "toolchain"}.
Identities = dict[Path, dict]


@dataclass
class Outcome:
    status: str  # ok | error
    error: str | None = None
    result: dict | None = None  # the client's (or local process's) JSON result
    server: dict | None = None  # the server's JSON result, for pipe cells
    metrics: dict[str, Metric] = field(default_factory=dict)
    wall_ns: int = 0
    user_ns: int = 0
    sys_ns: int = 0
    max_rss_kb: int = 0
    steal_ns: int | None = None  # processes.Noise: the hypervisor's steal on its CPUs
    other_load: float | None = None  # and other programs' CPU use while it ran
    commands: list[str] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)
    layout: int = 0  # the layout variant of the client's (or local process's) driver
    server_layout: int | None = None  # and of the server's (pipe cells)
    host: str | None = None  # the worker's machine, in a distributed run
    remeasured: int = 0  # earlier attempts the quiet gate set aside (QuietGate)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def driver_args(task: Task, role: str | None, fixtures: dict[str, str]) -> list[str]:
    c = task.cell
    args = ["run", "--suite", c.suite, "--case", c.case, "--lib", c.lib]
    for k, v in registry.of(c).driver_params(c.param).items():
        args += [f"--{k}", v]
    args += ["--iters", str(task.iters), "--samples", str(task.samples)]
    args += ["--warmup", str(task.warmup)]
    for name, path in fixtures.items():
        args += [f"--{name.replace('_', '-')}", path]
    if role:
        args += ["--role", role]
    return args


def _identity(identities: Identities | None, exe: Path | None) -> dict:
    """Who a driver says it is; a driver the harness has not asked (tests) is whoever its
    result says."""
    return (identities or {}).get(exe) or {}


def execute(task: Task, identities: Identities | None = None) -> Outcome:
    """Runs one process (two for a pipe cell) of a cell and judges the result; or, for an
    instruction count, the two runs under valgrind that make one (instructions.py)."""
    if task.measure == "instructions":
        return _count(task, identities)
    return _with_fixtures(task, identities)


def _with_fixtures(task: Task, identities, wrap=None) -> Outcome:
    suite = registry.of(task.cell)
    workdirs: dict[str, str] = {}
    try:
        fixtures = {}
        for name in suite.fixtures:
            if name == "input":
                fixtures[name] = str(suite.input_file(task.cell))
            else:
                parent = suite.fixture_parent(task.cell, name)
                workdirs[name] = fixtures[name] = tempfile.mkdtemp(
                    prefix=f"wirebench-{name}-", dir=parent
                )
        return _execute(task, suite, fixtures, identities, wrap)
    except ResultError as e:  # the cell's fixtures cannot be made here
        return Outcome("error", str(e))
    finally:
        for d in workdirs.values():
            shutil.rmtree(d, ignore_errors=True)


def _execute(task, suite, fixtures, identities, wrap=None) -> Outcome:
    c = task.cell
    pipe = c.is_pipe
    wrap = wrap or (lambda role: [])
    client_argv = wrap("client") + [str(task.client)]
    client_argv += driver_args(task, "client" if pipe else None, fixtures)
    server_argv = None
    if pipe:
        server_argv = wrap("server") + [str(task.server)] + driver_args(task, "server", fixtures)
    try:
        done = processes.run(
            client_argv, c.param, task.timeout, server_argv, task.memory_limit, task.address_seed
        )
    except OSError as e:
        return Outcome("error", f"cannot start the driver: {e}")
    outcome = Outcome(
        "error",
        wall_ns=done.wall_ns,
        user_ns=done.user_ns,
        sys_ns=done.sys_ns,
        max_rss_kb=done.max_rss_kb,
        steal_ns=done.noise.steal_ns,
        other_load=done.noise.other_load,
        commands=done.commands,
        pids=done.pids,
        layout=task.layout,
        server_layout=task.server_layout if pipe else None,
    )
    if done.timed_out:
        outcome.error = f"timed out after {task.timeout:g} s (killed)"
        return outcome
    if done.overflow:
        limit = processes.OUTPUT_LIMIT >> 20
        outcome.error = f"the {done.overflow} passed the output limit of {limit} MiB (killed)"
        return outcome
    failures = [
        f
        for f in (
            done.client.failure("client" if pipe else "driver"),
            done.server.failure("server") if done.server else None,
        )
        if f
    ]
    if failures:
        # Both, client first: a server that died explains a client's EOF or EPIPE, and a
        # client that failed explains the server's.
        outcome.error = "; ".join(failures) + _memory_hint(done, task.memory_limit)
        return outcome
    try:
        outcome.result = protocol.parse_result(done.client.output()[0])
        if done.server:
            outcome.server = protocol.parse_result(done.server.output()[0])
        metrics = judge(task, outcome.result, outcome.server, identities)
        metrics.update(suite.inspect(task, outcome.result, fixtures))
    except ResultError as e:
        outcome.error = str(e)
        return outcome
    outcome.metrics = metrics
    outcome.status = "ok"
    return outcome


def judge(task: Task, result: dict, server: dict | None, identities=None) -> dict[str, Metric]:
    """The protocol's checks, then the suite's, of a parsed result (and its server's);
    the result's metrics, or ResultError. Whatever a driver printed, nothing else is
    raised: a check that trips over an unexpected shape is a malformed result too."""
    suite = registry.of(task.cell)
    try:
        client_id = _identity(identities, task.client) or _claimed(result)
        metrics = protocol.check_result(
            task, result, suite.metrics, suite.driver_params(task.cell.param), client_id
        )
        suite.check_result(task, result, metrics)
        if server is not None:
            server_id = _identity(identities, task.server) or _claimed(server)
            protocol.check_server(server, server_id)
            suite.check_server(task, server, result)
    except ResultError:  # a ValueError itself: kept as the check worded it
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as e:
        raise ResultError(f"malformed result: {type(e).__name__}: {e}") from None
    return metrics


# How each language's runtime says an allocation failed.
_OUT_OF_MEMORY = (
    "bad_alloc",  # C++
    "memory allocation of",  # Rust's alloc error handler
    "out of memory",  # Go, D
    "OutOfMemoryError",  # Java
    "Cannot allocate memory",
)


def _memory_hint(done: processes.Finished, limit: int | None) -> str:
    """Names the address-space limit when a process failed to allocate under it."""
    errs = " ".join(c.output()[1][-4000:] for c in done.children)
    if limit and any(s in errs for s in _OUT_OF_MEMORY):
        return f" (out of memory under the address-space limit of {limit / (1 << 30):g} GiB)"
    return ""


def _count(task: Task, identities) -> Outcome:
    """Instructions and estimated cycles per iteration: the difference of two runs under
    cachegrind, n1 and n2 iterations, each checked as a timed run is; for a language
    whose counts vary between processes (Go), n2's the median of several runs, made
    until two that pin it agree (instructions.py)."""
    c = task.cell
    how = instructions.counting(c.lang, c.server_lang)
    n1, n2 = instructions.iteration_counts(task.iters, how)
    roles = ("client", "server") if c.is_pipe else ("client",)
    langs = {"client": c.lang, "server": c.server_lang or c.lang}
    commands: list[str] = []

    def under_valgrind(n: int) -> tuple[dict[str, int], Outcome]:
        """One run of n iterations: its event totals (client and server), and its outcome."""
        # Under valgrind a driver runs some 50-100 times slower than its timed processes.
        # valgrind reserves an address space of its own: no RLIMIT_AS under it.
        sub = dataclasses.replace(
            task,
            iters=n,
            samples=1,
            warmup=max(1, n1 // 10),
            timeout=task.timeout * 10,
            memory_limit=None,
        )
        with tempfile.TemporaryDirectory(prefix="wirebench-cachegrind-") as out_dir:
            run = _with_fixtures(
                sub, identities, lambda role: instructions.wrap(out_dir, role, langs[role])
            )
            if not run.ok:
                run.error = f"under valgrind, {n} iterations: {run.error}"
                return {}, run
            commands.extend(run.commands)
            try:
                each = [instructions.read_counts(out_dir, role) for role in roles]
            except instructions.CountError as e:
                return {}, Outcome("error", str(e), commands=commands)
        return {k: sum(e[k] for e in each) for k in each[0]}, run

    first, run = under_valgrind(n1)
    counts: list[tuple[int, int]] = []  # each n2 run's (instructions, cycles) less n1's
    while run.ok and not instructions.settled(counts, how):
        second, run = under_valgrind(n2)
        if not run.ok:
            break
        ir = second["Ir"] - first["Ir"]
        if ir <= 0:
            return Outcome(
                "error", f"the instruction count did not grow from {n1} to {n2} iterations"
            )
        cycles = instructions.estimated_cycles(second) - instructions.estimated_cycles(first)
        counts.append((ir, cycles))
    if not run.ok:
        return run
    pool = instructions.combine(counts)
    ir, cycles = (sum(p[i] for p in pool) for i in (0, 1))
    span = len(pool) * (n2 - n1)
    # Its timed samples ran under valgrind: only what does not depend on time is kept.
    run.metrics = {k: m for k, m in run.metrics.items() if m.kind == "scalar"} | {
        "instructions": Metric("instructions", "instr", "samples", span, (ir,)),
        "est_cycles": Metric("est_cycles", "cycles", "samples", span, (cycles,)),
    }
    run.commands = commands
    return run


def _claimed(result: dict) -> dict:
    return {"lang": result.get("lang"), "toolchain": result.get("toolchain")}


# -- the quiet gate --------------------------------------------------------------------------

# A process measured while other programs kept more than QUIET_LOAD of a CPU busy is
# measured again, once the machine is quiet (docs/methodology.md, "The quiet gate"): with
# the other vCPU busy a process's distance from its cell's median was 6.8-23.7% here,
# against 1.6% with it idle.
QUIET_LOAD = 0.1
QUIET_TRIES = 2  # a process is measured again at most this often
QUIET_SHARE = 0.1  # and a run measures again at most this share of its processes
QUIET_WAIT_S = 10.0  # how long to wait for quiet before measuring again anyway
QUIET_POLL_S = 0.5


@dataclass
class QuietGate:
    """Measures a process again while the machine was busy around it, within bounds,
    and counts what it did (the report says it)."""

    allowance: int  # processes the run may still measure again
    remeasured: int = 0
    busy = staticmethod(processes.busy_cpus)

    @staticmethod
    def for_processes(n: int) -> QuietGate:
        return QuietGate(max(QUIET_TRIES, int(n * QUIET_SHARE)))

    def loaded(self, outcome: Outcome) -> bool:
        return outcome.ok and (outcome.other_load or 0.0) > QUIET_LOAD

    def wait(self) -> None:
        """Until the other CPUs are quiet, QUIET_WAIT_S at most."""
        start = time.monotonic()
        while time.monotonic() - start < QUIET_WAIT_S and self.busy(QUIET_POLL_S) > QUIET_LOAD:
            pass

    def measure(self, task: Task, identities: Identities | None) -> Outcome:
        """One process of `task`, measured again while it ran beside a busy machine."""
        outcome = execute(task, identities)
        tries = 0
        while self.loaded(outcome) and tries < QUIET_TRIES and self.allowance > 0:
            self.wait()
            tries += 1
            self.allowance -= 1
            self.remeasured += 1
            outcome = execute(task, identities)
        outcome.remeasured = tries
        return outcome


# -- a whole run -----------------------------------------------------------------------------


def pending(store, run_id: int, plan: Plan, executables) -> list[tuple[int, Task, bool]]:
    """The plan's processes not yet stored, in running order (Plan.tasks), leaving out
    cells that have failed."""
    done = store.done_processes(run_id)
    failed = {c["key"] for c in store.cells(run_id) if c["status"] == "error"}
    return [
        (rep, task, last)
        for rep, task, last in plan.tasks(executables)
        if (task.cell.key, rep) not in done and task.cell.key not in failed
    ]


def run_plan(
    store,
    run_id: int,
    plan: Plan,
    executables: dict[tuple[str, str, int], Path],
    progress,
    identities: Identities | None = None,
    on_round=None,
    broken: dict[str, str] | None = None,
    prepare=None,
) -> str:
    """Runs every process of the plan not yet stored, then, if the plan says `until`,
    the second stage adaptive repetition sizes from them (adaptive.py); returns the run's
    final status.

    `progress(task, rep, outcome_or_None)` is told before (None) and after each process
    ("skipped" for the rest of a cell that failed); `on_round(stage, tasks)` before the
    second stage runs; `prepare(plan)` builds what a grown plan adds (its layout
    variants) and returns its executables. Ctrl-C stops the run as "interrupted" with
    everything finished kept.
    A cell of a driver in `broken` ({driver: why it did not build}) is an error row.
    """
    reconcile(store, run_id, plan)
    store.set_run_status(run_id, "running")
    deadline = time.monotonic() + plan.budget if plan.budget else None
    # `kill` stops a run as Ctrl-C does: its drivers killed (they run in sessions of their
    # own, which a plain exit would leave behind) and the run marked interrupted. Both
    # handlers are set here, not inherited: a harness started from a background job or a
    # CI runner may come with SIGINT ignored or blocked.
    stop = _Interrupt()
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, previous)
    started, walls, ran = time.monotonic(), 0.0, 0
    tasks = pending(store, run_id, plan, executables)
    gate = QuietGate.for_processes(len(tasks)) if plan.quiet else None
    try:
        w, n = _run_tasks(store, run_id, tasks, progress, identities, stop, broken or {}, gate)
        walls, ran = walls + w, ran + n
        if plan.until and plan.pilot is None:
            # What the harness adds to each process (starting, storing), for the stage's
            # estimate of its own time.
            overhead = max(0.0, (time.monotonic() - started - walls) / ran) if ran else 0.0
            stage = adaptive.second_stage(store, run_id, plan, deadline, overhead)
            plan = stage.plan.with_fresh_layouts()
            store.grow_plan(run_id, plan)
            if prepare is not None and plan.layouts != stage.plan.layouts:
                executables = prepare(plan)  # the added rounds' layout variants
            tasks = pending(store, run_id, plan, executables)
            if on_round:
                on_round(stage, tasks)
            if gate:
                gate.allowance += int(len(tasks) * QUIET_SHARE)
            _run_tasks(store, run_id, tasks, progress, identities, stop, broken or {}, gate)
    except KeyboardInterrupt:
        store.set_run_status(run_id, "interrupted")
        return "interrupted"
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    store.set_run_status(run_id, "complete")
    return "complete"


def _run_tasks(
    store, run_id, tasks, progress, identities, stop, broken, gate=None
) -> tuple[float, int]:
    """Runs the tasks (through the quiet gate, if any); their processes' wall seconds
    and how many ran."""
    failed: set[str] = set()
    walls, ran = 0.0, 0
    for rep, task, last in tasks:
        key = task.cell.key
        if key in failed:
            progress(task, rep, "skipped")
            continue
        progress(task, rep, None)
        unbuilt = [d for d in (task.cell.driver_id, task.cell.server_driver_id) if d in broken]
        if unbuilt:
            why = f"the {unbuilt[0]} driver did not build: {broken[unbuilt[0]]}"
            outcome = Outcome("error", why, layout=task.layout)
        elif gate is not None:
            outcome = gate.measure(task, identities)
        else:
            outcome = execute(task, identities)
        walls, ran = walls + (outcome.wall_ns or 0) / 1e9, ran + 1
        store.add_process(run_id, key, rep, outcome)
        if not outcome.ok:
            failed.add(key)  # a cell that failed once has no number: skip its rest
        if not outcome.ok or last:
            finish_cell(store, run_id, task.cell)
        progress(task, rep, outcome)
        if stop.received:  # the raise was lost (a signal handled inside a finalizer)
            raise KeyboardInterrupt
    return walls, ran


def finish_cell(store, run_id: int, cell) -> None:
    """Completes a cell with the status its suite judges from its processes."""
    status, error = registry.of(cell).judge_cell(store.processes(run_id, cell.key))
    store.finish_cell(run_id, cell.key, status, error)


class _Interrupt:
    """The run's SIGINT and SIGTERM handler: raises KeyboardInterrupt, and remembers it."""

    received = False

    def __call__(self, signum, frame):
        self.received = True
        raise KeyboardInterrupt


def reconcile(store, run_id: int, plan: Plan) -> None:
    """Completes cells whose processes were all stored before a kill hit between the
    last process row and the cell row."""
    pending = {c["key"] for c in store.cells(run_id) if c["status"] == "pending"}
    for e in plan.entries:
        if e.cell.key not in pending:
            continue
        procs = store.processes(run_id, e.cell.key)
        if len(procs) >= e.processes or any(p["status"] != "ok" for p in procs):
            finish_cell(store, run_id, e.cell)
