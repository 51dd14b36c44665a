"""Process control: runs one process (or client/server pair) of a cell and judges its output.

Each driver process is a fresh child in its own session, pinned to CPUs by placement,
with stdout and stderr in files (so the harness reads nothing while the driver runs) and
its CPU time and peak RSS taken from wait4. A process that crashes, hangs past the
timeout, exits non-zero, or prints a malformed, inconsistent or unverified result becomes
an Outcome with status "error" and the reason; nothing raised from here stops a run.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from . import catalog, workloads
from .matrix import Cell

PROTOCOL = 1
CHECKS_FILE = Path(__file__).resolve().parent.parent / "testdata" / "rpc" / "checks.json"


@dataclass
class Task:
    """One process of one cell: the cell, how much work, and which drivers run it."""

    cell: Cell
    iters: int
    samples: int
    warmup: int
    timeout: float
    client: Path  # the driver executable of the cell's language
    server: Path | None = None  # pipe cells: the server's driver executable


@dataclass
class Outcome:
    status: str  # ok | error
    error: str | None = None
    result: dict | None = None  # the client's (or local process's) JSON result
    server: dict | None = None  # the server's JSON result, for pipe cells
    wall_ns: int = 0
    user_ns: int = 0
    sys_ns: int = 0
    max_rss_kb: int = 0
    commands: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# -- CPU placement -------------------------------------------------------------------------


def cpus_for(cell: Cell) -> tuple[set[int] | None, set[int] | None]:
    """(client CPUs, server CPUs). Local cells run on one CPU: the last allowed one, away
    from CPU 0 where most interrupts land. None means not pinned."""
    allowed = sorted(os.sched_getaffinity(0))
    last, first = {allowed[-1]}, {allowed[0]}
    placement = cell.param.get("placement", catalog.DEFAULT_PLACEMENT)
    if placement == "unpinned":
        return None, None
    if placement == "two-cores" and len(allowed) > 1:
        return last, first
    return last, last


# -- running processes ---------------------------------------------------------------------


def driver_args(task: Task, role: str | None, in_fd: int | None = None, out_fd=None) -> list[str]:
    c = task.cell
    args = ["run", "--suite", c.suite, "--case", c.case, "--lib", c.lib]
    for k, v in c.driver_params.items():
        args += [f"--{k}", v]
    args += ["--iters", str(task.iters), "--samples", str(task.samples)]
    args += ["--warmup", str(task.warmup)]
    if role:
        args += ["--role", role]
    if in_fd is not None:
        args += ["--in-fd", str(in_fd), "--out-fd", str(out_fd)]
    return args


class _Child:
    def __init__(self, argv: list[str], cpus: set[int] | None, pass_fds=()):
        self.argv = argv
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()

        def pin():
            if cpus:
                os.sched_setaffinity(0, cpus)

        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self.out,
            stderr=self.err,
            pass_fds=pass_fds,
            start_new_session=True,
            preexec_fn=pin,
        )
        self.status: int | None = None
        self.rusage = None

    def wait(self) -> None:
        _, self.status, self.rusage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(self.status)

    def kill(self) -> None:
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def output(self) -> tuple[str, str]:
        self.out.seek(0)
        self.err.seek(0)
        return (self.out.read().decode(errors="replace"), self.err.read().decode(errors="replace"))

    def failure(self, name: str) -> str | None:
        """Why the child failed, from its exit status and stderr; None if it exited 0."""
        code = self.proc.returncode
        if code == 0:
            return None
        _, err = self.output()
        tail = " ".join(err.strip().splitlines()[-3:])[:500] or "(nothing on stderr)"
        if code < 0:
            return f"{name} killed by {signal.Signals(-code).name}: {tail}"
        return f"{name} exited with status {code}: {tail}"


def execute(task: Task) -> Outcome:
    """Runs one process (two for a pipe cell) of a cell and judges the result."""
    client_cpus, server_cpus = cpus_for(task.cell)
    children: list[_Child] = []
    timed_out = threading.Event()

    def on_timeout():
        timed_out.set()
        for child in children:
            child.kill()

    start = time.monotonic_ns()
    try:
        if task.cell.is_pipe:
            c2s_r, c2s_w = os.pipe()
            s2c_r, s2c_w = os.pipe()
            server_argv = [str(task.server)] + driver_args(task, "server", c2s_r, s2c_w)
            client_argv = [str(task.client)] + driver_args(task, "client", s2c_r, c2s_w)
            try:
                children.append(_Child(server_argv, server_cpus, (c2s_r, s2c_w)))
                children.append(_Child(client_argv, client_cpus, (s2c_r, c2s_w)))
            finally:
                for fd in (c2s_r, c2s_w, s2c_r, s2c_w):
                    os.close(fd)  # the children hold their ends; EOF must reach them
        else:
            argv = [str(task.client)] + driver_args(task, None)
            children.append(_Child(argv, client_cpus))
    except OSError as e:
        for child in children:
            child.kill()
            child.wait()
        return Outcome("error", f"cannot start the driver: {e}")

    # A daemon, started inside the try: a Ctrl-C at any point must neither leave the timer
    # running nor keep the harness alive until it fires.
    timer = threading.Timer(task.timeout, on_timeout)
    timer.daemon = True
    try:
        timer.start()
        for child in reversed(children):  # the client (last) finishes first
            child.wait()
    finally:
        timer.cancel()
        for child in children:
            child.kill()
    wall_ns = time.monotonic_ns() - start

    outcome = Outcome(
        "error",
        wall_ns=wall_ns,
        user_ns=sum(int(c.rusage.ru_utime * 1e9) for c in children),
        sys_ns=sum(int(c.rusage.ru_stime * 1e9) for c in children),
        max_rss_kb=max(c.rusage.ru_maxrss for c in children),
        commands=[" ".join(c.argv) for c in children],
    )
    if timed_out.is_set():
        outcome.error = f"timed out after {task.timeout:g} s (killed)"
        return outcome
    client = children[-1]
    server = children[0] if task.cell.is_pipe else None
    # The client's failure explains more than the server's EOF or EPIPE that follows it.
    failure = client.failure("client" if server else "driver") or (
        server.failure("server") if server else None
    )
    if failure:
        outcome.error = failure
        return outcome
    try:
        outcome.result = parse_result(client.output()[0])
        check_result(task, outcome.result)
        if server:
            outcome.server = parse_result(server.output()[0])
            check_server(task, outcome.server, outcome.result["warmup"])
    except ResultError as e:
        outcome.error = str(e)
        return outcome
    outcome.status = "ok"
    return outcome


# -- judging results -----------------------------------------------------------------------


class ResultError(ValueError):
    pass


def parse_result(stdout: str) -> dict:
    lines = [line for line in stdout.splitlines() if line.strip()]
    if len(lines) != 1:
        raise ResultError(
            f"malformed result: expected one JSON line on stdout, got {len(lines)} lines"
        )
    try:
        result = json.loads(lines[0])
    except json.JSONDecodeError as e:
        raise ResultError(f"malformed result: not JSON ({e}): {lines[0][:200]!r}") from None
    if not isinstance(result, dict):
        raise ResultError("malformed result: not a JSON object")
    return result


def _int_list(result: dict, name: str, length: int, minimum: int) -> list[int]:
    values = result.get(name)
    if (
        not isinstance(values, list)
        or len(values) != length
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    ):
        raise ResultError(f"malformed result: {name!r} must be a list of {length} integers")
    if any(v < minimum for v in values):
        raise ResultError(f"malformed result: {name!r} has a value below {minimum}")
    return values


def check_result(task: Task, r: dict) -> None:
    """Refuses a result that is malformed, for another cell, unverified or inconsistent."""
    c = task.cell
    if r.get("protocol") != PROTOCOL:
        raise ResultError(f"protocol version {r.get('protocol')!r}, expected {PROTOCOL}")
    for name, want in (
        ("suite", c.suite),
        ("case", c.case),
        ("lib", c.lib),
        ("params", c.driver_params),
        ("iters", task.iters),
    ):
        if r.get(name) != want:
            raise ResultError(f"result is for {name} {r.get(name)!r}, asked for {want!r}")
    # A driver may warm up longer than asked (the JVM's until its JIT settles), never less.
    warmup = r.get("warmup")
    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < task.warmup:
        raise ResultError(
            f"result warmed up {warmup!r} iterations, fewer than the {task.warmup} asked"
        )
    if r.get("verified") is not True:
        raise ResultError("the driver did not verify its responses (verified is not true)")
    _int_list(r, "samples_ns", task.samples, 1)
    sizes = _int_list(r, "bytes", task.samples, 0)
    checks = _int_list(r, "check", task.samples, -(1 << 63))
    checked = r.get("responses_checked")
    if c.suite == "rpc" and (not isinstance(checked, int) or checked < task.iters * task.samples):
        raise ResultError(
            f"the driver checked {checked!r} responses, fewer than the "
            f"{task.iters * task.samples} it timed"
        )
    if len(set(sizes)) != 1:
        raise ResultError(f"samples of identical work moved different byte counts: {sizes}")
    want = expected_check(c, task.iters)
    if want is not None and any(v != want for v in checks):
        raise ResultError(
            f"wrong answers: check digest {checks[0]} but the workload's is {want} "
            f"(testdata/rpc/checks.json)"
        )


def check_server(task: Task, s: dict, warmup: int) -> None:
    """`warmup` is the client's: the iterations it ran before its first sample."""
    if s.get("protocol") != PROTOCOL or s.get("role") != "server":
        raise ResultError("malformed server result: needs protocol 1 and role server")
    if s.get("verified") is not True:
        raise ResultError("the server did not verify the requests it read")
    want = warmup + task.iters * task.samples
    if s.get("requests") != want:
        raise ResultError(f"the server answered {s.get('requests')!r} requests, expected {want}")


