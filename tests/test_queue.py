"""The queue suite: the format in plain Python, the harness's checks and report with the
fake driver, and every real driver's queue against every other's (interoperability,
following a live appender, crash recovery, the lock, corrupt files)."""

import json
import os
import signal
import struct
import subprocess
import sys
import time

import pytest

from wirebench import comparisons, drivers, queue_format
from wirebench.cells import Cell, Task
from wirebench.paths import mount_of
from wirebench.protocol import ResultError
from wirebench.queue_format import ABANDONED, END, WORKING, QueueError, Writer
from wirebench.store import Store
from wirebench.suites.queue import SUITE, expected_checks, storage_dir, timed_runs

from .conftest import FAKE, REQUIRE_DRIVERS

# -- the format, in Python --------------------------------------------------------------------


def test_entries_round_trip_across_cycle_files(tmp_path):
    w = Writer(tmp_path, cycle_size=64 << 10)
    for i in range(10_000):  # 24 bytes each: several 64 KiB files
        w.append([i])
    w.append(list(range(10_000, 10_500)))  # one entry of 500 values
    w.close()
    assert len(queue_format.cycles(tmp_path)) > 3
    tail = queue_format.read(tmp_path)
    s = tail.summary()
    assert (s["entries"], s["longs"], s["first"], s["last"]) == (10_001, 10_500, 0, 10_499)
    assert s["consecutive"] and s["monotonic"] and s["stopped"] == "end"
    assert s["sum"] == sum(range(10_500))


def test_a_dead_writers_entry_stops_tailers_and_is_abandoned_on_reopen(tmp_path):
    w = Writer(tmp_path)
    w.append([0])
    w.append([1, 2, 3, 4], complete=False)  # killed in the middle of the write
    w.close()
    tail = queue_format.read(tmp_path)
    assert (tail.entries, tail.stopped, tail.file, tail.offset) == (
        1,
        "incomplete",
        "00000000.wbq",
        88,
    )
    w = Writer(tmp_path)  # recovery
    w.append([1])
    w.close()
    s = queue_format.read(tmp_path).summary()
    assert (s["entries"], s["abandoned"], s["last"], s["consecutive"]) == (2, 1, 1, True)
    (word,) = struct.unpack_from("<Q", (tmp_path / "00000000.wbq").read_bytes(), 88)
    assert word == ABANDONED | 32


def test_a_second_appender_is_refused_naming_the_holder(tmp_path):
    # A record lock belongs to a process: the holder must be another one.
    code = "import sys, time; from wirebench.queue_format import Writer; "
    code += "w = Writer(sys.argv[1]); print('locked', flush=True); time.sleep(60)"
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(QueueError, match=f"already has an appender \\(pid {holder.pid}\\)"):
            Writer(tmp_path)
    finally:
        holder.kill()
        holder.wait()
    Writer(tmp_path).close()  # free again once the holder is gone


def _corrupt(tmp_path, offset, data):
    w = Writer(tmp_path)
    for i in range(3):
        w.append([i])
    w.close()
    f = tmp_path / "00000000.wbq"
    raw = bytearray(f.read_bytes())
    raw[offset : offset + len(data)] = data
    f.write_bytes(bytes(raw))


@pytest.mark.parametrize(
    ("offset", "data", "message"),
    [
        (0, b"notaqueu", "00000000.wbq offset 0: bad magic"),
        (8, struct.pack("<I", 2), "offset 8: format version 2"),
        (24, struct.pack("<Q", 7), "offset 24: cycle number 7"),
        (88, struct.pack("<Q", 1 << 40), "offset 88: corrupt header word"),
        (88, struct.pack("<Q", WORKING | END), "offset 88: corrupt header word"),
        (88, struct.pack("<Q", 1 << 30), "offset 88: an entry of 1073741824 bytes runs past"),
        (88, struct.pack("<Q", END | 8), "offset 88: END with a length"),
    ],
)
def test_a_corrupt_file_names_the_file_and_offset(tmp_path, offset, data, message):
    _corrupt(tmp_path, offset, data)
    with pytest.raises(QueueError, match=message):
        queue_format.read(tmp_path)


