"""The command line: good runs report, bad input gets a clear error and loses nothing."""

import dataclasses
import json

import pytest
from click.testing import CliRunner

from wirebench import cli

from .conftest import builds_at


def test_run_then_report_and_runs(run):
    r = run("run", "--lib", "good", "--iters", "3", "--samples", "2", "--repeat", "2")
    assert r.exit_code == 0, r.output
    assert "rpc / carsales" in r.output and "Machine limit" in r.output
    md = (run.db.parent / "report-1.md").read_text()
    assert "# wirebench report: run 1" in md and "fake/good" in md
    header = next(line for line in md.splitlines() if line.startswith("| impl | mode"))
    assert header.split(" | ")[1:5] == ["mode", "compression", "reuse", "placement"]
    pipe_row = next(line for line in md.splitlines() if line.startswith("| fake/good | pipe"))
    assert pipe_row.split(" | ")[1:5] == ["pipe", "none", "reuse", "one-core"]
    r = run("report", "--json")
    data = json.loads(r.output)
    assert data["run"]["status"] == "complete"
    keys = {c["key"] for c in data["cells"]}
    assert "rpc/carsales/fake/good build=stock compression=none mode=object reuse=reuse" in keys
    assert all(c["status"] == "ok" for c in data["cells"])
    r = run("runs")
    assert r.exit_code == 0 and "complete" in r.output


def test_failed_cells_are_reported_with_their_reason(run):
    r = run(
        "run",
        "--lib",
        "good,garbage",
        "--mode",
        "object",
        "--iters",
        "2",
        "--samples",
        "1",
        "--repeat",
        "1",
        "--no-limits",
    )
    assert r.exit_code == 1
    assert "ERROR" in r.output
    assert (
        "garbage build=stock compression=none mode=object reuse=reuse: process 1: malformed result"
        in r.output
    )
    assert "Errors (these cells have no number)" in r.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--mode", "pipes"], "unknown mode 'pipes'"),
        (["run", "--lang", "cobol"], "unknown language 'cobol'"),
        (["run", "--lib", "prost"], "unknown lib 'prost'"),
        (["run", "--resume", "7"], "no run 7"),
        (["run", "--profile", "huge"], "'huge' is not one of"),
        (["run", "--repeat", "0"], "0 is not in the range"),
        (["run", "--bogus"], "No such option '--bogus'"),
        (["report", "--run", "3"], "no results database"),
    ],
)
def test_bad_input_gets_a_clear_error(run, args, message):
    r = run(*args)
    assert r.exit_code == 2
    assert message in r.output


def test_bad_input_loses_no_stored_result(run):
    assert (
        run("run", "--lib", "good", "--iters", "2", "--samples", "1", "--repeat", "1").exit_code
        == 0
    )
    assert run("run", "--mode", "nope").exit_code == 2
    assert run("run", "--resume", "1", "--lib", "good").exit_code == 2
    r = run("report", "--run", "1", "--json")
    assert json.loads(r.output)["run"]["status"] == "complete"


def test_corrupt_database_is_named(fake, tmp_path):
    db = tmp_path / "junk.db"
    db.write_bytes(b"not a database" * 100)
    r = CliRunner().invoke(cli.main, ["runs", "--db", str(db)])
    assert r.exit_code == 2 and "junk.db" in r.output


def test_list_shows_drivers(fake):
    r = CliRunner().invoke(cli.main, ["list", "--json"])
    data = json.loads(r.output)
    assert data["drivers"]["fake"]["built"] is True
    assert "good" in data["drivers"]["fake"]["libs"]
    assert data["params"]["placement"] == ["one-core", "two-cores", "unpinned"]
    assert data["suites"]["rpc"]["params"]["compression"] == ["none", "packed"]
    assert data["suites"]["limit"]["params"] == {"block": ["16KiB", "1MiB", "64MiB"]}
    assert data["drivers"]["fake"]["toolchain"] == "fakec"


def test_a_client_in_one_language_talks_to_a_server_in_another(two_fakes, tmp_path):
    db = str(tmp_path / "p.db")
    r = CliRunner().invoke(
        cli.main,
        [
            "run",
            "--pair",
            "fake:fake2,fake2:fake",
            "--lib",
            "good",
            "--iters",
            "3",
            "--samples",
            "2",
            "--repeat",
            "1",
            "--no-limits",
            "--json",
            "--db",
            db,
        ],
    )
    assert r.exit_code == 0, r.output
    cells = json.loads(r.stdout)["cells"]
    assert {(c["lang"], c["server_lang"]) for c in cells} == {("fake", "fake2"), ("fake2", "fake")}
    assert all(c["status"] == "ok" and c["params"]["mode"] == "pipe" for c in cells)
    assert {c["key"].split()[0] for c in cells} == {
        "rpc/carsales/fake:fake2/good",
        "rpc/carsales/fake2:fake/good",
    }


