"""`wirebench compare` and `wirebench export` over hand-made stores: verdicts, exit codes,
cells on one side only, failed cells, and every export format."""

import csv
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner

from wirebench import cli, compare, runner
from wirebench.cells import Cell, Plan, PlanEntry
from wirebench.protocol import Metric
from wirebench.store import Store

PARAMS = {"mode": "bytes", "reuse": "reuse", "compression": "none", "build": "stock"}
PROV = {"git": {"revision": "abc123", "dirty": False}, "host": "h", "cpu": "CPU", "cpus": 2}


def cell(lang="cpp", lib="capnp", case="eval"):
    return Cell.make("rpc", case, lang, lib, PARAMS)


def add_run(
    store,
    cells: dict[Cell, float | str],
    reps=5,
    seed=1,
    instructions=None,
    spread=0.0,
    layouts=None,
    layout_spread=0.0,
) -> int:
    """A run of the given cells: each with `reps` processes of 3 samples near its time (ns
    per iteration, ±0.5%; each process off by a factor of sd `spread`), or failed with
    the given error. `layouts`: K per driver (Plan.layouts), each variant of a cell off
    by a factor of sd `layout_spread`."""
    rng = np.random.default_rng(seed)
    plan = Plan(
        "quick", 1, tuple(PlanEntry(c, 10, 3, 1, reps) for c in cells), layouts=layouts or {}
    )
    run_id = store.create_run("quick", "wirebench run", plan, PROV)
    for c, t in cells.items():
        by_layout = 1 + rng.normal(0, layout_spread, reps) if layout_spread else np.ones(reps)
        for rep in range(reps):
            failed = isinstance(t, str)
            layout = plan.layout(c.driver_id, rep)
            t_process = 0 if failed else t * by_layout[layout] * (1 + rng.normal(0, spread))
            values = (
                ()
                if failed
                else tuple(int(t_process * 10 * (1 + rng.normal(0, 0.005))) for _ in "abc")
            )
            metrics = {"time": Metric("time", "ns", "samples", 10, values)}
            if instructions:
                metrics["instructions"] = Metric(
                    "instructions", "instr", "samples", 10, (instructions[c] * 10,)
                )
            outcome = runner.Outcome(
                "error" if failed else "ok",
                error=t if failed else None,
                result={},
                metrics={} if failed else metrics,
                wall_ns=1,
                user_ns=1,
                sys_ns=1,
                max_rss_kb=1,
                layout=layout,
            )
            store.add_process(run_id, c.key, rep, outcome)
        runner.finish_cell(store, run_id, c)
    store.set_run_status(run_id, "complete")
    return run_id


@pytest.fixture
def db(tmp_path):
    return tmp_path / "r.db"


def invoke(db, *args):
    return CliRunner().invoke(cli.main, [*args, "--db", str(db)])


def test_a_rerun_of_the_same_work_shows_no_difference(db):
    store = Store(db)
    cells = {
        cell(lib=lib, case=case): t
        for lib, t in (("capnp", 300), ("protobuf", 500))
        for case in ("eval", "carsales")
    }
    a, b = add_run(store, cells, seed=1), add_run(store, cells, seed=2)
    result = compare.compare(compare.run_side(store, a), compare.run_side(store, b))
    assert {r.verdict for r in result.rows} == {compare.SAME} and len(result.rows) == 4
    assert all(not r.ratio.paired for r in result.rows)  # two runs: unpaired
    r = invoke(db, "compare", str(a), str(b))
    assert r.exit_code == 0, r.output
    assert "**0 slower, 0 faster, 4 no difference**" in r.output
    assert "<details><summary>No difference (4)</summary>" in r.output


