"""The design of repetition (wirebench/design.py): the rule that chooses samples and sample
lengths, measuring the levels from a stored run, and the default run's plan against its
budget by the committed design's costs."""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import replace

import numpy as np
import pytest

from wirebench import adaptive, design, drivers, orchestrate, paths, runner
from wirebench.cells import Cell, Plan, PlanEntry
from wirebench.protocol import Metric
from wirebench.store import Store

from .conftest import REQUIRE_DRIVERS


def level(driver: str = "cpp", **kw) -> design.Level:
    args = dict(
        cells=3,
        processes=24,
        within=0.05,
        between=0.05,
        layouts=0.0,
        sample_s=0.01,
        shortest_s=0.01,
        process_s=0.1,
        measured_samples=15,
    )
    return design.choose("rpc", driver, **(args | kw))


def test_more_samples_where_a_process_costs_much_and_samples_spread():
    cheap = level(process_s=0.03)
    dear = level(process_s=1.5)
    assert cheap.samples == design.MIN_SAMPLES
    assert dear.samples > cheap.samples
    # Kalibera and Jones's optimum, by hand: sqrt((pi/2) c_p s_w^2 / (c_s s_p^2)).
    assert dear.samples == round(math.sqrt(math.pi / 2 * 1.5 * 0.05**2 / (0.01 * 0.05**2)))


def test_samples_stay_within_bounds():
    assert level(between=0.0001, process_s=100).samples == design.MAX_SAMPLES
    assert level(within=0.0001).samples == design.MIN_SAMPLES


def test_a_sample_is_made_long_enough_to_measure():
    short = level(sample_s=0.0002, shortest_s=0.0001)
    assert short.iters_factor == math.ceil(design.MIN_SAMPLE_S / 0.0001)
    assert level(shortest_s=1e-9).iters_factor == design.MAX_FACTOR
    assert level().iters_factor == 1
    # A process's cost counts its longer samples.
    assert short.process_cost == pytest.approx(0.1 + short.samples * 0.0002 * short.iters_factor)


def _store_run(tmp_path, within: float, between: float, layouts: float) -> tuple[Store, int]:
    """A run of three rpc cells in cpp, 8 processes of 15 samples each over 4 layouts,
    with known spreads (relative standard deviations) at each level."""
    rng = np.random.default_rng(7)
    cells = [
        Cell.make("rpc", case, "cpp", "capnp", {"mode": "bytes", "reuse": "reuse"})
        for case in ("carsales", "catrank", "eval")
    ]
    entries = tuple(PlanEntry(c, 1000, 15, 100, 8) for c in cells)
    plan = Plan("quick", 60.0, entries, layouts={"cpp": 4})
    store = Store(tmp_path / "d.db")
    run_id = store.create_run("quick", "test", plan, {})
    for c in cells:
        effect = rng.normal(0, layouts, 4)
        for rep in range(8):
            centre = 1e7 * math.exp(effect[rep % 4] + rng.normal(0, between))
            samples = centre * np.exp(rng.normal(0, within, 15))
            out = runner.Outcome(
                "ok",
                wall_ns=int(0.1e9 + samples.sum()),
                layout=rep % 4,
                metrics={
                    "time": Metric("time", "ns", "samples", 1000, tuple(int(s) for s in samples))
                },
            )
            store.add_process(run_id, c.key, rep, out)
        store.finish_cell(run_id, c.key, "ok", None)
    return store, run_id


def test_levels_are_measured_from_a_stored_run(tmp_path):
    store, run_id = _store_run(tmp_path, within=0.08, between=0.03, layouts=0.0)
    (lv,) = design.measure(store, run_id)
    assert (lv.suite, lv.driver, lv.cells, lv.processes) == ("rpc", "cpp", 3, 24)
    assert lv.within == pytest.approx(0.08, rel=0.15)
    assert lv.between == pytest.approx(0.03, abs=0.02)
    assert lv.sample_s == pytest.approx(0.01, rel=0.1)
    assert lv.process_s == pytest.approx(0.1, rel=0.2)
    chosen = design.Design("uid", {("rpc", "cpp"): lv})
    again = design.Design.from_json(chosen.to_json())
    assert again.level("rpc", "cpp") == lv
    assert design.table(again)[2].startswith("| rpc | cpp | 3 | 24 |")


def test_a_plan_reads_the_design_only_where_it_has_a_level(tmp_path, monkeypatch):
    lv = level(sample_s=0.0002, shortest_s=0.0002, process_s=2.0)
    path = tmp_path / "design.json"
    design.save(design.Design("uid", {("rpc", "cpp"): lv}), path)
    monkeypatch.setenv("WIREBENCH_DESIGN", str(path))
    rpc = Cell.make("rpc", "eval", "cpp", "capnp", {"mode": "bytes", "reuse": "reuse"})
    rust = Cell.make("rpc", "eval", "rust", "capnp", {"mode": "bytes", "reuse": "reuse"})
    plan = orchestrate.make_plan([rpc, rust], orchestrate.PROFILES["quick"])
    by = {e.cell.lang: e for e in plan.entries}
    assert by["cpp"].samples == lv.samples
    assert by["cpp"].iters == by["rust"].iters * lv.iters_factor
    assert by["rust"].samples == 3
    # --samples and --iters keep theirs; so does the standard profile.
    fixed = orchestrate.make_plan([rpc], orchestrate.PROFILES["quick"], samples=4, iters=50)
    assert (fixed.entries[0].samples, fixed.entries[0].iters) == (4, 50)
    standard = orchestrate.make_plan([rpc], orchestrate.PROFILES["standard"])
    assert standard.entries[0].samples == 3
    # The pilot's estimate by the design's costs, and the warning when it crowds the budget.
    est = design.estimate(design.load(), plan.entries)
    assert est == pytest.approx(6 * lv.process_cost)  # rust: the design's median process
    tight = Plan("quick", 60.0, plan.entries, until=0.05, budget=est)
    _, warning = adaptive.pilot_fits(tight, design.load())
    assert warning and "--budget" in warning
    roomy = Plan("quick", 60.0, plan.entries, until=0.05, budget=10 * est)
    assert adaptive.pilot_fits(roomy, design.load())[1] is None


