"""The harness's side of docs/protocol.md (version 2): reading a driver's result, its
identity and its metrics, before the suite's own checks judge it.

A floor below the suites (tests/test_structure.py): the words a result is made of
(Metric, MetricSpec, ResultError) are here, so that the suite contract can use them."""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass

from .cells import Task

PROTOCOL = 2


class ResultError(ValueError):
    """A driver's result that the harness refuses: malformed, for another cell, unverified,
    inconsistent, or wrong."""


@dataclass(frozen=True)
class MetricSpec:
    """A metric a suite's results carry (docs/protocol.md, Metrics)."""

    name: str
    kind: str  # samples | scalar | histogram
    unit: str
    help: str
    required: bool = True  # False: a result may leave it out (e.g. an operation not measured)
    by_harness: bool = False  # computed by the harness (Suite.inspect), never by a driver


@dataclass(frozen=True)
class Metric:
    """One named metric of one process: samples (each the total of `iters` iterations),
    a scalar, or an HdrHistogram (V2 compressed, base64)."""

    name: str
    unit: str
    kind: str
    iters: int | None = None
    samples: tuple[int, ...] = ()
    value: float | None = None
    histogram: str | None = None


def parse_result(stdout: str) -> dict:
    lines = [line for line in stdout.splitlines() if line.strip()]
    if len(lines) != 1:
        raise ResultError(
            f"malformed result: expected one JSON line on stdout, got {len(lines)} lines"
        )
    try:
        result = json.loads(lines[0])
    except json.JSONDecodeError as e:
        raise ResultError(f"malformed result: not JSON ({e}): {lines[0][:200]!r}") from None
    if not isinstance(result, dict):
        raise ResultError("malformed result: not a JSON object")
    return result


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_metric(name: str, m) -> Metric:
    """One metric in any of the three forms, or ResultError naming what is wrong."""
    where = f"malformed result: metric {name!r}"
    if not isinstance(m, dict) or not isinstance(m.get("unit"), str):
        raise ResultError(f"{where} must be an object with a unit")
    forms = [k for k in ("samples", "value", "histogram", "counts") if k in m]
    if len(forms) != 1:
        raise ResultError(f"{where} needs exactly one of samples, value or histogram")
    if forms == ["samples"]:
        samples, iters = m["samples"], m.get("iters")
        if not _is_int(iters) or iters < 1:
            raise ResultError(f"{where}: iters must be a positive integer")
        if not isinstance(samples, list) or not samples or not all(_is_int(v) for v in samples):
            raise ResultError(f"{where}: samples must be a non-empty list of integers")
        if any(v < 0 for v in samples):
            raise ResultError(f"{where}: a sample is negative")
        return Metric(name, m["unit"], "samples", iters=iters, samples=tuple(samples))
    if forms == ["value"]:
        v = m["value"]
        if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v):
            raise ResultError(f"{where}: value must be a finite number")
        return Metric(name, m["unit"], "scalar", value=v)
    if forms == ["counts"]:
        try:
            encoded = histogram_from_counts(m["counts"])
        except ValueError as e:
            raise ResultError(f"{where}: {e}") from None
        return Metric(name, m["unit"], "histogram", histogram=encoded)
    h = m["histogram"]
    try:
        from hdrh.histogram import HdrHistogram

        if (
            not isinstance(h, str)
            or not base64.b64decode(h, validate=True)
            or HdrHistogram.decode(h) is None
        ):
            raise ValueError("not decodable")
    except Exception as e:  # the decoder raises many types on garbage
        raise ResultError(f"{where}: not an HdrHistogram V2 base64 encoding ({e})") from None
    return Metric(name, m["unit"], "histogram", histogram=h)


# The layout every driver's histograms share (docs/protocol.md, suite queue).
HISTOGRAM_LOWEST, HISTOGRAM_HIGHEST, HISTOGRAM_DIGITS = 1, 3_600_000_000_000, 3