def test_a_slower_cell_is_caught_and_fails_the_job(db):
    store = Store(db)
    base = {cell(lib="capnp"): 300, cell(lib="protobuf"): 500}
    a = add_run(store, base)
    b = add_run(store, {cell(lib="capnp"): 390, cell(lib="protobuf"): 500}, seed=2)
    r = invoke(db, "compare", str(a), str(b))
    assert r.exit_code == 1, r.output
    assert "**1 slower, 0 faster, 1 no difference**" in r.output
    slower = r.output.split("### Slower (1)")[1].split("<details>")[0]
    assert "rpc/eval/cpp/capnp" in slower and "| 1.29" in slower
    assert invoke(db, "compare", str(a), str(b), "--fail-on", "never").exit_code == 0
    # The other way round it is faster: no regression, unless any difference fails.
    assert invoke(db, "compare", str(b), str(a)).exit_code == 0
    assert invoke(db, "compare", str(b), str(a), "--fail-on", "any").exit_code == 1
    data = json.loads(invoke(db, "compare", str(a), str(b), "--json").output)
    assert data["summary"] == {"slower": 1, "faster": 0, "no difference": 1}
    row = next(x for x in data["rows"] if x["verdict"] == "slower")
    assert row["ratio"] == pytest.approx(1.3, rel=0.02) and row["ci95"][0] > 1
    assert row["p_value"] < 0.05 and row["paired"] is False


def test_many_noisy_cells_measured_twice_show_no_difference(db):
    """Processes that differ by 8%, 60 cells: at p < 0.05 each, some would be called
    different by chance; adjusted for the many cells, none is."""
    store = Store(db)
    cells = {cell(lib=f"lib{i}"): 100 + 10 * i for i in range(60)}
    a, b = add_run(store, cells, spread=0.08), add_run(store, cells, seed=2, spread=0.08)
    result = compare.compare(compare.run_side(store, a), compare.run_side(store, b), 0.0)
    assert sum(r.p_value < 0.05 for r in result.rows) >= 1  # what an unadjusted test says
    assert {r.verdict for r in result.rows} == {compare.SAME}


def test_a_run_that_only_counted_instructions_is_judged_on_the_count(db):
    store = Store(db)
    c, d = cell(lib="capnp"), cell(lib="protobuf")
    a = add_run(store, {c: 1000, d: 2000}, reps=1, instructions={c: 1000, d: 2000})
    b = add_run(store, {c: 1000, d: 2000}, reps=1, seed=2, instructions={c: 1000, d: 2300})
    for run_id in (a, b):  # keep the counts only, as `--measure instructions` stores them
        store.db.execute("DELETE FROM metrics WHERE run_id = ? AND name = 'time'", (run_id,))
    data = json.loads(invoke(db, "compare", str(a), str(b), "--json").output)
    verdicts = {r["cell"].split("/")[3].split()[0]: r["verdict"] for r in data["rows"]}
    assert verdicts == {"capnp": "no difference", "protobuf": "slower"}
    assert all(r["metric"] == "instructions" and r["p_value"] is None for r in data["rows"])


def test_a_run_that_moved_as_a_whole_is_one_verdict_and_its_cells_are_read_against_it(db):
    """Between two runs the machine drifts: every cell 8% slower is the run's shift, not
    twelve slower cells; a cell 60% slower stands out from it. A shift beyond the threshold
    (everything 30% slower) is the verdict of the run, and fails the job."""
    store = Store(db)
    cells = {cell(lib=f"lib{i}"): 100 + 10 * i for i in range(12)}
    a = add_run(store, cells, spread=0.02)
    drift = {c: t * 1.08 for c, t in cells.items()} | {cell(lib="lib3"): 130 * 1.6}
    b = add_run(store, drift, seed=2, spread=0.02)
    r = invoke(db, "compare", str(a), str(b), "--json")
    data = json.loads(r.output)
    assert data["shift"]["verdict"] == "no difference"
    assert data["shift"]["ratio"] == pytest.approx(1.08, rel=0.02)
    assert data["summary"] == {"slower": 1, "faster": 0, "no difference": 11}
    (slow,) = [x for x in data["rows"] if x["verdict"] == "slower"]
    assert "/lib3 " in slow["cell"] and slow["relative"] == pytest.approx(1.6 / 1.08, rel=0.03)
    assert r.exit_code == 1
    everything = add_run(store, {c: t * 1.3 for c, t in cells.items()}, seed=3, spread=0.02)
    r = invoke(db, "compare", str(a), str(everything))
    assert r.exit_code == 1
    assert "**The whole run: B/A 1.30" in r.output and "], slower**" in r.output
    assert "**0 slower, 0 faster, 12 no difference**" in r.output


