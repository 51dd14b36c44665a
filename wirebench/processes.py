"""Driver processes: placing them on CPUs, starting them, waiting within their limits.

Each driver process is a fresh child in its own session, pinned to CPUs by placement,
with stdout and stderr in files (so the harness reads nothing while the driver runs) and
its CPU time and peak RSS taken from wait4. Nothing here judges what a driver printed.

Every process has three limits, so that a driver gone wrong (a decoder looping on a
corrupt length, a runaway allocation, a print in a loop) costs a cell, never the machine
or the run: a wall-time limit (the plan's timeout), an address-space limit (RLIMIT_AS,
the plan's memory limit), and OUTPUT_LIMIT bytes on each of stdout and stderr. A process
over a limit is killed with its whole session, and `Finished` says which limit it hit.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import random
import resource
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field

DEFAULT_PLACEMENT = "one-core"
# A result is one JSON line of at most a few MiB (the standard profile's samples, a queue
# run's histograms); 64 MiB on a stream is a driver printing in a loop.
OUTPUT_LIMIT = 64 << 20
# Each process's address space by default: room for the JVM's reservations (a heap of
# up to 320 MiB, class space, code cache, thread stacks) and the largest cells' buffers, far below
# the machine's memory. RLIMIT_AS counts reserved, not touched, memory.
DEFAULT_MEMORY_LIMIT = 8 << 30
POLL_S = 0.05  # how often the watcher looks at the clock and the output files
# The environment every driver process gets on top of the harness's, the same in every
# language. glibc's malloc (C++, Rust, D, the JVM's own allocations) returns the top of
# its heap to the kernel once 128 KiB of it are free, and starts with a 128 KiB threshold
# for serving a block by mmap; both thresholds then move with the process's history. A
# process whose heap happened to empty after each message (rpc catrank no-reuse) faulted
# every page in again on the next one and ran 6-27% slower than the same code with another
# heap history (docs/fidelity.md, C1). Fixed here at what glibc's own dynamic thresholds
# settle at after a first large free (an mmap threshold of 32 MiB, its maximum on 64-bit,
# and trimming at twice that): every process starts where a warmed-up one would be.
# And glibc 2.36's memcpy copies blocks of a few KiB and more with `rep movsb`, which on
# this machine's AMD cores runs about 15 times slower when the destination lies 1-15 bytes
# past the source modulo 4 KiB: Cap'n Proto's serialize of the codec batch into a reused
# buffer (an 8-byte segment table, then the segment) took 126-519 us instead of 9-20 in
# the processes whose two buffers happened to line up so (docs/methodology.md, "The
# codec suite"). The threshold at its maximum keeps memcpy on its vector loop, which has
# no such case: what a copy costs no longer depends on where the allocator put it.
DRIVER_ENV = {
    "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864"
    ":glibc.cpu.x86_rep_movsb_threshold=4294967295"
}
# Seeded address placement (`--address-seeds`, docs/methodology.md "Address placement"):
# the process runs with the kernel's randomisation off (personality(2), as `setarch -R`),
# and its stack moves by an environment variable of a length drawn from the seed, 0-64
# KiB in the stack's 16-byte steps, sub-page offsets included, as randomisation moves it.
# Code, heap and mappings then sit where the binary puts them: a seed reproduces a
# placement exactly, and the variance tables can tell placements apart.
ADDR_NO_RANDOMIZE = 0x0040000
STACK_PAD = "WIREBENCH_STACK_PAD"


def stack_pad(seed: int) -> int:
    """The bytes of environment that place a seeded process's stack."""
    return random.Random(seed).randrange(0, 1 << 16, 16)


PR_SET_PDEATHSIG = 1


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _no_randomisation() -> None:
    libc = _libc()
    current = libc.personality(0xFFFFFFFF)  # this value queries, it sets nothing
    if current == -1 or libc.personality(current | ADDR_NO_RANDOMIZE) == -1:
        raise OSError(ctypes.get_errno(), "personality(ADDR_NO_RANDOMIZE) failed")


