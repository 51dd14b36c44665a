"""docs/results.md is made from published runs and the seed claims, never by hand: the
committed document is what the committed data make, an archived run reports as the
stored one did, and every claim's verdict is computed."""

import json
from pathlib import Path

import numpy as np
import pytest

from wirebench import archive, claims, env, model, publish, report, stats
from wirebench.cells import Cell
from wirebench.store import Store


def test_the_committed_results_are_what_the_committed_data_make():
    """Edit docs/results.md.j2 or docs/claims.toml, or publish a run, then run
    `uv run wirebench results`: this fails until docs/results.md and the charts it shows
    (docs/charts/) are regenerated."""
    text, charts = publish.render_all()
    assert text == publish.OUTPUT.read_text()
    kept = {p.name: p.read_bytes() for p in publish.CHARTS.glob("*.svg")}
    assert kept == charts


def test_every_claim_names_a_published_run_and_its_cells():
    verdicts = publish.Published().claims()
    assert {v.verdict for v in verdicts} <= set(claims.VERDICTS)
    seeds = {v.claim.seed for v in verdicts}
    assert seeds >= {"000", "001", "002", "003", "004"}  # every seed report is judged


def test_an_archived_run_reports_as_the_stored_one(run, tmp_path):
    r = run("run", "--lib", "good", "--mode", "object,bytes", "--iters", "3", "--repeat", "2")
    assert r.exit_code == 0, r.output
    store = Store(tmp_path / "w.db")
    path = tmp_path / "data" / "x.json.gz"
    uid = archive.write(store, 1, path)
    assert archive.write(store, 1, tmp_path / "again.json.gz") == uid
    assert path.read_bytes() == (tmp_path / "again.json.gz").read_bytes()  # deterministic
    copy, run_id = archive.read(path)
    assert copy.run(run_id)["uid"] == uid
    assert report.markdown(report.build(copy, run_id)) == report.markdown(report.build(store, 1))


def test_a_file_that_is_not_an_archive_is_refused_by_name(tmp_path):
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(archive.ArchiveError, match="bad.json.gz: not a wirebench run archive"):
        archive.read(bad)


def test_publishing_refuses_an_unfinished_run_and_a_bad_name(run, tmp_path):
    assert run("run", "--lib", "good", "--iters", "3", "--repeat", "1").exit_code == 0
    store = Store(tmp_path / "w.db")
    with pytest.raises(publish.PublishError, match="letters, digits"):
        publish.publish(store, 1, "../x", tmp_path)
    store.db.execute("UPDATE runs SET status = 'interrupted'")
    with pytest.raises(publish.PublishError, match="interrupted: publish a complete run"):
        publish.publish(store, 1, "x", tmp_path)


def test_publishing_refuses_a_run_of_uncommitted_code_unless_told(run, tmp_path):
    assert run("run", "--lib", "good", "--iters", "3", "--repeat", "1").exit_code == 0
    store = Store(tmp_path / "w.db")
    prov = json.loads(store.run(1)["provenance"])
    prov["git"] = {"revision": "0" * 40, "dirty": True}
    store.db.execute("UPDATE runs SET provenance = ?", (json.dumps(prov),))
    with pytest.raises(publish.PublishError, match="uncommitted changes .*--allow-dirty"):
        publish.publish(store, 1, "x", tmp_path)
    assert not (tmp_path / "x.json.gz").exists()
    path, _ = publish.publish(store, 1, "x", tmp_path, allow_dirty=True)
    assert path.exists()
    pub = publish.Published(tmp_path)
    assert pub.run("x")["drivers"] == "uncommitted changes when it ran"


def test_publishing_records_the_drivers_code_and_republishing_keeps_the_run_before(run, tmp_path):
    """The page says whether a run's drivers are the checkout's from the trees recorded at
    publishing (a clone without the run's history can still say it); publishing the same
    run again does not make it its own `-before`."""
    for _ in range(2):
        assert run("run", "--lib", "good", "--iters", "3", "--repeat", "1").exit_code == 0
    store = Store(tmp_path / "w.db")
    for run_id in (1, 2):
        prov = json.loads(store.run(run_id)["provenance"])
        prov["git"] = {"revision": env.git_state()["revision"], "dirty": False}
        store.db.execute("UPDATE runs SET provenance = ? WHERE id = ?", (json.dumps(prov), run_id))
    publish.publish(store, 1, "x", tmp_path)
    publish.publish(store, 1, "x", tmp_path)
    assert not (tmp_path / "x-before.json.gz").exists()
    publish.publish(store, 2, "x", tmp_path)
    assert archive.uid(tmp_path / "x-before.json.gz") == store.run(1)["uid"]
    pub = publish.Published(tmp_path)
    assert pub.run("x")["drivers"] == "the checkout's"