def test_the_threshold_sets_what_counts(db):
    store = Store(db)
    a = add_run(store, {cell(): 300})
    b = add_run(store, {cell(): 315}, seed=2)  # 5% slower, clearly outside the noise
    assert json.loads(invoke(db, "compare", "1", "2", "--json").output)["summary"]["slower"] == 0
    r = invoke(db, "compare", str(a), str(b), "--threshold", "0.02", "--json")
    assert r.exit_code == 1 and json.loads(r.output)["summary"]["slower"] == 1


def test_cells_on_one_side_and_failed_cells_are_listed(db):
    store = Store(db)
    a = add_run(store, {cell(lib="capnp"): 300, cell(lib="null"): 50, cell(lib="protobuf"): 500})
    b = add_run(
        store,
        {
            cell(lib="capnp"): 300,
            cell(lib="protobuf"): "driver exited with status 1: boom",
            cell(lang="rust"): 280,
        },
        seed=2,
    )
    r = invoke(db, "compare", str(a), str(b))
    # A cell that had a number and lost it fails the job like a slower one.
    assert r.exit_code == 1, r.output
    assert "### Only in A (1)\n\n- rpc/eval/cpp/null" in r.output
    assert "### Only in B (1)\n\n- rpc/eval/rust/capnp" in r.output
    assert "(in B): process 1: driver exited with status 1: boom" in r.output


def test_two_drivers_within_one_run_are_paired(db):
    store = Store(db)
    run_id = add_run(store, {cell(lang="cpp"): 300, cell(lang="rust"): 420, cell(lang="go"): 310})
    r = invoke(db, "compare", str(run_id), "--between", "cpp:rust", "--json")
    assert r.exit_code == 1
    (row,) = json.loads(r.output)["rows"]
    assert row["paired"] is True and row["verdict"] == "slower"
    assert row["ratio"] == pytest.approx(1.4, rel=0.02)
    r = invoke(db, "compare", str(run_id), "--between", "cpp:java")
    assert r.exit_code == 2 and "--between takes two drivers (cpp, go, rust)" in r.output


def test_rounds_of_one_layout_variant_count_once_and_the_line_says_what_the_verdict_calls(db):
    """Twelve rounds over three layout variants of each driver: a cell's interval rests on
    three layouts (what the report's model labels each round with), not twelve rounds.
    The comparison says what its verdict can call: a change of one cell alone, beyond
    the threshold, at the p that q < alpha over its comparisons asks."""
    from wirebench import stats

    store = Store(db)
    cells = {
        cell(lang=lang, lib=lib): t
        for lang in ("cpp", "rust")
        for lib, t in (("capnp", 300), ("protobuf", 500))
    }
    run_id = add_run(
        store, cells, reps=12, spread=0.01, layouts={"cpp": 3, "rust": 3}, layout_spread=0.05
    )
    a, b = compare.within_sides(store, run_id, "cpp", "rust")
    result = compare.compare(a, b, threshold=0.02)
    assert len(result.rows) == 2
    for row in result.rows:
        key = next(k for k, r in a.results.items() if r.cell.key == row.cell)
        ma, mb = a.results[key].metric("time"), b.results[key].metric("time")
        assert ma.layouts[4] == (("cpp", "stock", 1),) and mb.layouts[4] == (("rust", "stock", 1),)
        log = stats.process_log_ratio(mb.rounds, ma.rounds, True, layouts=(mb.layouts, ma.layouts))
        assert log.df == 2  # three clusters
        assert (row.ratio.low, row.ratio.high) == pytest.approx(
            (log.ratio()[0].low, log.ratio()[0].high)
        )
        assert row.detectable == pytest.approx(stats.detectable(log, 0.0, 0.8, 0.02, 0.05, 2))
    text = compare.markdown(result)
    assert (
        "The smallest change the verdict calls in a cell with 80% power (that cell alone "
        "changed: beyond ±2%, and q < 0.05 over 2 comparisons, which asks p < 0.025 of it)"
    ) in text


def test_instruction_counts_are_compared_beside_the_time(db):
    store = Store(db)
    c = cell()
    a = add_run(store, {c: 300}, instructions={c: 1000})
    b = add_run(store, {c: 300}, seed=2, instructions={c: 1250})
    data = json.loads(invoke(db, "compare", str(a), str(b), "--json").output)
    (row,) = data["rows"]
    assert row["metric"] == "time" and row["verdict"] == "no difference"
    assert row["instructions_ratio"] == pytest.approx(1.25)
    assert "| instr B/A |" in invoke(db, "compare", str(a), str(b)).output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("1",), "compare takes two runs (BASE RUN), or one run and --between A:B"),
        (("1", "2", "3"), "compare takes two runs"),
        (("1", "9"), "no run 9"),
        (("1", "--between", "cpp"), "--between takes A:B"),
    ],
)
def test_bad_compare_requests_are_named(db, args, message):
    add_run(Store(db), {cell(): 300})
    add_run(Store(db), {cell(): 300}, seed=2)
    r = invoke(db, "compare", *args)
    assert r.exit_code == 2 and message in r.output