def cpus_for(params: dict[str, str]) -> tuple[set[int] | None, set[int] | None]:
    """(client CPUs, server CPUs) for a cell's `placement`. Local processes run on one CPU:
    the last allowed one, away from CPU 0 where most interrupts land. None: not pinned."""
    allowed = sorted(os.sched_getaffinity(0))
    last, first = {allowed[-1]}, {allowed[0]}
    placement = params.get("placement", DEFAULT_PLACEMENT)
    if placement == "unpinned":
        return None, None
    if placement == "two-cores" and len(allowed) > 1:
        return last, first
    return last, last


class Child:
    """One started driver process."""

    def __init__(
        self,
        argv: list[str],
        cpus: set[int] | None,
        pass_fds=(),
        memory_limit: int | None = None,
        address_seed: int | None = None,
    ):
        self.argv = argv
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        env = {**os.environ, **DRIVER_ENV}
        if address_seed is not None:
            env[STACK_PAD] = "x" * stack_pad(address_seed)

        def pin():
            # Dies with the harness (or the worker thread that started it), whatever
            # killed that: no orphan measuring beside the next process.
            _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if cpus:
                os.sched_setaffinity(0, cpus)
            if memory_limit:
                resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
            if address_seed is not None:
                _no_randomisation()

        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self.out,
            stderr=self.err,
            pass_fds=pass_fds,
            start_new_session=True,
            preexec_fn=pin,
            env=env,
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
        """stdout and stderr, each cut at OUTPUT_LIMIT (the watcher killed a longer one)."""
        texts = []
        for f in (self.out, self.err):
            f.seek(0)
            texts.append(f.read(OUTPUT_LIMIT).decode(errors="replace"))
        return texts[0], texts[1]

    def overflowing(self) -> str | None:
        """Which stream holds more than OUTPUT_LIMIT bytes, if one does."""
        for name, f in (("stdout", self.out), ("stderr", self.err)):
            if os.fstat(f.fileno()).st_size > OUTPUT_LIMIT:
                return name
        return None

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


def cpu_times() -> dict[int, list[int]]:
    """/proc/stat's jiffies per CPU: user nice system idle iowait irq softirq steal ..."""
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            name, *values = line.split()
            if name.startswith("cpu") and name != "cpu":
                out[int(name[3:])] = [int(v) for v in values]
    return out


_JIFFY_NS = 1e9 / os.sysconf("SC_CLK_TCK")
IDLE, IOWAIT, STEAL = 3, 4, 7


def busy_cpus(window_s: float = 0.2) -> float:
    """The CPUs other programs keep busy now (in CPUs, over `window_s` of this process
    sleeping): what a process started now would share the machine with."""
    before = cpu_times()
    time.sleep(window_s)
    return _busy_jiffies(before, cpu_times()) * _JIFFY_NS / (window_s * 1e9)


def _busy_jiffies(before, after) -> int:
    """Jiffies every CPU spent neither idle, waiting for I/O nor stolen, between two reads."""
    return sum(
        sum(after[c])
        - sum(before[c])
        - sum(after[c][i] - before[c][i] for i in (IDLE, IOWAIT, STEAL))
        for c in after
        if c in before
    )


@dataclass
class Noise:
    """What else happened on the machine while a process ran: time the hypervisor gave
    its CPUs to others (steal), and the CPU time other programs used (other load, in CPUs:
    0.5 is half a CPU busy with something else on average)."""

    steal_ns: int
    other_load: float

    @staticmethod
    def between(before, after, cpus: set[int] | None, own_ns: int, wall_ns: int) -> Noise:
        watched = cpus or set(after)
        steal = sum(after[c][STEAL] - before[c][STEAL] for c in watched if c in before)
        busy = _busy_jiffies(before, after)
        other = max(0.0, busy * _JIFFY_NS - own_ns) / wall_ns if wall_ns else 0.0
        return Noise(int(steal * _JIFFY_NS), round(other, 3))


