import dataclasses

import pytest

from wirebench import matrix
from wirebench.suites import rpc

LISTED = {
    "cpp": [
        {
            "suite": "rpc",
            "case": case,
            "lib": lib,
            "params": {"mode": mode, "compression": comp, "reuse": reuse},
        }
        for case in ("carsales", "catrank", "eval")
        for lib in ("capnp", "protobuf", "null")
        for mode in ("object", "bytes", "pipe", "pipe-async")
        for comp in (("none", "packed") if lib == "capnp" else ("none",))
        for reuse in ("reuse", "no-reuse")
    ]
    + [
        {"suite": "limit", "case": "memcpy", "lib": "memcpy", "params": {"block": b}}
        for b in ("16KiB", "1MiB", "64MiB")
    ],
}


def expand(**filters):
    parsed = {k: matrix.parse_filter(k, v) for k, v in filters.items()}
    return matrix.expand(LISTED, parsed)


def test_everything_by_default_with_limits():
    cells = expand()
    rpc = [c for c in cells if c.suite == "rpc"]
    assert len(rpc) == 3 * (16 + 8 + 8)
    assert len([c for c in cells if c.suite == "limit"]) == 3
    pipes = [c for c in rpc if c.param["mode"] in ("pipe", "pipe-async")]
    assert len(pipes) == 3 * (8 + 4 + 4)  # capnp 2 modes x 2 compressions x 2 reuse, ...
    assert all(c.is_pipe and c.param["placement"] == "one-core" for c in pipes)
    assert all(c.server_lang == "cpp" for c in pipes)
    assert len({c.key for c in cells}) == len(cells)


def test_filters_combine():
    cells = expand(case="eval", lib="capnp", mode="bytes,pipe", compression="packed")
    rpc = [c for c in cells if c.suite == "rpc"]
    assert {(c.param["mode"], c.param["reuse"]) for c in rpc} == {
        ("bytes", "reuse"),
        ("bytes", "no-reuse"),
        ("pipe", "reuse"),
        ("pipe", "no-reuse"),
    }
    assert all(c.case == "eval" and c.param["compression"] == "packed" for c in rpc)


def test_placements_multiply_pipe_cells_only():
    cells = expand(case="eval", lib="null", reuse="reuse", placement="one-core,two-cores")
    modes = sorted(
        (c.param["mode"], c.param.get("placement", "")) for c in cells if c.suite == "rpc"
    )
    assert modes == [
        ("bytes", ""),
        ("object", ""),
        ("pipe", "one-core"),
        ("pipe", "two-cores"),
        ("pipe-async", "one-core"),
        ("pipe-async", "two-cores"),
    ]


def test_limits_can_be_left_out_or_chosen_alone():
    parsed = {k: None for k in matrix.FILTER_NAMES}
    without = matrix.expand(LISTED, parsed, include_limits=False)
    assert without and all(c.suite == "rpc" for c in without)
    only = expand(suite="limit", block="1MiB")
    assert [c.key for c in only] == ["limit/memcpy/cpp/memcpy block=1MiB build=stock"]
    with_rpc = expand(suite="rpc", case="eval", lib="null", mode="object")
    assert {c.suite for c in with_rpc} == {"rpc", "limit"}  # limits come with every run


def test_null_sorts_first_as_the_floor():
    cells = [c for c in expand(case="carsales", mode="object", reuse="reuse") if c.suite == "rpc"]
    assert [c.lib for c in cells][0] == "null"


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("mode", "pipes", "unknown mode 'pipes'; known: object, bytes, pipe, pipe-async"),
        ("case", "carsale", "unknown case 'carsale'"),
        ("suite", "bogus", "unknown suite 'bogus'; known: rpc, codec, queue, readbytes, limit"),
        ("block", "2MiB", "unknown block '2MiB'; known: 16KiB, 1MiB, 64MiB"),
    ],
)
def test_unknown_values_are_named(name, value, message):
    with pytest.raises(matrix.MatrixError, match=message):
        matrix.parse_filter(name, value)


