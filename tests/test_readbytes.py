"""The readbytes suite: the data file, the harness's checks and report with the fake
driver, and every real driver's strategies verified through the harness."""

import os
import subprocess
from pathlib import Path

import pytest

from wirebench import drivers, readbytes_data, runner
from wirebench.cells import Cell, Task
from wirebench.paths import mount_of
from wirebench.readbytes_data import PER_PASS, SIZE, DataError
from wirebench.suites import readbytes_report

from .conftest import FAKE, REQUIRE_DRIVERS


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory):
    """One data file for the session (making it takes a few seconds)."""
    d = tmp_path_factory.mktemp("readbytes")
    readbytes_data.write(d / readbytes_data.FILE_NAME)
    return d


@pytest.fixture
def data(monkeypatch, data_dir):
    monkeypatch.setattr(readbytes_data, "DATA_DIR", data_dir)
    return data_dir / readbytes_data.FILE_NAME


# -- the data file ---------------------------------------------------------------------------


def test_the_encoding_is_tag_then_varint():
    assert readbytes_data.encode(range(3)) == bytes([8, 0, 8, 1, 8, 2])
    assert readbytes_data.encode(range(300, 301)) == bytes([8, 0xAC, 0x02])


def test_the_check_values_are_the_seeds():
    """seeds/003: 128,863,360 bytes and 14,577,336,640 for the sum over 10 passes."""
    assert (readbytes_data.PASSES * SIZE, readbytes_data.PASSES * PER_PASS["sum"]) == (
        128_863_360,
        14_577_336_640,
    )
    assert PER_PASS["varint"] == sum(range(3_000_000))


def test_the_data_file_is_checked_and_made_again_when_wrong(data):
    readbytes_data.check(data)
    other = data.parent / "other"
    other.mkdir(exist_ok=True)
    bad = other / readbytes_data.FILE_NAME
    good = data.read_bytes()
    for content, message in (
        (good[:-1], "12,886,335 bytes, expected 12,886,336"),
        (good[:100] + b"\x09" + good[101:], "with the count, expected"),
        (good[:100] + good[101:102] + good[100:101] + good[102:], "differ from docs/workloads"),
    ):
        bad.write_bytes(content)
        with pytest.raises(DataError, match=message):
            readbytes_data.check(bad)
    # The harness makes a wrong file again instead of measuring it.
    bad.write_bytes(good[:-1])
    assert readbytes_data._checked(other) == bad
    readbytes_data.check(bad)


@pytest.mark.skipif(mount_of(Path("/dev/shm"))["fs"] != "tmpfs", reason="no tmpfs at /dev/shm here")
def test_a_cold_cache_is_refused_where_the_drop_keeps_the_pages(data):
    copy = Path("/dev/shm") / f"wirebench-readbytes-{os.getpid()}"
    copy.write_bytes(data.read_bytes())
    try:
        refusal = readbytes_data.cold_refusal(copy)
        assert refusal and "stay in the page cache after POSIX_FADV_DONTNEED" in refusal
    finally:
        copy.unlink()


# -- the harness, with the fake driver ---------------------------------------------------------


def _task(lib="stdio", case="sum", cache="warm"):
    cell = Cell.make("readbytes", case, "fake", lib, {"cache": cache})
    return Task(cell=cell, iters=2, samples=2, warmup=1, timeout=120, client=FAKE)


@pytest.mark.parametrize("case", list(PER_PASS))
def test_a_readbytes_cell_is_checked_end_to_end(data, case):
    outcome = runner.execute(_task(case=case))
    assert outcome.ok, outcome.error
    assert f"--input {data}" in outcome.commands[0]


def test_wrong_answers_are_refused(data, monkeypatch):
    monkeypatch.setenv("FAKE_READBYTES_LIE", "1")
    outcome = runner.execute(_task())
    assert not outcome.ok and "wrong answers" in outcome.error