def test_a_truncated_file_is_an_error_not_a_short_read(tmp_path):
    _corrupt(tmp_path, 0, b"wbqueue1")
    f = tmp_path / "00000000.wbq"
    f.write_bytes(f.read_bytes()[:4096])
    with pytest.raises(QueueError, match="00000000.wbq: truncated: 4096 bytes"):
        queue_format.read(tmp_path)


# -- the harness ------------------------------------------------------------------------------


def test_expected_checks_continue_through_the_warm_up():
    # 2 warm-up runs of 3 values (0..5), then runs holding 6,7,8 and 9,10,11.
    assert expected_checks(3, 2, 2) == [21, 30]


def test_the_storage_parameter_is_checked_against_the_file_system(monkeypatch, tmp_path):
    from wirebench.suites import queue

    assert storage_dir("disk").is_dir()
    if mount_of(tmp_path)["fs"] != "tmpfs":
        monkeypatch.setitem(queue.STORAGE, "tmpfs", tmp_path)
        with pytest.raises(ResultError, match=f"storage tmpfs: {tmp_path} is on "):
            storage_dir("tmpfs")


def _queue_task(lib="wbq", case="single", iters=5, samples=3):
    params = {"ordering": "release" if lib == "wbq" else "none", "clock": "mono"}
    params |= {"pretouch": "on", "storage": "disk"}
    cell = Cell.make("queue", case, "fake", lib, params)
    return Task(cell=cell, iters=iters, samples=samples, warmup=2, timeout=30, client=FAKE)


@pytest.mark.parametrize("lib", ["wbq", "null"])
@pytest.mark.parametrize("case", ["single", "bulk"])
def test_a_queue_cell_is_checked_end_to_end(lib, case):
    from wirebench import runner

    outcome = runner.execute(_queue_task(lib, case))
    assert outcome.ok, outcome.error
    assert outcome.metrics["latency"].kind == "histogram"  # the counts form converted too
    assert "--work-dir" in outcome.commands[0]
    work = outcome.commands[0].split("--work-dir ")[1].split()[0]
    assert work.startswith(str(storage_dir("disk"))) and not os.path.exists(work)


def test_wrong_sums_are_refused(monkeypatch):
    from wirebench import runner

    monkeypatch.setenv("FAKE_QUEUE_LIE", "1")
    outcome = runner.execute(_queue_task())
    assert not outcome.ok
    assert "wrong answers: the tailer's sums differ" in outcome.error


def test_a_single_sample_is_a_run_timed_whole_and_one_timed_per_write():
    assert timed_runs("single", 3) == 6
    assert timed_runs("bulk", 3) == timed_runs("paced", 3) == 3


def test_a_driver_that_times_single_writes_only_one_by_one_is_refused(monkeypatch):
    from wirebench import runner

    monkeypatch.setenv("FAKE_QUEUE_OLD", "1")
    outcome = runner.execute(_queue_task(case="single"))
    assert not outcome.ok
    assert "3 sums for 6 runs" in outcome.error
    assert runner.execute(_queue_task(case="bulk")).ok  # one write a run: nothing changes


def test_the_headline_run_pairs_wbq_on_seqcst_what_every_language_can_do():
    def cell(lib, **params):
        base = {"clock": "mono", "pretouch": "on", "storage": "tmpfs", "build": "stock"}
        return Cell.make("queue", "single", "go", lib, {**base, **params})

    assert SUITE.headline(cell("wbq", ordering="seqcst"), default=True)
    assert SUITE.headline(cell("wbq", ordering="seqcst"), default=False)  # Go's default
    assert not SUITE.headline(cell("wbq", ordering="release"), default=True)
    assert not SUITE.headline(cell("wbq", ordering="seqcst", pretouch="off"), default=False)
    assert not SUITE.headline(cell("wbq", ordering="seqcst", storage="disk"), default=False)
    assert SUITE.headline(cell("null", ordering="none"), default=True)
    assert SUITE.headline(cell("chronicle", ordering="lib", pretouch="off"), default=True)