# -- export ------------------------------------------------------------------------------------


def export_run(db, reps=6):
    store = Store(db)
    return add_run(store, {cell(lib="capnp"): 300, cell(lib="protobuf"): "boom"}, reps=reps)


def test_export_json_has_every_metric_with_interval_and_unit(db):
    run_id = export_run(db)
    r = invoke(db, "export", "--format", "json", str(run_id))
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    by_lib = {c["lib"]: c for c in data["cells"]}
    t = by_lib["capnp"]["metrics"]["time"]
    assert t["unit"] == "ns" and t["per"] == "iteration" and t["ci95"][0] <= t["median"]
    assert by_lib["protobuf"]["status"] == "error" and "boom" in by_lib["protobuf"]["error"]
    assert data["provenance"]["host"] == "h" and data["run"]["id"] == run_id


def test_export_csv_has_a_row_per_metric_and_keeps_failed_cells(db, tmp_path):
    export_run(db)
    out = tmp_path / "run.csv"
    r = invoke(db, "export", "--format", "csv", "-o", str(out))  # the latest run
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    ok = next(x for x in rows if x["lib"] == "capnp")
    assert ok["metric"] == "time" and ok["unit"] == "ns" and ok["statistic"] == "median"
    assert float(ok["ci95_low"]) <= float(ok["value"]) <= float(ok["ci95_high"])
    assert ok["param.mode"] == "bytes" and ok["processes"] == "6"
    failed = next(x for x in rows if x["lib"] == "protobuf")
    assert failed["status"] == "error" and "boom" in failed["error"] and failed["value"] == ""


def test_export_of_too_few_processes_has_no_interval_rather_than_a_narrow_one(db):
    export_run(db, reps=5)
    data = json.loads(invoke(db, "export", "--format", "json").output)
    t = next(c for c in data["cells"] if c["lib"] == "capnp")["metrics"]["time"]
    assert t["ci95"] is None and t["processes"] == 5 and t["median"] > 0
    bmf = json.loads(
        CliRunner().invoke(cli.main, ["export", "--format", "bmf", "--db", str(db)]).stdout
    )
    assert set(bmf[cell(lib="capnp").key]["latency"]) == {"value"}


def test_export_bmf_carries_the_interval_and_names_what_it_leaves_out(db):
    export_run(db)
    r = CliRunner().invoke(cli.main, ["export", "--format", "bmf", "--db", str(db)])
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    (name,) = data
    assert name == cell(lib="capnp").key
    latency = data[name]["latency"]
    assert latency["lower_value"] <= latency["value"] <= latency["upper_value"]
    assert latency["value"] == pytest.approx(300, rel=0.02)
    assert "1 failed or unfinished cells left out: rpc/eval/cpp/protobuf" in r.stderr


def test_export_of_a_missing_run_is_an_error(db):
    export_run(db)
    r = invoke(db, "export", "7")
    assert r.exit_code == 2 and "no run 7" in r.output


def test_a_comparison_in_one_table_says_what_it_called_and_could_see(db):
    store = Store(db)
    a = add_run(store, {cell(lib="capnp"): 300, cell(lib="protobuf"): 500})
    b = add_run(store, {cell(lib="capnp"): 390, cell(lib="protobuf"): 500}, seed=2)
    result = compare.compare(compare.run_side(store, a), compare.run_side(store, b))
    table = compare.summary(result, "mode").splitlines()
    assert table[0].startswith("| mode | comparisons | slower | faster | no difference |")
    # mode, comparisons, slower, faster, no difference, median B/A, called, can call
    row = [c.strip() for c in table[2].strip("|").split("|")]
    assert row[:5] == [PARAMS["mode"], "2", "1", "0", "1"]
    assert row[6].startswith("1.2") and row[7].startswith("±")
