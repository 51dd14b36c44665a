"""The harness's own decoder, fuzzed: a driver's JSON result, mutated at random, is judged
ok or refused with a ResultError that names the problem; it never raises anything else
(which would stop a run) and never passes with a wrong answer or an unverified claim."""

import copy
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wirebench import drivers, orchestrate, runner
from wirebench.protocol import ResultError
from wirebench.store import Store

from .conftest import FAKE_DRIVER, _clear_caches

# One cell of every suite the fake driver runs (its `good` behaviour), and a pipe cell.
CELLS = [
    ("rpc", "--lib", "good", "--mode", "object"),
    ("rpc", "--lib", "good", "--mode", "pipe"),
    ("codec", "--lib", "null", "--case", "log"),
    ("codec", "--lib", "jackson", "--case", "logs"),
    ("queue", "--lib", "wbq", "--case", "single", "--iters", "100"),
    ("queue", "--lib", "null", "--case", "bulk", "--iters", "100"),
    ("readbytes", "--lib", "stdio", "--case", "varint"),
    ("limit", "--lib", "memcpy"),
]
SHAPES = (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError)


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    """(task, client result, server result) of one verified process of each cell."""
    from click.testing import CliRunner

    from wirebench import cli

    db = tmp_path_factory.mktemp("hostile") / "w.db"
    out = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(drivers, "DRIVERS", {"fake": FAKE_DRIVER})
        _clear_caches()
        for suite, *filters in CELLS:
            args = ["run", "--suite", suite, *filters, "--repeat", "1", "--samples", "2"]
            args += ["--no-report", "--db", str(db)]
            if suite != "limit":
                args.append("--no-limits")
            r = CliRunner().invoke(cli.main, args)
            assert r.exit_code == 0, r.output
            store = Store(db)
            run = store.run()
            plan = store.plan(run["id"])
            for _, task, _ in plan.tasks(orchestrate.executables(plan)):
                (proc,) = store.processes(run["id"], task.cell.key)
                assert proc["status"] == "ok", proc["error"]
                both = json.loads(proc["result"])
                out.append((task, both["client"], both["server"]))
            store.close()
        _clear_caches()
    return out


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)


@st.composite
def mutation(draw, doc):
    """The document with one to three of its nodes replaced, deleted or nudged."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        parent, key, node = None, None, doc
        while isinstance(node, dict | list) and node and (parent is None or draw(st.booleans())):
            key = draw(
                st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node)))
            )
            parent, node = node, node[key]
        if parent is None:
            continue
        action = draw(st.sampled_from(["replace", "delete", "nudge"]))
        if action == "delete":
            del parent[key]
        elif action == "nudge" and isinstance(node, int) and not isinstance(node, bool):
            parent[key] = draw(st.sampled_from([node + 1, node - 1, -node, 0, 2**63, 2**64]))
        else:
            parent[key] = draw(JSON)
    # What the harness reads is JSON text: NaN and big integers survive, tuples do not.
    return json.loads(json.dumps(doc))


def _judge(task, client, server):
    try:
        return runner.judge(task, client, server)
    except ResultError as e:
        message = str(e)
        assert not message.startswith(tuple(f"malformed result: {t.__name__}" for t in SHAPES)), (
            f"a check tripped over the result's shape instead of naming it: {message}"
        )
        return None


# WIREBENCH_FUZZ_EXAMPLES: more for a long run (docs/robustness.md records one).
@settings(
    max_examples=int(os.environ.get("WIREBENCH_FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_mutated_result_is_judged_or_refused_by_name(honest, data):
    task, client, server = data.draw(st.sampled_from(honest))
    which = data.draw(st.sampled_from(["client", "server"] if server else ["client"]))
    if which == "client":
        client = data.draw(mutation(client))
    else:
        server = data.draw(mutation(server))
    metrics = _judge(task, client, server)
    if metrics is not None:
        # Passed: then it still says it verified, and is for the cell asked.
        assert client["verified"] is True and client["case"] == task.cell.case
        assert server is None or server["verified"] is True


def test_the_honest_results_pass(honest):
    assert honest
    for task, client, server in honest:
        assert runner.judge(task, client, server) is not None


@pytest.mark.parametrize("field", ["check", "verified", "warmup", "metrics"])
def test_a_result_without_a_field_the_checks_need_is_refused(honest, field):
    for task, client, server in honest:
        broken = {k: v for k, v in client.items() if k != field}
        if field == "check" and "check" not in client:
            continue
        with pytest.raises(ResultError):
            runner.judge(task, broken, server)