@cache
def _committed_checks() -> dict:
    try:
        return json.loads(CHECKS_FILE.read_text())
    except (OSError, json.JSONDecodeError):
        return {}


@cache
def expected_check(cell: Cell, iters: int) -> int | None:
    """The digest a correct driver reports: committed, or computed by wirebench.workloads."""
    if cell.suite == "limit":
        return catalog.block_bytes(cell.param["block"])
    if cell.suite != "rpc":
        return None
    committed = _committed_checks().get(cell.case, {}).get(str(iters))
    return committed if committed is not None else workloads.digest(cell.case, iters)


# -- a whole run -----------------------------------------------------------------------------


def make_plan(
    cells: list[Cell], profile: catalog.Profile, reps=None, samples=None, iters=None, timeout=None
) -> dict:
    """What a run will do, stored with it so that `--resume` does exactly the same."""
    entries = []
    for cell in cells:
        # --iters sizes the rpc cells; memcpy keeps the profile's byte budget, or a 64MiB
        # block would copy iters x 64MiB.
        n = (iters if cell.suite == "rpc" else None) or profile.iters_for(cell.case, cell.param)
        entries.append(
            {
                "cell": cell.to_json(),
                "iters": n,
                "samples": samples or profile.samples,
                "warmup": profile.warmup_for(n),
                "reps": reps or profile.reps,
            }
        )
    return {
        "profile": profile.name,
        "timeout": timeout or profile.timeout,
        "order": "interleaved",
        "cells": entries,
    }


