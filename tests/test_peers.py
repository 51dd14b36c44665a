"""Peers that lie or die, against every real driver of the rpc suite: a server fed garbage,
a truncated stream or a frame claiming gigabytes, and a client whose server answers
garbage, stops mid-message or is gone. Each ends in an exit status 1 with a reason on
stderr: no crash, no hang, no allocation of what a length field claims, nothing left
running. (The harness's side, a pipe cell whose server dies, is in test_runner.py.)"""

import os
import random
import struct
import subprocess
import time

import pytest

from wirebench import drivers, runner
from wirebench.cells import Cell, Task

from .conftest import REQUIRE_DRIVERS

GOLDEN = drivers.ROOT / "testdata" / "golden"
LANGS = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())  # the rpc suite's languages
LIBS = ("capnp", "protobuf", "null")
TIMEOUT_S = 60
# A frame that claims 4 GiB must be refused from its length, not read into memory.
MAX_RSS_KB = 1 << 20

# A first frame whose length field claims about 4 GiB, in each wire format.
HUGE = {
    "capnp": struct.pack("<II", 0, 0x1FFFFFFF),  # one segment of 2^29 words
    "protobuf": bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),  # varint 2^32 - 1
    "null": struct.pack("<I", 0xFFFFFFF0),
}


def argv(lang: str, lib: str, role: str) -> list[str]:
    params = {"mode": "pipe", "compression": "none", "reuse": "reuse"}
    cell = Cell.make("rpc", "carsales", lang, lib, params, lang)
    task = Task(cell=cell, iters=20, samples=1, warmup=0, timeout=TIMEOUT_S, client=None)
    return [str(drivers.DRIVERS[lang].path())] + runner.driver_args(task, role, {})


def golden(lib: str, what: str) -> bytes:
    return (GOLDEN / "cpp" / f"carsales.{lib}.none.{what}").read_bytes()


def talk(lang: str, lib: str, role: str, feed: bytes, write_end_open: bool = True):
    """Starts one side with `feed` (then end of file) on its input pipe; its output goes
    to a pipe drained here, or, if not write_end_open, to one already closed. Returns
    (exit status, stderr, peak RSS in KiB), the process reaped."""
    if not drivers.DRIVERS[lang].is_built():
        if REQUIRE_DRIVERS:
            pytest.fail(f"the {lang} driver is not built")
        pytest.skip(f"the {lang} driver is not built")
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    if not write_end_open:
        os.close(out_r)
    proc = subprocess.Popen(
        argv(lang, lib, role) + ["--in-fd", str(in_r), "--out-fd", str(out_w)],
        pass_fds=(in_r, out_w),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    os.close(in_r)
    os.close(out_w)
    # Feeding and draining happen from the test in turn, through non-blocking pipes.
    os.set_blocking(in_w, False)
    if write_end_open:
        os.set_blocking(out_r, False)
    deadline, sent, ended = time.monotonic() + TIMEOUT_S, 0, None

    def reaped():  # wait4, not poll: it also gives the peak RSS
        nonlocal ended
        if ended is None:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            ended = (status, usage) if pid else None
        return ended is not None

    while not reaped() and time.monotonic() < deadline:
        if in_w >= 0 and sent < len(feed):
            try:
                sent += os.write(in_w, feed[sent : sent + 65536])
            except BlockingIOError:
                pass
            except BrokenPipeError:
                sent = len(feed)
        if in_w >= 0 and sent >= len(feed):
            os.close(in_w)
            in_w = -1
        if write_end_open:
            try:
                while os.read(out_r, 65536):
                    pass
            except BlockingIOError:
                pass
        time.sleep(0.005)
    hung = not reaped()
    if hung:
        os.killpg(proc.pid, 9)
        _, status, usage = os.wait4(proc.pid, 0)
    else:
        status, usage = ended
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    for fd in (in_w, out_r if write_end_open else -1):
        if fd >= 0:
            os.close(fd)
    assert not hung, f"{lang} {lib} {role} still running after {TIMEOUT_S} s: {err[-500:]}"
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # nothing of its session is left
    return proc.returncode, err, usage.ru_maxrss


def assert_clean_failure(what: str, code: int, err: str, rss_kb: int) -> None:
    assert code == 1, f"{what}: exit status {code}, expected 1: {err[-800:]}"
    assert err.strip(), f"{what}: failed without saying why"
    assert rss_kb < MAX_RSS_KB, f"{what}: peak RSS {rss_kb} KiB"


SERVER_INPUTS = {
    "garbage": lambda lib: random.Random(lib).randbytes(1 << 16),
    "truncated": lambda lib: golden(lib, "requests")[: len(golden(lib, "requests")) // 2 + 3],
    "huge-frame": lambda lib: HUGE[lib] + b"\0" * 64,
}


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("feed", sorted(SERVER_INPUTS))
def test_a_server_fed_bad_requests_exits_1_naming_it(lang, lib, feed):
    code, err, rss = talk(lang, lib, "server", SERVER_INPUTS[feed](lib))
    assert_clean_failure(f"{lang} {lib} server fed {feed}", code, err, rss)


CLIENT_INPUTS = {
    "garbage": lambda lib: random.Random(lib).randbytes(1 << 16),
    "truncated": lambda lib: golden(lib, "responses")[:50],
    "nothing": lambda lib: b"",  # the server went away before answering
    "huge-frame": lambda lib: HUGE[lib] + b"\0" * 64,
}


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("feed", sorted(CLIENT_INPUTS))
def test_a_client_whose_server_lies_or_dies_exits_1_naming_it(lang, lib, feed):
    code, err, rss = talk(lang, lib, "client", CLIENT_INPUTS[feed](lib))
    assert_clean_failure(f"{lang} {lib} client reading {feed}", code, err, rss)


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("lang", LANGS)
def test_a_client_whose_server_closed_its_end_exits_1_naming_it(lang, lib):
    code, err, rss = talk(lang, lib, "client", b"", write_end_open=False)
    assert_clean_failure(f"{lang} {lib} client writing to a closed pipe", code, err, rss)