def test_the_drivers_code_is_named_by_its_trees():
    assert env.code_tree() is not None and env.code_tree().count("+") == 1
    assert env.code_tree("f" * 40) is None


def test_run_claims_runs_exactly_the_cells_the_claims_compare(run, tmp_path):
    path = tmp_path / "claims.toml"
    path.write_text(
        """
[[claim]]
seed = "001"
says = "objects beat bytes"
run = "x"
a = "rpc/carsales/fake/good mode=object compression=none reuse=reuse"
b = "rpc/carsales/fake/good mode=pipe compression=none reuse=reuse placement=one-core"
direction = "<"
"""
    )
    r = run("run", "--claims", str(path), "--iters", "3", "--repeat", "2", "--no-limits")
    assert r.exit_code == 0, r.output
    data = json.loads(run("report", "--json").output)
    assert sorted(c["params"]["mode"] for c in data["cells"]) == ["object", "pipe"]


# -- verdicts, on cells whose process medians are known ----------------------------------


# Each process's distance from its cell's time, by round: two patterns, so that ratios of
# cells with different ones vary from round to round.
WOBBLE = {"p": (-1, 1, 0, 1, -1, 0, 1, -1), "q": (1, 0, -1, -1, 1, 1, 0, -1)}


def _cell(lang: str, ms: float, wobble: float, pattern: str, **params) -> model.CellResult:
    rounds = {r: [ms * (1 + wobble * w)] for r, w in enumerate(WOBBLE[pattern])}
    cell = Cell.make("rpc", "eval", lang, "capnp", {"mode": "bytes", "build": "stock", **params})
    metrics = {"time": model.MetricData("time", "ns", "samples", 1, rounds)}
    return model.CellResult(cell, "ok", None, 1, metrics, None, None)


RESULTS = [
    _cell("rust", 110.0, 0.01, "q"),
    _cell("cpp", 100.0, 0.01, "p"),
    _cell("go", 101, 0.05, "q"),
]
A, B = "rpc/eval/rust/capnp mode=bytes", "rpc/eval/cpp/capnp mode=bytes"


@pytest.mark.parametrize(
    ("kind", "verdict"),
    [
        ({"figure": 1.1}, claims.REPRODUCED),  # our interval inside the figure's band
        ({"figure": 1.16}, claims.UNRESOLVED),  # across its edge
        ({"figure": 1.0}, claims.WRONG_SIZE),  # outside a band that holds 1
        ({"figure": 1.3}, claims.WRONG_SIZE),  # outside, on the same side of 1
        ({"figure": 0.8}, claims.WRONG_DIRECTION),  # outside, on the other side of 1
        ({"direction": ">"}, claims.REPRODUCED),
        ({"direction": "<"}, claims.WRONG_DIRECTION),
    ],
)
def test_a_verdict_is_computed_from_the_interval(kind, verdict):
    v = claims.judge(claims.Claim("001", "x", "r", a=A, b=B, **kind), RESULTS)
    assert v.verdict == verdict
    assert v.ours.startswith("1.10 [") and v.differs == "driver"


def test_a_figures_band_is_one_runs_scatter_and_at_least_its_rounding():
    """A figure from one run stands for every truth one run could have come from: the
    band widens with the pair's scatter per round, and is never narrower than ±5%."""
    quiet = claims.Claim("001", "x", "r", a=A, b=B, figure=1.1)
    low, high = claims.band(quiet, np.array([0.09, 0.1, 0.095, 0.1]))
    assert (low, high) == pytest.approx((1.1 / 1.05, 1.1 * 1.05))
    rounds = np.log([1.0, 1.1, 0.95, 1.08, 1.03, 0.97])
    low, high = claims.band(quiet, rounds)
    half = stats.one_round_range(rounds)
    assert half > np.log(1.05)
    assert (low, high) == pytest.approx((1.1 * np.exp(-half), 1.1 * np.exp(half)))
    # The same 1.10 [1.09-1.11] against a figure of 1.3: contradicted where the pair is
    # steady, not resolved where one run of it scatters as far as 1.3.
    noisy = [
        _cell("rust", 110.0, 0.12, "q"),
        _cell("cpp", 100.0, 0.12, "p"),
    ]
    c = claims.Claim("001", "x", "r", a=A, b=B, figure=1.3)
    assert claims.judge(c, RESULTS).verdict == claims.WRONG_SIZE
    assert claims.judge(c, noisy).verdict in (claims.UNRESOLVED, claims.REPRODUCED)
    assert claims.judge(c, noisy).within
    # However far one round scatters, a figure stands for a factor of 1.25 at most.
    wild = np.log([1.0, 3.0, 0.4, 2.0, 0.5, 1.5])
    assert claims.band(quiet, wild) == pytest.approx((1.1 / 1.25, 1.1 * 1.25))