@dataclass
class Finished:
    """A local process, or a client and its server, after they ended (or were killed)."""

    children: list[Child]
    timed_out: bool
    wall_ns: int
    pids: list[int] = field(default_factory=list)
    noise: Noise | None = None
    overflow: str | None = None  # "client stdout": printed more than OUTPUT_LIMIT, killed

    @property
    def client(self) -> Child:
        return self.children[-1]

    @property
    def server(self) -> Child | None:
        return self.children[0] if len(self.children) > 1 else None

    @property
    def user_ns(self) -> int:
        return sum(int(c.rusage.ru_utime * 1e9) for c in self.children)

    @property
    def sys_ns(self) -> int:
        return sum(int(c.rusage.ru_stime * 1e9) for c in self.children)

    @property
    def max_rss_kb(self) -> int:
        return max(c.rusage.ru_maxrss for c in self.children)

    @property
    def commands(self) -> list[str]:
        return [" ".join(c.argv) for c in self.children]


def run(
    client_argv: list[str],
    params: dict[str, str],
    timeout: float,
    server_argv: list[str] | None = None,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    address_seed: int | None = None,
) -> Finished:
    """Runs a local process, or a server and a client joined by two pipes (the client's
    and the server's argv get `--in-fd R --out-fd W` appended), and waits for them;
    both are killed at the timeout, or when either prints more than OUTPUT_LIMIT.
    `address_seed`: placed by that seed (STACK_PAD), not randomised; None: randomised.
    Raises OSError if a process cannot start."""
    client_cpus, server_cpus = cpus_for(params)
    children: list[Child] = []
    timed_out = threading.Event()
    ended = threading.Event()
    overflow: list[str] = []
    roles = ("server", "client") if server_argv is not None else ("driver",)

    def overflowing() -> None:
        for role, child in zip(roles, children, strict=False):
            stream = child.overflowing()
            if stream and not overflow:
                overflow.append(f"{role} {stream}")

    def watch():
        deadline = time.monotonic() + timeout
        while not ended.wait(POLL_S):
            overflowing()
            if overflow or time.monotonic() >= deadline:
                if not overflow:
                    timed_out.set()
                for child in children:
                    child.kill()
                return

    start = time.monotonic_ns()
    try:
        if server_argv is not None:
            c2s_r, c2s_w = os.pipe()
            s2c_r, s2c_w = os.pipe()
            fds = ("--in-fd", "--out-fd")
            try:
                children.append(
                    Child(
                        server_argv + _fds(fds, c2s_r, s2c_w),
                        server_cpus,
                        (c2s_r, s2c_w),
                        memory_limit,
                        address_seed,
                    )
                )
                children.append(
                    Child(
                        client_argv + _fds(fds, s2c_r, c2s_w),
                        client_cpus,
                        (s2c_r, c2s_w),
                        memory_limit,
                        address_seed,
                    )
                )
            finally:
                for fd in (c2s_r, c2s_w, s2c_r, s2c_w):
                    os.close(fd)  # the children hold their ends; EOF must reach them
        else:
            children.append(Child(client_argv, client_cpus, (), memory_limit, address_seed))
    except OSError:
        for child in children:
            child.kill()
            child.wait()
        raise

    # A daemon, started inside the try: a Ctrl-C at any point must neither leave the
    # watcher running nor keep the harness alive until it fires.
    before = cpu_times()
    watcher = threading.Thread(target=watch, daemon=True)
    try:
        watcher.start()
        for child in reversed(children):  # the client (last) finishes first
            child.wait()
    finally:
        ended.set()
        for child in children:
            child.kill()
    wall_ns = time.monotonic_ns() - start
    overflowing()  # a process may have printed its flood and exited between two looks
    done = Finished(
        children,
        timed_out.is_set(),
        wall_ns,
        [c.proc.pid for c in children],
        overflow=overflow[0] if overflow else None,
    )
    pinned = (client_cpus or set()) | (server_cpus or set())
    own_ns = done.user_ns + done.sys_ns
    done.noise = Noise.between(before, cpu_times(), pinned or None, own_ns, wall_ns)
    return done


def _fds(names: tuple[str, str], in_fd: int, out_fd: int) -> list[str]:
    return [names[0], str(in_fd), names[1], str(out_fd)]
