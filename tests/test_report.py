"""Report rendering from a hand-made store: floors, limits, noise flags, errors."""

import json

from wirebench import counts, model, report, runner
from wirebench.cells import Cell, Plan, PlanEntry
from wirebench.protocol import Metric
from wirebench.store import Store


def add(store, run_id, cell, groups, nbytes, iters=10, error=None):
    key = cell.key
    for rep, g in enumerate(groups):
        outcome = runner.Outcome(
            "ok" if error is None else "error",
            error=error,
            result={"check": [0] * len(g)},
            metrics={
                "time": Metric("time", "ns", "samples", iters, tuple(int(v * iters) for v in g)),
                "bytes": Metric("bytes", "B", "samples", iters, (nbytes,) * len(g)),
            },
            wall_ns=1,
            user_ns=5,
            sys_ns=1,
            max_rss_kb=1000 + rep,
        )
        store.add_process(run_id, key, rep, outcome)
    runner.finish_cell(store, run_id, cell)


def make_run(tmp_path):
    store = Store(tmp_path / "r.db")
    cells = {
        "null": Cell.make(
            "rpc", "eval", "cpp", "null", {"mode": "bytes", "reuse": "reuse", "compression": "none"}
        ),
        "capnp": Cell.make(
            "rpc",
            "eval",
            "cpp",
            "capnp",
            {"mode": "bytes", "reuse": "reuse", "compression": "none"},
        ),
        "noisy": Cell.make(
            "rpc",
            "eval",
            "cpp",
            "protobuf",
            {"mode": "bytes", "reuse": "reuse", "compression": "none"},
        ),
        "broken": Cell.make(
            "rpc",
            "carsales",
            "cpp",
            "capnp",
            {"mode": "object", "reuse": "reuse", "compression": "none"},
        ),
        "memcpy": Cell.make("limit", "memcpy", "cpp", "memcpy", {"block": "1MiB"}),
    }
    plan = Plan("quick", 1, tuple(PlanEntry(c, 10, 2, 1, 2) for c in cells.values()))
    prov = {
        "git": {"revision": "abc123", "dirty": True},
        "host": "h",
        "cpu": "CPU",
        "cpus": 2,
        "kernel": "k",
        "governor": None,
        "drivers": {"cpp": {"versions": {"capnp": "0.9.2"}}},
    }
    run_id = store.create_run("quick", "wirebench run", plan, prov)
    add(store, run_id, cells["null"], [[100, 100], [100, 100]], 1000)
    add(store, run_id, cells["capnp"], [[300, 300], [300, 300]], 1000)
    add(store, run_id, cells["noisy"], [[100, 200], [150, 300]], 800)
    add(store, run_id, cells["broken"], [[1, 1]], 0, error="driver exited with status 1: boom")
    add(store, run_id, cells["memcpy"], [[1000, 1000], [1000, 1000]], 10 * (1 << 20))
    return store, run_id


def test_markdown_report(tmp_path):
    store, run_id = make_run(tmp_path)
    data = report.build(store, run_id)
    md = report.markdown(data)
    assert "git abc123 (dirty)" in md and "cpp: capnp 0.9.2" in md
    assert "## rpc / eval: time per request+response" in md
    capnp_row = next(line for line in md.splitlines() if line.startswith("| cpp/capnp | bytes"))
    assert "300 ns" in capnp_row and "3.00x [3.00-3.00]" in capnp_row
    assert "| 100 B | 333 |" in capnp_row  # 1000 bytes per 10-iteration sample
    # memcpy moves 1 MiB per 1000 ns: 100 bytes take 0.0954 ns
    assert "0.0954 ns" in capnp_row
    assert "ERROR" in md and "process 1: driver exited with status 1: boom" in md
    assert "Cells with spread above 5%:\n- rpc/eval/cpp/protobuf compression=none" in md
    assert "## Machine limit: memcpy bandwidth" in md and "| 1048.58 |" in md  # B/ns = GB/s


def test_json_report(tmp_path):
    store, run_id = make_run(tmp_path)
    data = report.as_json(report.build(store, run_id))
    json.dumps(data)
    by_lib = {c["lib"]: c for c in data["cells"] if c["suite"] == "rpc" and c["case"] == "eval"}
    assert by_lib["capnp"]["metrics"]["time"]["median"] == 300
    assert by_lib["capnp"]["metrics"]["time"]["per"] == "iteration"
    assert by_lib["capnp"]["metrics"]["bytes"]["median"] == 100
    assert by_lib["protobuf"]["metrics"]["time"]["noisy"] is True
    assert by_lib["capnp"]["max_rss_kb"] == 1001


def test_jit_table_sums_up_the_warm_up_the_drivers_report():
    def client(rounds, settled, ms, compiles):
        jit = {"rounds": rounds, "settled": settled, "warmup_ms": ms}
        return {"lang": "java", "role": "client", "jit": {**jit, "sample_compiles": compiles}}

    results = [
        {"client": client(4, True, 1500, [0, 0, 0]), "server": None},
        {"client": client(30, False, 15000, [0, 2, 0]), "server": None},
        {
            "client": {"lang": "cpp", "role": "client"},  # no JIT: not in the table
            "server": {
                "lang": "java",
                "role": "server",
                "jit": {"rounds": 6, "settled": True, "warmup_ms": 2500},
                "serve_compiles": 3,
            },
        },
    ]
    table = counts.jit_table(results)
    assert table.rows == [
        ["java", "client", "2", "1", "17 (30)", "8.2 (15.0)", "1 (2)"],
        ["java", "server", "1", "1", "6 (6)", "2.5 (2.5)", "1 (3)"],
    ]
    assert counts.jit_table([{"client": {"lang": "cpp"}, "server": None}]) is None


def test_a_jit_per_operation_is_a_row_per_operation():
    def op(rounds, settled, compiles):
        return {"rounds": rounds, "settled": settled, "warmup_ms": 200, "sample_compiles": compiles}

    side = {
        "lang": "java",
        "role": "local",
        "jit": {"populate": op(30, False, [0, 0, 0]), "deserialize": op(10, True, [12, 0, 0])},
    }
    table = counts.jit_table([{"client": side, "server": None}])
    assert table.rows == [
        ["java", "client: deserialize", "1", "1", "10 (10)", "0.2 (0.2)", "1 (12)"],
        ["java", "client: populate", "1", "0", "30 (30)", "0.2 (0.2)", "0 (0)"],
    ]


def test_a_run_over_layout_variants_reports_where_its_variance_is():
    import numpy as np

    from wirebench.cells import Cell

    rng = np.random.default_rng(5)
    results = []
    for lang in ("cpp", "rust"):
        cell = Cell.make("rpc", "eval", lang, "capnp", {"mode": "bytes"})
        rounds = {
            r: list(100 * np.exp(rng.normal(0, 0.05) + rng.normal(0, 0.01, 3))) for r in range(24)
        }
        metric = model.MetricData("time", "ns", "samples", 1, rounds)
        layouts = {r: r % 4 for r in range(24)}
        results.append(
            model.CellResult(cell, "ok", None, 1, {"time": metric}, None, None, layouts=layouts)
        )
    per_driver, per_cell = counts.variance_tables(results)
    assert [row[:3] for row in per_driver.rows] == [["cpp", "4", "24"], ["rust", "4", "24"]]
    assert len(per_cell.rows) == 2 and per_cell.rows[0][0].startswith("rpc/eval/cpp/capnp")
    for r in results:
        r.layouts = {}  # one binary: nothing to split
    assert counts.variance_tables(results) == []