def tasks(plan: dict, executables: dict[str, Path]) -> list[tuple[int, Task, int]]:
    """The processes of a plan in running order: (rep, task, reps of its cell).

    Interleaved: every cell's first process, then every cell's second, and so on, so
    that a slow drift of the machine touches all cells alike and the ratios measured in
    one run stay fair.
    """
    order = []
    max_reps = max((e["reps"] for e in plan["cells"]), default=0)
    for rep in range(max_reps):
        for e in plan["cells"]:
            if rep >= e["reps"]:
                continue
            cell = Cell.from_json(e["cell"])
            task = Task(
                cell=cell,
                iters=e["iters"],
                samples=e["samples"],
                warmup=e["warmup"],
                timeout=plan["timeout"],
                client=executables[cell.lang],
                server=executables[cell.server_lang] if cell.is_pipe else None,
            )
            order.append((rep, task, e["reps"]))
    return order


def run_plan(store, run_id: int, plan: dict, executables: dict[str, Path], progress) -> str:
    """Runs every process of the plan not yet stored; returns the run's final status.

    `progress(task, rep, outcome_or_None)` is told before (None) and after each process.
    Ctrl-C stops the run as "interrupted" with everything finished kept.
    """
    reconcile(store, run_id)
    done = store.done_processes(run_id)
    failed = {c["key"] for c in store.cells(run_id) if c["status"] == "error"}
    store.set_run_status(run_id, "running")
    # `kill` stops a run as Ctrl-C does: its drivers killed (they run in sessions of their
    # own, which a plain exit would leave behind) and the run marked interrupted.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        for rep, task, reps in tasks(plan, executables):
            key = task.cell.key
            if (key, rep) in done or key in failed:
                progress(task, rep, "skipped")
                continue
            progress(task, rep, None)
            outcome = execute(task)
            store.add_process(run_id, key, rep, outcome)
            if not outcome.ok:
                failed.add(key)  # a cell that failed once has no number: skip its rest
            if not outcome.ok or rep == reps - 1:
                store.finish_cell(run_id, key)
            progress(task, rep, outcome)
    except KeyboardInterrupt:
        store.set_run_status(run_id, "interrupted")
        return "interrupted"
    finally:
        signal.signal(signal.SIGTERM, previous)
    store.set_run_status(run_id, "complete")
    return "complete"


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def reconcile(store, run_id: int) -> None:
    """Completes cells whose processes were all stored before a kill hit between the
    last process row and the cell row."""
    for c in store.cells(run_id):
        if c["status"] != "pending":
            continue
        procs = store.processes(run_id, c["key"])
        if len(procs) >= c["reps"] or any(p["status"] != "ok" for p in procs):
            store.finish_cell(run_id, c["key"])