def test_unknown_lib_and_empty_selection():
    with pytest.raises(matrix.MatrixError, match="unknown lib 'prost'"):
        expand(lib="prost")
    with pytest.raises(matrix.MatrixError, match="select no cell"):
        expand(lib="null", compression="packed")


def test_a_filter_on_one_suites_parameter_leaves_the_other_suites_alone():
    cells = expand(block="1MiB", case="eval", lib="null", mode="object")
    assert [c.key for c in cells] == [
        "rpc/eval/cpp/null build=stock compression=none mode=object reuse=reuse",
        "rpc/eval/cpp/null build=stock compression=none mode=object reuse=no-reuse",
        "limit/memcpy/cpp/memcpy block=1MiB build=stock",
    ]


def test_a_second_toolchain_of_a_language_is_a_cell_of_its_own():
    listed = {"cpp": LISTED["cpp"], "cpp-clang++": LISTED["cpp"]}
    identities = {"cpp": ("cpp", None), "cpp-clang++": ("cpp", "clang++")}
    parsed = {k: None for k in matrix.FILTER_NAMES}
    parsed.update(case=frozenset({"eval"}), lib=frozenset({"capnp"}), mode=frozenset({"bytes"}))
    cells = matrix.expand(listed, parsed, include_limits=False, identities=identities)
    impls = sorted({(c.impl, c.driver_id) for c in cells})
    assert impls == [("cpp/capnp", "cpp"), ("cpp@clang++/capnp", "cpp-clang++")]


def test_cell_json_round_trip_and_key():
    cell = expand(case="eval", lib="capnp", mode="pipe", compression="packed", reuse="reuse")[0]
    assert matrix.Cell.from_json(cell.to_json()) == cell
    assert cell.key == (
        "rpc/eval/cpp/capnp build=stock compression=packed mode=pipe placement=one-core reuse=reuse"
    )


TWO = {"cpp": LISTED["cpp"], "rust": LISTED["cpp"]}


def pipes(cells):
    return {(c.lang, c.server_lang) for c in cells if c.is_pipe}


@pytest.fixture
def pairs_of(monkeypatch):
    """A profile `test` whose cross-language pairs are the filter given."""

    def set_filter(pair_filter):
        monkeypatch.setitem(rpc.PAIRS, "test", pair_filter)
        return "test"

    return set_filter


def test_profile_pairs_add_both_directions_for_the_pair_libraries(pairs_of):
    parsed = {k: None for k in matrix.FILTER_NAMES}
    cells = matrix.expand(TWO, parsed, profile=pairs_of({"lib": ("capnp",)}))
    assert pipes([c for c in cells if c.lib == "capnp"]) == {
        ("cpp", "cpp"),
        ("rust", "rust"),
        ("cpp", "rust"),
        ("rust", "cpp"),
    }
    assert pipes([c for c in cells if c.lib == "protobuf"]) == {("cpp", "cpp"), ("rust", "rust")}
    cross = next(c for c in cells if c.lang == "rust" and c.server_lang == "cpp")
    assert cross.impl == "rust:cpp/capnp" and cross.key.startswith("rpc/carsales/rust:cpp/capnp")


def test_profile_pairs_only_for_the_parameters_named(pairs_of):
    parsed = {k: None for k in matrix.FILTER_NAMES}
    only = {"lib": ("capnp",), "mode": ("pipe",), "reuse": ("reuse",)}
    cells = matrix.expand(TWO, parsed, profile=pairs_of(only))
    cross = [c for c in cells if c.server_lang not in (None, c.lang)]
    # 3 cases x 2 compressions x 2 directions
    assert len(cross) == 12
    assert {(c.lib, c.param["mode"], c.param["reuse"]) for c in cross} == {
        ("capnp", "pipe", "reuse")
    }
    assert len([c for c in cells if c.lang == "rust" and c.server_lang == "rust"]) == 48