def _result(lang, lib, case, rounds, ordering=None):
    from wirebench.model import CellResult, MetricData

    params = {"clock": "mono", "pretouch": "on", "storage": "tmpfs", "build": "stock"}
    params["ordering"] = ordering or ("none" if lib == "null" else "seqcst")
    time = MetricData("time", "ns", "samples", 50_000, rounds={i: v for i, v in enumerate(rounds)})
    cell = Cell.make("queue", case, lang, lib, params)
    return CellResult(cell, "ok", None, 50_000, {"time": time}, None, None)


def test_the_headline_gives_each_languages_cost_above_its_floor_with_an_interval():

    drift = [0.0, 3.0, -2.0, 5.0, 1.0, -1.0]  # shared by the round: cancels in the pairs
    noise = [0.0, 0.1] * 3
    results = [
        _result("cpp", "null", "single", [[25 + d] for d in drift]),
        _result("cpp", "wbq", "single", [[27 + d + e] for d, e in zip(drift, noise, strict=True)]),
        _result("go", "null", "single", [[30 + d] for d in drift]),
        _result("go", "wbq", "single", [[36 + d] for d in drift]),
        _result("rust", "null", "single", [[26 + d] for d in drift]),
    ]
    (table,) = SUITE.headline_tables(results, "cpp")
    assert table.headers == ["case", "lib", "ordering", "pretouch", "build", "cpp", "go", "rust"]
    (row,) = table.rows
    assert row[:5] == ["single", "wbq", "seqcst", "on", "stock"]
    assert row[5].startswith("2.05 [") and row[6] == "6.00 [6.00 to 6.00]"
    assert row[7] == "-"  # no wbq: nothing above the floor to show

    # The headline ratios' cells column counts per language: Rust's row holds its floor only.
    heads = comparisons.headline_tables(results, "cpp")
    assert heads[0].headers[4] == "cells" and heads[0].rows[0][4] == "go 2, rust 1"
    assert heads[-1] == table


def test_a_run_reports_percentiles_charts_and_interval_logs(run, tmp_path):
    r = run("run", "--suite", "queue", "--storage", "disk", "--iters", "20", "--samples", "3")
    assert r.exit_code == 0, r.output
    text = next(tmp_path.glob("report-*.md")).read_text()
    assert "queue / single: ns per write" in text and "p99.99" in text
    assert "queue: each implementation against C++ wbq" not in text  # no C++ here
    assert "![queue-single](report-1/queue-single.svg)" in text
    files = tmp_path / "report-1"
    assert (files / "queue-bulk.svg").read_text().startswith("<?xml")
    logs = sorted((files / "queue").glob("*.hlog"))
    assert len(logs) == 6 * 3  # six cells, three processes each
    assert "HISTF" in logs[0].read_text()
    prov = json.loads(Store(run.db).run(1)["provenance"])
    assert prov["suites"]["queue"]["storage"]["tmpfs"]["path"] == "/dev/shm"


def test_the_queue_is_not_counted_under_valgrind():
    assert not SUITE.countable


# -- every driver's queue against every other's -------------------------------------------------

WBQ = ("cpp", "rust", "go", "java")


def _exe(lang) -> str:
    return drivers.DRIVERS[lang].profile("stock").executable