def test_a_budget_sizes_the_pilot_by_noise_over_the_root_of_cost():
    """Neyman's allocation: a costly, steady process (a JVM's) loses pilot rounds before a
    cheap, noisy one; never below MIN_PILOT; a roomy budget leaves the pilot whole."""
    cheap = level(between=0.3, process_s=0.03)
    dear = level("java", between=0.1, process_s=3.0)
    chosen = design.Design("uid", {("rpc", "cpp"): cheap, ("rpc", "java"): dear})
    cells = [
        Cell.make("rpc", case, lang, "capnp", {"mode": "bytes", "reuse": "reuse"})
        for case in ("carsales", "catrank", "eval")
        for lang in ("cpp", "java")
    ]
    entries = [PlanEntry(c, 10, 3, 1, adaptive.PILOT) for c in cells]
    whole = design.estimate(chosen, entries)
    assert adaptive.size_pilot(entries, chosen, 10 * whole) == tuple(entries)
    java_at_floor = [
        replace(e, reps=adaptive.MIN_PILOT) if e.cell.lang == "java" else e for e in entries
    ]
    budget = design.estimate(chosen, java_at_floor) / adaptive.PILOT_SHARE
    sized = adaptive.size_pilot(entries, chosen, budget)
    reps = {(e.cell.case, e.cell.lang): e.reps for e in sized}
    assert all(reps[c, "cpp"] == adaptive.PILOT for c in ("carsales", "catrank", "eval"))
    assert all(reps[c, "java"] == adaptive.MIN_PILOT for c in ("carsales", "catrank", "eval"))
    assert design.estimate(chosen, sized) <= adaptive.PILOT_SHARE * budget
    # A budget nothing fits: every cell at the floor, and the run is told (pilot_fits).
    floor = adaptive.size_pilot(entries, chosen, whole / 100)
    assert {e.reps for e in floor} == {adaptive.MIN_PILOT}


def _make_bench() -> tuple[list[str], float]:
    """`make bench`'s wirebench arguments and its budget, as the Makefile has them."""
    text = (paths.ROOT / "Makefile").read_text()
    budget = float(re.search(r"^BUDGET \?= (\d+)", text, re.M).group(1))
    line = re.search(r"^bench: build\n\t\$\(WIREBENCH\) (.*)$", text, re.M).group(1)
    return shlex.split(line.replace("$(BUDGET)", str(int(budget)))), budget


@pytest.mark.skipif(
    not REQUIRE_DRIVERS and not all(d.is_built() for d in drivers.DRIVERS.values()),
    reason="the default plan needs every driver built",
)
def test_the_default_runs_pilot_leaves_its_second_stage_room(monkeypatch):
    """A library added to a headline suite grows the pilot: this fails before the default
    run silently outgrows its budget again (issue 35)."""
    monkeypatch.delenv("WIREBENCH_DESIGN")
    chosen = design.load()
    assert chosen is not None, "docs/data/design.json: run `wirebench design`"
    args, budget = _make_bench()
    assert args[0] == "run"
    req = orchestrate.Request(
        filters={},
        profile="quick",
        reps=int(args[args.index("--repeat") + 1]),
        twins=int(args[args.index("--aa") + 1]),
        headline="--headline" in args,
        until=float(args[args.index("--until") + 1]),
        budget=budget,
    )
    plan = orchestrate.plan(req, orchestrate.selected_drivers(req))
    pilot, warning = adaptive.pilot_fits(plan, chosen)
    assert warning is None, warning
    assert pilot <= adaptive.PILOT_SHARE * budget


def test_the_methodology_shows_the_committed_design():
    """`wirebench design` writes both; edit neither by hand."""
    chosen = design.load(design.DESIGN_FILE)
    if chosen is None:
        pytest.fail("docs/data/design.json: run `wirebench design`")
    text = design.METHODOLOGY.read_text()
    assert design.render_into(text, chosen) == text


def test_wirebench_design_measures_and_writes_a_design(run, tmp_path):
    """The dimensioning run end to end with the fake driver: its headline cells at the
    dimensioning counts, then the design chosen from them (`--run` chooses again)."""
    out = tmp_path / "design.json"
    r = run("design", "--suite", "codec", "--out", str(out))
    assert r.exit_code == 0, r.output
    chosen = design.load(out)
    assert chosen is not None and chosen.levels
    store = Store(run.db)
    plan = store.plan(1)
    assert {e.samples for e in plan.entries} == {design.DIM_SAMPLES}
    assert {e.reps for e in plan.entries} == {design.DIM_REPS}
    assert all(v.samples >= design.MIN_SAMPLES for v in chosen.levels.values())
    again = run("design", "--run", "1", "--out", str(tmp_path / "again.json"))
    assert again.exit_code == 0, again.output
    assert design.load(tmp_path / "again.json") == chosen