def histogram_from_counts(counts) -> str:
    """The V2 base64 encoding of a histogram given as [[value, count], ...] by a driver
    without an HdrHistogram library (C++): each value the lowest of its bucket in the
    shared layout, so re-recording it here lands in the same bucket."""
    from hdrh.histogram import HdrHistogram

    if not isinstance(counts, list):
        raise ValueError("counts must be a list of [value, count] pairs")
    h = HdrHistogram(HISTOGRAM_LOWEST, HISTOGRAM_HIGHEST, HISTOGRAM_DIGITS)
    for pair in counts:
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(_is_int(x) for x in pair)
            and pair[0] >= 0
            and pair[1] >= 1
        ):
            raise ValueError(f"not a [value, count] pair of a value and a positive count: {pair!r}")
        if h.get_lowest_equivalent_value(pair[0]) != pair[0]:
            raise ValueError(f"{pair[0]} is not the lowest value of its bucket")
        if not h.record_value(pair[0], pair[1]):
            raise ValueError(f"{pair[0]} is beyond the histogram's highest value")
    return h.encode().decode()


def histogram_encoding(h: dict) -> str:
    """The V2 base64 encoding of a histogram in either of the protocol's forms (an
    object with `histogram` or `counts`, such as one of a queue result's intervals)."""
    if "counts" in h:
        return histogram_from_counts(h["counts"])
    return h["histogram"]


def check_result(
    task: Task, r: dict, specs: tuple[MetricSpec, ...], params: dict, identity: dict
) -> dict[str, Metric]:
    """The protocol's checks of a local or client result: version, identity, the cell it
    is for (`params`: what its driver was told), warm-up, verification, and the suite's
    metrics (`specs`) in their declared forms. Returns the metrics. `identity` is the
    driver's {"lang", "toolchain"} from `info`."""
    if r.get("protocol") != PROTOCOL:
        raise ResultError(f"protocol version {r.get('protocol')!r}, expected {PROTOCOL}")
    c = task.cell
    for name, want in (
        ("lang", identity.get("lang")),
        ("toolchain", identity.get("toolchain")),
        ("suite", c.suite),
        ("case", c.case),
        ("lib", c.lib),
        ("params", params),
    ):
        if r.get(name) != want:
            raise ResultError(f"result is for {name} {r.get(name)!r}, asked for {want!r}")
    # A driver may warm up longer than asked (the JVM's until its JIT settles), never less.
    warmup = r.get("warmup")
    if not _is_int(warmup) or warmup < task.warmup:
        raise ResultError(
            f"result warmed up {warmup!r} iterations, fewer than the {task.warmup} asked"
        )
    if r.get("verified") is not True:
        raise ResultError("the driver did not verify its responses (verified is not true)")
    raw = r.get("metrics")
    if not isinstance(raw, dict):
        raise ResultError("malformed result: no metrics object")
    metrics = {}
    for spec in specs:
        if spec.by_harness:
            if spec.name in raw:
                raise ResultError(f"malformed result: metric {spec.name!r} is the harness's")
            continue
        if spec.name not in raw:
            if not spec.required:
                continue
            raise ResultError(f"malformed result: metric {spec.name!r} is missing")
        m = parse_metric(spec.name, raw[spec.name])
        if m.kind != spec.kind or m.unit != spec.unit:
            raise ResultError(
                f"malformed result: metric {spec.name!r} is {m.kind} in {m.unit}, "
                f"expected {spec.kind} in {spec.unit}"
            )
        if m.kind == "samples":
            if m.iters != task.iters:
                raise ResultError(
                    f"result is for iters {m.iters} (metric {spec.name!r}), asked for {task.iters}"
                )
            if len(m.samples) != task.samples:
                raise ResultError(
                    f"malformed result: metric {spec.name!r} has {len(m.samples)} samples, "
                    f"asked for {task.samples}"
                )
        metrics[spec.name] = m
    return metrics


def check_server(r: dict, identity: dict) -> None:
    if r.get("protocol") != PROTOCOL or r.get("role") != "server":
        raise ResultError(f"malformed server result: needs protocol {PROTOCOL} and role server")
    for name in ("lang", "toolchain"):
        if r.get(name) != identity.get(name):
            raise ResultError(
                f"server result is for {name} {r.get(name)!r}, expected {identity.get(name)!r}"
            )
    if r.get("verified") is not True:
        raise ResultError("the server did not verify the requests it read")