def _queue(lang, *args, check=True, timeout=120):
    if lang == "python":
        return _python_queue(*args)
    p = subprocess.run(
        [_exe(lang), "queue", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )
    if check:
        assert p.returncode == 0, f"{lang} queue {args}: exit {p.returncode}: {p.stderr}"
        return json.loads(p.stdout)
    return p


def _python_queue(cmd, d, *args):
    assert cmd == "tail"
    return queue_format.read(d).summary()


def _needs(*langs):
    missing = [lang for lang in langs if lang != "python" and not drivers.DRIVERS[lang].is_built()]
    if missing and not REQUIRE_DRIVERS:
        pytest.skip(f"not built: {', '.join(missing)}")


def _same(summary, entries, longs, first=0):
    assert summary["entries"] == entries
    assert summary["longs"] == longs
    assert summary["first"] == first and summary["last"] == first + longs - 1
    assert summary["sum"] == sum(range(first, first + longs))
    assert summary["consecutive"] and summary["monotonic"]
    assert summary["abandoned"] == 0 and summary["stopped"] == "end"


@pytest.mark.parametrize("tailer", [*WBQ, "python"])
@pytest.mark.parametrize("appender", WBQ)
def test_every_appender_is_read_by_every_tailer(tmp_path, appender, tailer):
    _needs(appender, tailer)
    d = tmp_path / "q"
    # Small cycle files, so the entries cross several of them; single and bulk entries.
    out = _queue(appender, "append", d, "--entries", 3000, "--cycle-size", 65536)
    assert out["entries"] == 3000
    _queue(
        appender,
        "append",
        d,
        "--entries",
        3,
        "--longs",
        1000,
        "--first",
        3000,
        "--cycle-size",
        65536,
    )
    assert len(queue_format.cycles(d)) > 1
    _same(_queue(tailer, "tail", d), 3003, 6000)


@pytest.mark.parametrize("tailer", WBQ)
@pytest.mark.parametrize("appender", WBQ)
def test_a_tailer_follows_a_live_appender_of_another_language(tmp_path, appender, tailer):
    _needs(appender, tailer)
    if appender == tailer:
        pytest.skip("the cross-language pairs; each driver's own tests follow itself")
    d = tmp_path / "q"
    # The queue exists before the tailer starts.
    _queue(appender, "append", d, "--entries", 1, "--cycle-size", 65536)
    follower = subprocess.Popen(
        [_exe(tailer), "queue", "tail", str(d), "--follow", "--expect", "2001", "--timeout", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _queue(
        appender,
        "append",
        d,
        "--entries",
        2000,
        "--first",
        1,
        "--pause-us",
        100,
        "--cycle-size",
        65536,
    )
    out, err = follower.communicate(timeout=90)
    assert follower.returncode == 0, err
    summary = json.loads(out)
    assert summary["entries"] == 2001 and summary["consecutive"] and summary["monotonic"]


@pytest.mark.parametrize("recoverer", WBQ)
@pytest.mark.parametrize("victim", WBQ)
def test_a_write_cut_short_is_recovered_by_any_language(tmp_path, victim, recoverer):
    _needs(victim, recoverer)
    d = tmp_path / "q"
    p = _queue(victim, "append", d, "--entries", 10, "--longs", 4, "--die-mid-entry", check=False)
    assert p.returncode == 3, p.stderr
    for tailer in {victim, recoverer, "python"}:
        s = _queue(tailer, "tail", d)
        assert (s["entries"], s["stopped"], s["last"]) == (10, "incomplete", 39), tailer
    _queue(recoverer, "append", d, "--entries", 5, "--longs", 4, "--first", 40)
    s = _queue(victim, "tail", d)
    assert (s["entries"], s["abandoned"], s["stopped"], s["last"]) == (15, 1, "end", 59)
    assert s["consecutive"]


@pytest.mark.parametrize("lang", WBQ)
def test_an_appender_killed_at_random_loses_no_complete_entry(tmp_path, lang):
    _needs(lang)
    d = tmp_path / "q"
    for attempt in range(3):
        first = queue_format.read(d).summary()["longs"] if d.exists() else 0
        p = subprocess.Popen(
            [
                _exe(lang),
                "queue",
                "append",
                str(d),
                "--entries",
                "10000000",
                "--longs",
                "7",
                "--first",
                str(first),
                "--cycle-size",
                "65536",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        # Killed once it has filled a new cycle file (a JVM takes a while to start), a
        # few milliseconds into its writes: a cheap test, where reading would not be.
        made = len(queue_format.cycles(d)) if d.exists() else 0
        deadline = time.monotonic() + 60
        while not (d.exists() and len(queue_format.cycles(d)) > made + 1):
            assert time.monotonic() < deadline and p.poll() is None, p.stderr.read()
            time.sleep(0.002)
        time.sleep(0.003 * attempt)
        p.send_signal(signal.SIGKILL)
        p.wait()
        s = queue_format.read(d).summary()
        assert s["consecutive"] and s["monotonic"] and s["longs"] % 7 == 0
        assert s["longs"] > first  # it wrote something before it died
    # Reopened for append, the queue goes on where the last complete entry ended.
    first = queue_format.read(d).summary()["longs"]
    _queue(lang, "append", d, "--entries", 2, "--longs", 7, "--first", first, "--cycle-size", 65536)
    s = _queue(lang, "tail", d)
    assert s["consecutive"] and s["stopped"] == "end" and s["longs"] == first + 14


@pytest.mark.parametrize("second", WBQ)
@pytest.mark.parametrize("first", WBQ)
def test_two_appenders_at_once_are_refused_across_languages(tmp_path, first, second):
    _needs(first, second)
    d = tmp_path / "q"
    holder = subprocess.Popen(
        [_exe(first), "queue", "append", str(d), "--entries", "100000", "--pause-us", "100"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while not (d / "queue.lock").exists() or not (d / "queue.lock").read_text().strip():
            assert time.monotonic() < deadline, "the first appender never took the lock"
            time.sleep(0.05)
        p = _queue(second, "append", d, "--entries", 1, check=False)
        assert p.returncode == 1
        assert f"pid {holder.pid}" in p.stderr and str(d) in p.stderr, p.stderr
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("lang", WBQ)
@pytest.mark.parametrize(
    ("offset", "data", "message"),
    [
        (0, b"notaqueu", "offset 0"),
        (88, struct.pack("<Q", 1 << 40), "offset 88"),
        (88, struct.pack("<Q", 1 << 30), "offset 88"),
    ],
)
def test_every_tailer_names_the_file_and_offset_of_a_corrupt_queue(
    tmp_path, lang, offset, data, message
):
    _needs(lang)
    _corrupt(tmp_path, offset, data)
    p = _queue(lang, "tail", tmp_path, check=False)
    assert p.returncode == 1, p.stdout
    assert "00000000.wbq" in p.stderr and message in p.stderr, p.stderr


@pytest.mark.parametrize("lang", WBQ)
def test_every_tailer_reports_a_truncated_file(tmp_path, lang):
    _needs(lang)
    _corrupt(tmp_path, 0, b"wbqueue1")
    f = tmp_path / "00000000.wbq"
    f.write_bytes(f.read_bytes()[:4096])
    p = _queue(lang, "tail", tmp_path, check=False)
    assert p.returncode == 1 and "00000000.wbq" in p.stderr and "trunc" in p.stderr, p.stderr


def test_python_reads_what_python_wrote_with_the_drivers_layout(tmp_path):
    # The reference writer makes the same bytes a driver would for the same entries.
    w = Writer(tmp_path, cycle_size=65536)
    w.append([5, 6])
    w.close()
    raw = (tmp_path / "00000000.wbq").read_bytes()
    assert raw[:8] == b"wbqueue1" and struct.unpack_from("<IIQQI", raw, 8) == (1, 64, 65536, 0, 1)
    assert struct.unpack_from("<Qq2q", raw, 64) == (16, 1, 5, 6)


def test_a_second_appender_within_the_process_is_refused_and_keeps_the_first_lock(tmp_path):
    w = Writer(tmp_path)
    with pytest.raises(QueueError, match=f"already has an appender \\(pid {os.getpid()}\\)"):
        Writer(tmp_path)
    code = "import sys; from wirebench.queue_format import Writer; Writer(sys.argv[1])"
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 1 and "already has an appender" in p.stderr  # still locked
    w.close()