def test_pair_filter_selects_exactly_those_pipe_cells():
    parsed = {k: None for k in matrix.FILTER_NAMES}
    parsed["lib"] = frozenset({"protobuf"})
    cells = matrix.expand(TWO, parsed, pairs=matrix.parse_pairs("rust:cpp"), include_limits=False)
    assert cells and pipes(cells) == {("rust", "cpp")}
    assert all(c.is_pipe for c in cells)


def test_the_quick_profile_pairs_one_pipe_cell_per_case_and_wire_format():
    parsed = {k: None for k in matrix.FILTER_NAMES}
    cross = [c for c in matrix.expand(TWO, parsed, profile="quick") if c.lang != c.server_lang]
    cross = [c for c in cross if c.server_lang]
    assert len(cross) == 3 * 2 * 2  # cases x (capnp, protobuf) x directions
    assert {(c.lib, c.param["mode"], c.param["compression"]) for c in cross} == {
        ("capnp", "pipe", "none"),
        ("protobuf", "pipe", "none"),
    }


def test_a_server_must_list_the_cell(pairs_of):
    only_null = [e for e in LISTED["cpp"] if e["lib"] == "null"]
    parsed = {k: None for k in matrix.FILTER_NAMES}
    cells = matrix.expand(
        {"cpp": LISTED["cpp"], "go": only_null}, parsed, profile=pairs_of({"lib": ("capnp",)})
    )
    capnp = [c for c in cells if c.lib == "capnp"]
    assert capnp and ("cpp", "go") not in pipes(capnp)


@pytest.mark.parametrize("text", ["rust", "rust:", ":cpp", "a:b:c"])
def test_malformed_pairs_are_named(text):
    with pytest.raises(matrix.MatrixError, match="CLIENT:SERVER"):
        matrix.parse_pairs(text)


def test_unknown_pair_language():
    parsed = {k: None for k in matrix.FILTER_NAMES}
    with pytest.raises(matrix.MatrixError, match="unknown language in --pair: java"):
        matrix.expand(TWO, parsed, pairs=matrix.parse_pairs("java:cpp"))


def test_the_cells_a_ratio_compares_run_back_to_back_and_take_turns_going_first():
    from pathlib import Path

    from wirebench.cells import Plan, PlanEntry
    from wirebench.orchestrate import twins

    cells = [
        matrix.Cell.make("rpc", case, lang, "capnp", {"mode": "bytes", "build": "stock"})
        for case in ("carsales", "eval")
        for lang in ("cpp", "rust")
    ]
    cells += twins(cells, 1)  # an A/A twin runs beside its cell too
    plan = Plan("quick", 60, tuple(PlanEntry(c, 10, 1, 1, 2) for c in sorted(cells)))
    exe = {(lang, "stock", 0): Path(lang) for lang in ("cpp", "rust")}
    order = [
        (rep, t.cell.case, t.cell.lang, "twin" in t.cell.param) for rep, t, _ in plan.tasks(exe)
    ]
    rounds = [[o[1:] for o in order if o[0] == rep] for rep in (0, 1)]
    cases = [case for case, _, _ in rounds[0]]
    assert cases == sorted(cases)  # each case's cells together
    firsts = [next(o for o in r if o[0] == "eval") for r in rounds]
    assert firsts[0] != firsts[1]  # the first of a group changes from round to round


