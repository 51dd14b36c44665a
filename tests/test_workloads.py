"""The Python workloads against the golden files every driver is tested against."""

import json
from pathlib import Path

import pytest

from wirebench import workloads

TESTDATA = Path(__file__).resolve().parent.parent / "testdata" / "rpc"


def numbers(path):
    return [line.split() for line in path.read_text().splitlines() if not line.startswith("#")]


def test_generator_matches_the_golden_vector():
    rng = workloads.XorShift128()
    golden = [int(v[0]) for v in numbers(TESTDATA / "generator.txt")]
    assert len(golden) == 1000
    assert [rng.next() for _ in range(1000)] == golden


@pytest.mark.parametrize("case", workloads.RPC_CASES)
def test_first_twenty_requests_match_the_golden_values(case):
    golden = [(int(i), int(v)) for i, v in numbers(TESTDATA / f"{case}.txt")]
    assert golden == list(enumerate(workloads.expectations(case, 20)))


def test_every_count_a_profile_uses_has_its_digest_committed():
    from wirebench.profiles import PROFILES
    from wirebench.suites import rpc

    checks = json.loads((TESTDATA / "checks.json").read_text())
    for profile in PROFILES:
        for case in workloads.RPC_CASES:
            n = rpc.SUITE.iters_for(profile, case, {})
            assert str(n) in checks[case], f"{profile} runs {case} x{n}: no committed digest"
            assert rpc.expected_check(case, n) == checks[case][str(n)]


def test_committed_digests_of_small_counts():
    checks = json.loads((TESTDATA / "checks.json").read_text())
    for case in workloads.RPC_CASES:
        for n in ("1", "10", "100"):
            assert checks[case][n] == workloads.digest(case, int(n))


def test_eval_arithmetic_wraps_and_guards_division():
    assert workloads._div(7, -2) == -3 and workloads._mod(7, -2) == 1
    assert workloads._div(-7, 2) == -3 and workloads._mod(-7, 2) == -1
    assert workloads._div(5, 0) == workloads._mod(5, 0) == 0x7FFFFFFF
    assert workloads._div(-(2**31), -1) == workloads._mod(-(2**31), -1) == 0x7FFFFFFF
    assert workloads._wrap32(2**31) == -(2**31)


def test_digest_wraps_to_signed_64_bits():
    assert workloads.wrap64(2**63) == -(2**63)
    assert workloads.wrap64(-1) == -1


def test_f32_rounding_like_cpp():
    assert workloads.f32(0.1) == 0.10000000149011612