def test_compare_two_languages_side_by_side(two_fakes, tmp_path):
    db = str(tmp_path / "c.db")
    r = CliRunner().invoke(
        cli.main,
        [
            "run",
            "--lib",
            "good",
            "--mode",
            "object",
            "--iters",
            "3",
            "--samples",
            "2",
            "--repeat",
            "2",
            "--no-limits",
            "--no-report",
            "--db",
            db,
        ],
    )
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli.main, ["report", "--compare", "fake:fake2", "--json", "--db", db])
    assert r.exit_code == 0, r.output
    table = json.loads(r.stdout)["tables"][0]
    assert table["headers"][-1] == "fake/fake2"
    assert table["rows"] == [
        [
            "carsales",
            "good",
            "object",
            "none",
            "reuse",
            "stock",
            "1.01 µs [no CI]",  # the fake's samples: 1000 and 1012.3 ns; 2 processes
            "1.01 µs [no CI]",
            "1.00 [1.00-1.00]",  # every process alike: the paired ratio is exact
        ]
    ]
    for bad, message in [("fake", "takes A:B"), ("fake:cobol", "two languages (fake, fake2)")]:
        r = CliRunner().invoke(cli.main, ["report", "--compare", bad, "--db", db])
        assert r.exit_code == 2 and message in r.output

    # Every language against one: here fake against fake2.
    r = CliRunner().invoke(cli.main, ["report", "--against", "fake2", "--json", "--db", db])
    assert r.exit_code == 0, r.output
    headline, table = json.loads(r.stdout)["tables"][:2]
    assert headline["headers"] == ["suite", "metric", "lib", "build", "cells", "fake/fake2"]
    assert headline["rows"] == [["rpc", "time", "good", "stock", "1", "1.00 [1.00-1.00]"]]
    assert table["headers"][-2:] == ["fake2", "fake/fake2"]
    assert table["rows"][0][-1] == "1.00 [1.00-1.00]"  # paired: every process alike
    r = CliRunner().invoke(cli.main, ["report", "--against", "cobol", "--db", db])
    assert r.exit_code == 2 and "a language of the run (fake, fake2)" in r.output


def test_profile_pairs_and_no_pairs(two_fakes, tmp_path, monkeypatch):
    from wirebench.suites import rpc

    monkeypatch.setitem(rpc.PAIRS, "quick", {"lib": ("good",)})
    base = [
        "run",
        "--lib",
        "good",
        "--mode",
        "pipe",
        "--iters",
        "2",
        "--samples",
        "1",
        "--repeat",
        "1",
        "--no-limits",
        "--json",
    ]

    def langs(*extra):
        r = CliRunner().invoke(cli.main, [*base, *extra, "--db", str(tmp_path / "n.db")])
        assert r.exit_code == 0, r.output
        return {(c["lang"], c["server_lang"]) for c in json.loads(r.stdout)["cells"]}

    assert langs() == {("fake", "fake"), ("fake2", "fake2"), ("fake", "fake2"), ("fake2", "fake")}
    assert langs("--no-pairs") == {("fake", "fake"), ("fake2", "fake2")}


def test_a_suite_of_histograms_and_fixtures_end_to_end(run, probe_suite):
    r = run("run", "--suite", "probe", "--samples", "3", "--repeat", "2", "--no-limits", "--json")
    assert r.exit_code == 0, r.output
    (cell,) = json.loads(r.stdout)["cells"]
    assert cell["status"] == "ok"
    latency = cell["metrics"]["latency"]
    assert latency["kind"] == "histogram" and latency["processes"] == 2
    p50 = next(p for p in latency["percentiles"] if p["p"] == 50)
    assert 49_000 <= p50["value"] <= 51_000 and p50["ci95"][0] <= p50["value"]
    assert cell["metrics"]["out_bytes"]["median"] == 1234
    r = run("report")
    assert "probe / echo" in r.output and "p99.9" in r.output


def test_a_driver_of_another_protocol_version_is_refused(run, monkeypatch, tmp_path):
    from wirebench import drivers

    old = tmp_path / "old_driver"
    old.write_text('#!/bin/sh\necho \'{"protocol": 1, "lang": "fake"}\'\n')
    old.chmod(0o755)
    monkeypatch.setitem(
        drivers.DRIVERS, "fake", dataclasses.replace(drivers.DRIVERS["fake"], builds=builds_at(old))
    )
    drivers.info.cache_clear()
    with pytest.raises(drivers.DriverError, match="speaks protocol 1, this harness 2"):
        drivers.info("fake")


def test_a_run_of_both_builds_pairs_tuned_with_stock_and_keeps_their_tables_apart(run):
    r = run("run", "--lib", "good", "--mode", "object", "--build", "stock,tuned", "--iters", "3")
    assert r.exit_code == 0, r.output
    data = json.loads(run("report", "--json").output)
    keys = {c["key"] for c in data["cells"]}
    for build in ("stock", "tuned"):
        assert (
            f"rpc/carsales/fake/good build={build} compression=none mode=object reuse=reuse" in keys
        )
    titles = [t["title"] for t in data["tables"]]
    gains = next(t for t in data["tables"] if t["title"].startswith("What the tuned build gains"))
    assert gains["rows"][0][:3] == ["time", "fake", "1"]
    assert any(t.startswith("Tuned against stock: time") for t in titles)
    # The suite's own tables: one per build, each titled with it.
    assert any(t.endswith("[build stock]") for t in titles)
    assert any(t.endswith("[build tuned]") for t in titles)


def test_an_unknown_build_is_refused_with_the_known_ones(run):
    r = run("run", "--lib", "good", "--build", "fast")
    assert r.exit_code == 2
    assert "unknown build 'fast'; known: stock, tuned" in r.output


def test_resume_refuses_every_option_that_would_change_the_plan_by_name(tmp_path):
    db = str(tmp_path / "w.db")
    r = CliRunner().invoke(
        cli.main, ["run", "--resume", "1", "--repeat", "3", "--no-pairs", "--db", db]
    )
    assert r.exit_code == 2
    assert "takes no filters or counts (given: --repeat, --no-pairs)" in r.output
    # What it takes: the store and how the result is shown.
    r = CliRunner().invoke(cli.main, ["run", "--resume", "1", "--no-report", "--db", db])
    assert "takes no filters" not in r.output


def test_build_names_the_build_not_a_profile():
    r = CliRunner().invoke(cli.main, ["build", "--profile", "tuned"])
    assert r.exit_code == 2 and "No such option '--profile'" in r.output