def test_a_relative_claim_is_a_ratio_of_ratios_paired_in_the_run():
    """(a/b) / (c/d): Rust 1.21x C++ over a pipe against 1.1x in bytes mode is 1.1."""
    pipe = [
        _cell("rust", 121.0, 0.01, "p", mode="pipe"),
        _cell("cpp", 100.0, 0.01, "q", mode="pipe"),
    ]
    c = claims.Claim(
        "001",
        "Rust's relative performance degrades when it does I/O",
        "r",
        a="rpc/eval/rust/capnp mode=pipe",
        b="rpc/eval/cpp/capnp mode=pipe",
        c=A,
        d=B,
        direction=">",
    )
    v = claims.judge(c, RESULTS + pipe)
    assert v.verdict == claims.REPRODUCED
    assert v.ours.startswith("1.10 [") and v.ours != "1.10 [1.10-1.10]"
    assert "against mode" in v.differs
    assert claims.cell_patterns([c]) == [c.a, c.b, c.c, c.d]


def test_a_direction_whose_interval_holds_one_is_not_resolved():
    c = claims.Claim("001", "x", "r", a="rpc/eval/go/capnp mode=bytes", b=B, direction="<")
    assert claims.judge(c, RESULTS).verdict == claims.UNRESOLVED


def test_an_unmeasurable_claim_says_why():
    c = claims.Claim("003", "DMD", "r", unmeasurable="not in Debian")
    assert claims.judge(c, []) == claims.Verdict(c, claims.UNMEASURABLE, "not in Debian")


def test_a_pattern_must_name_exactly_one_cell():
    with pytest.raises(claims.ClaimError, match="names 3 cells"):
        claims.find(RESULTS * 3, "rpc/eval/cpp/capnp")
    with pytest.raises(claims.ClaimError, match="names no cell"):
        claims.find(RESULTS, "rpc/eval/java/capnp mode=bytes")


def test_cells_of_two_build_profiles_are_never_set_side_by_side():
    tuned = _cell("cpp", 90.0, 0.01, "p", build="tuned")
    with pytest.raises(claims.ClaimError, match="different build profiles"):
        claims.comparable(RESULTS[0].cell, tuned.cell)


def test_a_claims_file_that_misstates_a_claim_is_refused(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[[claim]]\nseed = "001"\nsays = "x"\nrun = "r"\na = "rpc/eval/cpp/capnp"\n')
    with pytest.raises(claims.ClaimError, match="needs `a` and one of figure"):
        claims.load(path)
    path.write_text('[[claim]]\nseed = "001"\nsays = "x"\nrun = "r"\nfigure = 1\nbogus = 2\n')
    with pytest.raises(claims.ClaimError, match="unexpected keyword argument 'bogus'"):
        claims.load(path)


def test_the_results_template_refuses_a_run_that_is_not_published(tmp_path):
    with pytest.raises(publish.PublishError, match="no published run 'nope'"):
        publish.Published(tmp_path, Path("docs/claims.toml")).run("nope")


def test_a_long_fuzz_run_is_published_per_language_from_its_file(tmp_path):
    (tmp_path / publish.FUZZ).write_text(
        "# revision=0123456789ab dirty=no host=h seconds=60 started=2026-11-28T18:00Z\n"
        "fuzz-executions\tcpp\trpc_null\t5400\t61.0\n"
        "fuzz-executions\tcpp\tcodec_protobuf\t1213871\t60.2\n"
        "fuzz-executions\tgo\tcodec_msgpack\t250000\t60.0\n"
    )
    text = publish.fuzzing(tmp_path)
    assert "Revision 0123456789ab on h" in text and "each target 60 s" in text
    assert "| cpp | 2 | 5,400 (rpc_null) | 1,213,871 (codec_protobuf) | 1,219,271 |" in text
    assert "| go | 1 | 250,000 (codec_msgpack) |" in text
    assert "1 of 3 targets reached 1M executions." in text


def test_a_fuzz_file_without_its_provenance_or_with_a_stray_line_is_refused(tmp_path):
    with pytest.raises(publish.PublishError, match="does not exist"):
        publish.fuzzing(tmp_path)
    (tmp_path / publish.FUZZ).write_text("fuzz-executions\tcpp\trpc_null\t5400\t61.0\n")
    with pytest.raises(publish.PublishError, match="first line must name the revision"):
        publish.fuzzing(tmp_path)
    (tmp_path / publish.FUZZ).write_text(
        "# revision=a dirty=no host=h seconds=1 started=x\nINFO\tx\ty\t1\t1\n"
    )
    with pytest.raises(publish.PublishError, match="not a fuzz-executions line"):
        publish.fuzzing(tmp_path)
