"""Distributed runs: one plan worked by a fleet of machines (docs/fleet.md).

`wirebench run --distribute` stores the plan as any run and enqueues its units of work
(Plan.units: one comparison group of one round, back to back, or one instruction count)
as jobs of procrastinate, a task queue kept in the store's own PostgreSQL database.
`wirebench worker` on each machine pulls one unit at a time, runs its processes as a
single-machine run does, and stores each the moment it finishes, with its host.

Delivery: procrastinate hands a job to one worker and marks it `doing`; the worker beats
its heart every LEASE/4 seconds. A worker that dies (killed, its machine down) stops
beating, and after LEASE seconds the next worker to look puts its unit back in the queue.
A unit redone runs whole on its new machine, replacing what the dead worker stored of it
(a comparison group of a round is never split across machines), so every process is
stored exactly once however often its unit is handed out.

A worker measures only while it holds the machine's lock (MACHINE_LOCK), so two workers on
one machine never measure at once, and it refuses a run whose drivers differ from its own
(revision, toolchains, libraries, build flags) by name.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import orchestrate, paths, runner
from .cells import Plan
from .store import Store, display_name, is_database_error, is_url

TASK = "wirebench.unit"
# Seconds without a heartbeat after which a worker's unit goes back to the queue.
DEFAULT_LEASE = 60.0
# The lock every worker of a machine measures under (a file lock: the kernel drops it
# with the process that held it, however it died).
MACHINE_LOCK = Path(tempfile.gettempdir()) / "wirebench-machine.lock"


class DistributedError(ValueError):
    """A distributed run cannot be started or worked here; the message says why."""


def queue(run_id: int) -> str:
    """A run's queue (the store's own id: the queue lives in the store's database)."""
    return f"wirebench-run-{run_id}"


def _app(url: str):
    import procrastinate

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))
    app.task(name=TASK, pass_context=True)(_unit_job)
    return app


def _unit_job(context, run_id: int, unit: int) -> None:
    context.additional_context["worker"].do(run_id, unit)


def install_queue(url: str) -> None:
    """procrastinate's tables in the store's database, once (under an advisory lock: two
    runs distributed at once on a new server)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as con:
        con.execute("SELECT pg_advisory_lock(hashtext('wirebench-queue-schema'))")
        try:
            found = con.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()[0]
            if found is None:
                app = _app(url)
                with app.open():
                    app.schema_manager.apply_schema()
        finally:
            con.execute("SELECT pg_advisory_unlock(hashtext('wirebench-queue-schema'))")


def check_request(db: str, plan: Plan) -> None:
    """What a distributed run needs of its store and plan."""
    if not is_url(db):
        raise DistributedError(
            "a distributed run needs a store every worker reaches: --db postgresql://..."
        )
    if plan.until:
        raise DistributedError(
            "--until sizes a second stage from the whole pilot, which a fleet finishes in no "
            "set order: run the fleet without it, or --until on one machine"
        )


def enqueue(store: Store, url: str, run_id: int, plan: Plan, lease: float) -> int:
    """Marks the run distributed and puts every unit of its plan in the queue; the number
    of units."""
    units = plan.units()
    install_queue(url)
    row = store.run(run_id)
    prov = json.loads(row["provenance"])
    prov["distributed"] = {"lease_s": lease, "units": len(units)}
    store.set_provenance(run_id, prov)
    store.add_units(run_id, [label for label, _ in units])
    app = _app(url)
    with app.open():
        app.configure_task(TASK, queue=queue(run_id)).batch_defer(
            *({"run_id": run_id, "unit": i} for i in range(len(units)))
        )
    return len(units)


def is_distributed(provenance: dict) -> bool:
    return "distributed" in provenance


def progress_lines(fleet: dict | None) -> list[str]:
    """`wirebench runs`' lines for a distributed run: each worker's units, and the queue."""
    if fleet is None:
        return []
    lines = [
        f"{host}: {c['done']} units done, {c['leased']} leased, {c['failed']} with failed "
        f"processes, {c['redone']} redone"
        for host, c in sorted(fleet["workers"].items())
    ]
    return [*lines, f"queued: {fleet['queued']} units"]


# -- a worker -----------------------------------------------------------------------------


def host_name() -> str:
    """This machine's name as workers give it (WIREBENCH_HOST overrides the host name)."""
    return os.environ.get("WIREBENCH_HOST") or platform.node()