def test_a_cold_cell_where_the_cache_cannot_be_emptied_is_an_error(data, monkeypatch):
    monkeypatch.setattr(readbytes_data, "cold_refusal", lambda path: "pages stay (a test)")
    outcome = runner.execute(_task(cache="cold"))
    assert not outcome.ok
    assert outcome.error == "cache cold cannot be promised here: pages stay (a test)"


def test_a_run_reports_the_seeds_table_and_a_bar_chart(run, data, tmp_path):
    r = run("run", "--suite", "readbytes", "--cache", "warm")
    assert r.exit_code == 0, r.output
    text = next(tmp_path.glob("report-*.md")).read_text()
    title = "readbytes / sum, cache warm: ms for 10 passes of 12,886,336 bytes, fastest first"
    assert title in text
    table = text.split(title)[1].split("\n\n")[1]
    rows = [line for line in table.splitlines() if line.startswith("| fake/")]
    # Fastest first: the floor (3x faster here) leads; the ratio is to the fastest real one.
    assert rows[0].startswith("| fake/null | fakec | 128,863,360 | 40.0 ")
    assert "| 0.33 [" in rows[0] and "| 1.00 |" in rows[1]
    assert "memcpy (limit)" in table
    assert "![readbytes-sum-warm-stock](report-1/readbytes-sum-warm-stock.svg)" in text
    assert (
        (tmp_path / "report-1" / "readbytes-varint-warm-stock.svg").read_text().startswith("<?xml")
    )


# -- every real driver -------------------------------------------------------------------------

READERS = [n for n in drivers.DRIVERS if n in ("cpp", "cpp-clang++", "rust", "go", "java")]
READERS += ["d-gdc", "d-ldc2"]


def _built(name):
    if not drivers.DRIVERS[name].is_built() and not REQUIRE_DRIVERS:
        pytest.skip(f"the {name} driver is not built")


def _cells(name):
    return [c for c in drivers.list_cells(name) if c["suite"] == "readbytes"]


@pytest.mark.parametrize("name", READERS)
def test_every_driver_lists_every_strategy_it_describes_in_order(name):
    _built(name)
    lang = drivers.DRIVERS[name].lang
    libs = list(readbytes_report.STRATEGIES[lang])
    want = [
        {"suite": "readbytes", "case": case, "lib": lib, "params": {"cache": cache}}
        for case in ("count", "sum", "varint")
        for lib in libs
        for cache in (("warm",) if lib == "null" else ("warm", "cold"))
    ]
    assert _cells(name) == want


def _real_task(name, lib, case, cache="warm"):
    d = drivers.DRIVERS[name]
    cell = Cell.make("readbytes", case, d.lang, lib, {"cache": cache}, toolchain=d.identity[1])
    return Task(cell=cell, iters=1, samples=1, warmup=1, timeout=120, client=d.path())


@pytest.mark.parametrize("name", READERS)
def test_every_driver_refuses_a_file_that_is_not_the_data(name, data, tmp_path):
    """The harness checks the file before it hands it over; a driver checks every pass
    on its own: given a corrupt copy directly, each says where it went wrong."""
    _built(name)
    bad = tmp_path / "bad.pb"
    good = data.read_bytes()
    bad.write_bytes(good[:1000] + b"\x10" + good[1001:])  # a tag of field 2
    exe = str(drivers.DRIVERS[name].path())
    lib = list(readbytes_report.STRATEGIES[drivers.DRIVERS[name].lang])[1]
    args = ["--suite", "readbytes", "--lib", lib, "--cache", "warm", "--iters", "1"]
    args += ["--samples", "1", "--warmup", "0", "--input", str(bad)]
    for case, needle in (("varint", "1000"), ("sum", str(PER_PASS["sum"]))):
        p = subprocess.run(
            [exe, "run", "--case", case, *args], capture_output=True, text=True, timeout=120
        )
        assert p.returncode == 1, (case, p.stdout, p.stderr)
        assert needle in p.stderr.replace(",", ""), (case, p.stderr)