def test_round_r_runs_layout_variant_r_mod_k_of_each_driver():
    from pathlib import Path

    from wirebench.cells import Plan, PlanEntry

    cells = [
        matrix.Cell.make("rpc", "eval", lang, "capnp", {"mode": "bytes", "build": "stock"})
        for lang in ("cpp", "rust")
    ]
    pipe = matrix.Cell.make("rpc", "eval", "rust", "capnp", {"mode": "pipe"}, server_lang="cpp")
    entries = tuple(PlanEntry(c, 10, 1, 1, 5) for c in [*cells, pipe])
    plan = Plan("quick", 60, entries, layouts={"cpp": 3, "rust": 2})
    exe = {(n, "stock", k): Path(f"{n}.{k}") for n, _, k in plan.variants}
    assert sorted(exe) == [("cpp", "stock", k) for k in range(3)] + [
        ("rust", "stock", k) for k in range(2)
    ]
    for rep, t, _ in plan.tasks(exe):
        client = t.cell.lang
        assert t.layout == rep % {"cpp": 3, "rust": 2}[client]
        assert t.client == Path(f"{client}.{t.layout}")
        if t.cell.is_pipe:
            assert t.server == Path(f"cpp.{rep % 3}") and t.server_layout == rep % 3
    assert Plan.from_json(plan.to_json()).layouts == {"cpp": 3, "rust": 2}


def test_the_headline_run_keeps_the_stratified_few():
    from wirebench.orchestrate import headline

    listed = {
        "cpp": LISTED["cpp"]
        + [
            {"suite": "codec", "case": "log", "lib": "capnp", "format": "capnp", "params": p}
            for p in (
                {
                    "buffer": "reused",
                    "strings": "owned",
                    "validation": "lazy",
                    "packing": "unpacked",
                },
                {
                    "buffer": "fresh",
                    "strings": "owned",
                    "validation": "lazy",
                    "packing": "unpacked",
                },
                {"buffer": "reused", "strings": "owned", "validation": "lazy", "packing": "packed"},
            )
        ]
    }
    parsed = {k: None for k in matrix.FILTER_NAMES}
    cells = headline(matrix.expand(listed, parsed), listed)
    rpc = {(c.case, c.lib, c.param["mode"]) for c in cells if c.suite == "rpc"}
    assert rpc == {
        (case, lib, mode)
        for case in ("carsales", "catrank", "eval")
        for lib in ("capnp", "protobuf", "null")
        for mode in ("bytes", "pipe")
        if mode != "pipe" or (case, lib) == ("carsales", "capnp")
    }
    assert all(
        c.param["reuse"] == "reuse" and c.param["compression"] == "none"
        for c in cells
        if c.suite == "rpc"
    )
    codec = [c.param["buffer"] for c in cells if c.suite == "codec"]
    assert codec == ["reused"]  # the library's default (first listed) cell only
    assert len([c for c in cells if c.suite == "limit"]) == 3


def test_native_drivers_run_a_layout_of_their_own_each_round_and_the_jvm_none():
    from wirebench import cells, orchestrate

    names = ["cpp", "cpp-clang++", "go", "java", "rust", "d-gdc"]
    default = orchestrate.Request(filters={}, profile="quick")
    assert orchestrate.layouts(default, names, rounds=6) == {n: 6 for n in names if n != "java"}
    many = orchestrate.layouts(default, names, rounds=100)
    assert set(many.values()) == {cells.MAX_LAYOUTS}
    # A second stage's rounds get variants of their own too.
    cell = cells.Cell.make("rpc", "eval", "cpp", "capnp", {"mode": "bytes"})
    plan = cells.Plan("quick", 1.0, (cells.PlanEntry(cell, 1, 1, 1, 14),), layouts={"cpp": 6})
    assert plan.with_fresh_layouts() == plan
    fresh = dataclasses.replace(plan, fresh_layouts=True)
    assert fresh.with_fresh_layouts().layouts == {"cpp": 14}
    one = orchestrate.Request(filters={}, profile="quick", layouts=1)
    assert orchestrate.layouts(one, names) == {}
    three = orchestrate.Request(filters={}, profile="quick", layouts=3)
    assert set(orchestrate.layouts(three, names).values()) == {3}
    assert "java" not in orchestrate.layouts(three, names)