def differences(theirs: dict, mine: dict) -> list[str]:
    """How this machine's code and drivers differ from a run's (both env.provenance): what
    makes a process measured here a different experiment."""
    out = []
    for k in ("revision", "dirty"):
        a, b = (theirs.get("git") or {}).get(k), (mine.get("git") or {}).get(k)
        if a != b:
            out.append(f"git {k}: the run's {a}, here {b}")
    for part in ("drivers", "builds", "layouts"):
        for name, spec in (theirs.get(part) or {}).items():
            here = (mine.get(part) or {}).get(name)
            for what, a, b in _diff(spec, here):
                out.append(f"{part[:-1]} {name} {what}: the run's {a!r}, here {b!r}")
    return out


def _diff(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            yield from _diff(a.get(k), b.get(k), f"{path}.{k}" if path else k)
    elif a != b:
        yield path or "all", a, b


@dataclass
class Worker:
    """One machine's worker: its store, its name, and what it has checked of each run."""

    url: str
    host: str = field(default_factory=host_name)
    hw_class: str | None = None
    only: set[int] | None = None  # the runs it may work (None: every run)
    locked: bool = True  # False: measure without the machine lock (a test, which says so)
    say: Callable[[str], None] = print
    # Builds what the plan needs and this machine lacks: {driver: why it did not build}.
    prepare: Callable[[Plan], dict[str, str]] = lambda plan: {}
    store: Store | None = None
    # run id -> (plan, its units of work, identities, processes expected per cell key)
    plans: dict = field(default_factory=dict)
    refused: dict = field(default_factory=dict)  # run id -> why
    units_done: int = 0

    def connect(self, give_up_after: float | None = None) -> None:
        """Opens the store, retrying with backoff while the server cannot be reached."""
        delay, started = 1.0, time.monotonic()
        while True:
            try:
                self.store = Store(self.url)
                return
            except Exception as e:
                if not _unreachable(e):
                    raise
                waited = time.monotonic() - started
                if give_up_after is not None and waited + delay > give_up_after:
                    raise DistributedError(
                        f"cannot reach the store {display_name(self.url)} after "
                        f"{waited:.0f} s: {str(e).strip()}"
                    ) from None
                self.say(
                    f"worker {self.host}: cannot reach the store {display_name(self.url)} "
                    f"({str(e).strip().splitlines()[0]}); retrying in {delay:.0f} s"
                )
                time.sleep(delay)
                delay = min(delay * 2, 60.0)

    def runs(self) -> list[dict]:
        """The distributed runs with work left that this machine may do (checking, and
        building what is missing for, each run once)."""
        out = []
        for row in self.store.open_distributed_runs():
            run_id = row["id"]
            if run_id in self.refused or (self.only and run_id not in self.only):
                continue
            if run_id not in self.plans:
                why = self.join(run_id)
                if why:
                    self.refused[run_id] = why
                    self.say(f"worker {self.host} refuses run {run_id}: {why}")
                    continue
            lease = json.loads(row["provenance"])["distributed"]["lease_s"]
            out.append(dict(row) | {"lease": lease})
        return out

    def join(self, run_id: int) -> str | None:
        """Makes ready to work a run: its plan, its drivers built here and the same as
        the run's; None, or why not."""
        plan, _ = orchestrate.resume(self.store, run_id)
        broken = self.prepare(plan)
        if broken:
            return "; ".join(f"the {n} driver does not build here: {w}" for n, w in broken.items())
        prov = json.loads(self.store.run(run_id)["provenance"])
        mine = orchestrate.provenance(plan)
        diff = differences(prov, mine)
        if diff:
            return "its drivers differ from this machine's: " + "; ".join(diff)
        self.store.add_host(run_id, self.host, self.hw_class, mine)
        expected = {e.cell.key: e.processes for e in plan.entries}
        units = plan.units(orchestrate.executables(plan))
        self.plans[run_id] = (plan, units, orchestrate.identities(plan), expected)
        return None

    def do(self, run_id: int, unit: int) -> None:
        """Runs one unit: each of its processes not yet stored, under the machine lock."""
        plan, units, identities, expected = self.plans[run_id]
        label, tasks = units[unit]
        self.store.lease_unit(run_id, unit, self.host)
        self.say(f"worker {self.host}: run {run_id} unit {unit + 1}, {label}")
        failed = 0
        with self._machine():
            # A unit redone after its worker died runs whole here: what that worker
            # stored of it is measured again (and replaced), so that no comparison
            # group of a round is split across two machines.
            where = self.store.process_hosts(run_id)
            gate = runner.QuietGate.for_processes(len(tasks)) if plan.quiet else None
            for rep, task, _ in tasks:
                key = task.cell.key
                if where.get(key, {}).get(rep) == self.host:
                    continue  # stored by this machine (its worker restarted)
                if self.store.cell_failed(run_id, key):
                    continue
                if gate is not None:
                    outcome = gate.measure(task, identities)
                else:
                    outcome = runner.execute(task, identities)
                outcome.host = self.host
                self.store.add_process(run_id, key, rep, outcome)
                failed += not outcome.ok
                if not outcome.ok or len(self.store.processes(run_id, key)) >= expected[key]:
                    runner.finish_cell(self.store, run_id, task.cell)
        self.store.finish_unit(run_id, unit, failed)
        self.units_done += 1
        if self.store.units_left(run_id) == 0:
            runner.reconcile(self.store, run_id, plan)
            self.store.set_run_status(run_id, "complete")
            self.say(f"worker {self.host}: run {run_id} complete")

    def _machine(self):
        return paths.locked(MACHINE_LOCK) if self.locked else contextlib.nullcontext()

    def requeue_stalled(self, runs: list[dict]) -> int:
        """Puts back the units of workers whose heartbeat stopped over a lease ago."""

        async def go():
            app = _app(self.url)
            n = 0
            async with app.open_async():
                for r in runs:
                    for job in await app.job_manager.get_stalled_jobs(
                        queue=queue(r["id"]), seconds_since_heartbeat=r["lease"]
                    ):
                        await app.job_manager.retry_job(job)
                        self.store.requeue_unit(r["id"], job.task_kwargs["unit"])
                        self.say(
                            f"worker {self.host}: run {r['id']} unit "
                            f"{job.task_kwargs['unit'] + 1} back in the queue (its worker "
                            f"stopped beating over {r['lease']:g} s ago)"
                        )
                        n += 1
            return n

        return asyncio.run(go())

    def pull(self, runs: list[dict]) -> None:
        """Works the runs' queues until none has a unit to hand out."""
        lease = min(r["lease"] for r in runs)
        _app(self.url).run_worker(
            queues=[queue(r["id"]) for r in runs],
            name=self.host,
            concurrency=1,
            wait=False,
            listen_notify=False,
            fetch_job_polling_interval=1.0,
            update_heartbeat_interval=lease / 4,
            stalled_worker_timeout=lease,
            additional_context={"worker": self},
        )


def _unreachable(e: BaseException) -> bool:
    """Whether e says the store's server cannot be reached (or was lost): the store's own
    errors, and procrastinate's wrapping of them."""
    from procrastinate.exceptions import ConnectorException

    return is_database_error(e) or isinstance(e, ConnectorException)


def work(worker: Worker, poll: float = 2.0, forever: bool = False) -> int:
    """A worker's life: pull units of every run it may work until no run has any left
    (or, `forever`, wait for new runs); the units it did."""
    worker.connect()
    while True:
        try:
            runs = worker.runs()
            if runs:
                worker.requeue_stalled(runs)
            queued = [r for r in runs if worker.store.units_queued(r["id"])]
            if queued:
                before = worker.units_done
                worker.pull(queued)
                if worker.units_done > before:
                    continue
            if not forever and not any(worker.store.units_left(r["id"]) for r in runs):
                return worker.units_done
        except Exception as e:
            if not _unreachable(e):
                raise
            worker.say(f"worker {worker.host}: lost the store ({str(e).strip()}); reconnecting")
            worker.connect()
        time.sleep(poll)  # others hold the rest: wait for theirs to finish or come back
