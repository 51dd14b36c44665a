"""A/B in one run (wirebench/ab.py): `run --ab B [--ab A]` runs both sides of every cell
in each round and reads B against A paired by round, with compare's verdicts and exit
code. The fake driver's `tuned` build is here a copy of it that is slower by a factor."""

import dataclasses
import re
import stat

import pytest
from click.testing import CliRunner

from wirebench import ab, cli, drivers
from wirebench.cells import Cell

from .conftest import FAKE, FAKE_DRIVER

VERDICTS = r"\*\*(\d+) slower, (\d+) faster, (\d+) no difference\*\*"


def _fake_with_tuned(tmp_path, slowdown: float) -> drivers.Driver:
    """The fake driver whose tuned build runs FAKE_SLOWDOWN times slower."""
    tuned = tmp_path / "fake_tuned"
    tuned.write_text(f'#!/bin/sh\nFAKE_SLOWDOWN={slowdown} exec {FAKE} "$@"\n')
    tuned.chmod(tuned.stat().st_mode | stat.S_IEXEC)
    builds = {**FAKE_DRIVER.builds, "tuned": drivers.Build(str(tuned))}
    return dataclasses.replace(FAKE_DRIVER, builds=builds)


def _ab_run(monkeypatch, tmp_path, slowdown, *sides, fail_on="slower"):
    monkeypatch.setattr(drivers, "DRIVERS", {"fake": _fake_with_tuned(tmp_path, slowdown)})
    drivers.info.cache_clear()
    drivers.list_cells.cache_clear()
    monkeypatch.setenv("FAKE_NOISE", "0")  # exact: the verdicts cannot be chance
    args = ["run", "--suite", "rpc", "--lib", "good", "--no-pairs", "--no-limits"]
    args += ["--repeat", "6", "--iters", "5", "--samples", "2", "--layouts", "1"]
    args += ["--fail-on", fail_on, "--no-report", "--db", str(tmp_path / "w.db")]
    for s in sides:
        args += ["--ab", s]
    return CliRunner().invoke(cli.main, args)


def test_a_slower_b_is_called_slower_in_every_cell_and_fails_the_job(monkeypatch, tmp_path):
    r = _ab_run(monkeypatch, tmp_path, 1.3, "build=tuned")
    assert r.exit_code == 1, r.output
    assert "build=tuned (B) against committed (A)" in r.stdout
    slower, faster, same = map(int, re.search(VERDICTS, r.stdout).groups())
    assert slower > 0 and faster == same == 0
    whole = re.search(r"timed comparisons together: B/A (\d+\.\d+)", r.stdout)
    assert whole and abs(float(whole[1]) - 1.3) < 0.02  # the geometric mean of the whole


def test_the_same_code_on_both_sides_is_no_difference_and_passes(monkeypatch, tmp_path):
    r = _ab_run(monkeypatch, tmp_path, 1.0, "build=tuned")
    assert r.exit_code == 0, r.output
    slower, faster, same = map(int, re.search(VERDICTS, r.stdout).groups())
    assert slower == faster == 0 and same > 0


def test_an_ab_run_holds_each_cell_on_both_sides_and_nothing_else(monkeypatch, tmp_path):
    r = _ab_run(monkeypatch, tmp_path, 1.0, "build=stock", "build=tuned", fail_on="never")
    assert r.exit_code == 0, r.output
    from wirebench.store import Store

    store = Store(tmp_path / "w.db")
    plan = store.plan(1)
    assert [s["text"] for s in plan.ab] == ["build=stock", "build=tuned"]
    by_build = {
        b: {ab.match(e.cell) for e in plan.entries if e.cell.build == b} for b in ("stock", "tuned")
    }
    assert by_build["stock"] == by_build["tuned"] and by_build["stock"]
    assert all("twin" not in e.cell.param and e.cell.suite == "rpc" for e in plan.entries)


@pytest.mark.parametrize(
    "sides, message",
    [
        (("fast",), "a side is `committed`"),
        (("build=fastest",), "builds are stock, tuned"),
        (("build=stock", "committed"), "A and B are the same"),
        (("build=tuned",) * 3, "takes B, or A and B"),
    ],
)
def test_sides_that_are_not_an_ab_are_refused_by_name(sides, message):
    with pytest.raises(ab.ABError, match=message):
        ab.sides(sides)


def test_the_builds_of_an_ab_run_are_its_sides():
    assert ab.builds(("build=tuned",)) == {"stock", "tuned"}
    assert ab.builds(("build=stock", "build=tuned")) == {"stock", "tuned"}
    assert ab.builds(("rust:capnp=0.26.0",)) == {"stock"}


def test_a_variant_side_holds_its_variant_cells_of_its_language_only():
    v = ab.Side("rust:capnp=0.26.0", label="capnp@0.26.0", lang="rust")
    cell = Cell.make("rpc", "eval", "rust", "capnp", {"build": "stock"})
    assert v.holds(cell.with_param("variant", "capnp@0.26.0"))
    assert not v.holds(cell) and ab.side("committed").holds(cell)
    assert ab.match(cell) == ab.match(cell.with_param("variant", "capnp@0.26.0"))


def test_a_resumed_ab_run_keeps_its_sides(monkeypatch, tmp_path):
    r = _ab_run(monkeypatch, tmp_path, 1.0, "build=tuned", fail_on="never")
    assert r.exit_code == 0
    again = CliRunner().invoke(
        cli.main, ["run", "--resume", "1", "--no-report", "--db", str(tmp_path / "w.db")]
    )
    assert "build=tuned (B) against committed (A)" in again.stdout


def test_an_ab_run_gives_every_round_a_layout_of_its_own():
    """Its two sides are two binaries whose variant k moves each its own way: rounds that
    shared a variant would be one measurement of the layouts, not several (stats.py). An
    explicit --layouts stays as given; the JVM has no variants."""
    from wirebench import orchestrate

    names = ["cpp", "rust", "java"]
    req = orchestrate.Request(filters={}, profile="quick", ab=("build=tuned",))
    assert orchestrate.layouts(req, names, 18) == {"cpp": 18, "rust": 18}
    fixed = orchestrate.Request(filters={}, profile="quick", ab=("build=tuned",), layouts=6)
    assert orchestrate.layouts(fixed, names, 18) == {"cpp": 6, "rust": 6}
    plain = orchestrate.Request(filters={}, profile="quick")  # as every run by default
    assert orchestrate.layouts(plain, names, 18) == {"cpp": 18, "rust": 18}


def test_a_patch_side_is_one_variant_per_language_not_per_compiler():
    """cpp-clang++ shares drivers/cpp with cpp: `--ab patch=` over `--lang cpp` asks for
    the cpp variant only (it used to ask for `cpp-clang++:patch=`, which --with refuses)."""
    names = ["cpp", "cpp-clang++", "rust", "d-gdc"]
    assert ab.variant_texts(("patch=/x.patch",), names) == [
        "cpp:patch=/x.patch",
        "rust:patch=/x.patch",
    ]
