"""A stored run's numbers for other tools: JSON, CSV, and BMF (the Bencher Metric Format,
https://bencher.dev/docs/reference/bencher-metric-format), each with every metric, its
95% interval and its unit.

Values are per iteration, as in the reports. A histogram metric (queue latencies) gives
one value per percentile. A failed cell is a row of its own in JSON and CSV; BMF has no
place for it, so `bmf` returns the keys it left out for the caller to name.
"""

from __future__ import annotations

import csv
import io
import json

from . import model, report

FORMATS = ("json", "csv", "bmf")


def _run(store, run_id: int) -> tuple[dict, dict, list[model.CellResult]]:
    row = store.run(run_id)
    return dict(row), json.loads(row["provenance"]), report.load(store, run_id)


def to_json(store, run_id: int) -> str:
    run, prov, results = _run(store, run_id)
    data = {
        "run": {k: run[k] for k in report.RUN_FIELDS},
        "provenance": prov,
        "cells": [report.cell_json(r) for r in results],
    }
    return json.dumps(data, indent=1) + "\n"


def _values(m: model.MetricData):
    """(statistic, value, low, high, summary or None) of one metric: its median, or each
    percentile of a histogram."""
    if m.kind == "histogram":
        for p in m.percentiles:
            yield f"p{p.percentile:g}", p.value, p.low, p.high, None
    else:
        s = m.summary
        # No interval (too few processes): empty bounds, not NaN.
        low, high = (s.low, s.high) if s.has_interval else (None, None)
        yield "median", s.median, low, high, s


CSV_HEAD = ["run", "key", "suite", "case", "lang", "toolchain", "lib", "server_lang"]
CSV_TAIL = [
    "status",
    "error",
    "metric",
    "unit",
    "kind",
    "per",
    "statistic",
    "value",
    "ci95_low",
    "ci95_high",
    "min",
    "spread",
    "noisy",
    "samples",
    "processes",
]


def to_csv(store, run_id: int) -> str:
    """One row per cell, metric and statistic; one column per parameter any cell has."""
    run, _, results = _run(store, run_id)
    params = sorted({k for r in results for k in r.cell.param})
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEAD + [f"param.{p}" for p in params] + CSV_TAIL)
    for r in results:
        c = r.cell
        head = [run["id"], c.key, c.suite, c.case, c.lang, c.toolchain or "", c.lib]
        head += [c.server_lang or ""] + [c.param.get(p, "") for p in params]
        if not r.ok:
            w.writerow(head + [r.status, r.error or ""] + [""] * (len(CSV_TAIL) - 2))
            continue
        for name, m in r.metrics.items():
            per = "iteration" if m.kind == "samples" else ""
            for stat, value, low, high, s in _values(m):
                if s:
                    more = [s.min, s.spread, s.noisy, s.n_samples, s.n_processes]
                else:  # a histogram's percentile: merged over its processes
                    more = ["", "", "", "", len(m.histograms)]
                bounds = ["" if b is None else b for b in (low, high)]
                w.writerow(
                    head + ["ok", "", name, m.unit, m.kind, per, stat, value, *bounds] + more
                )
    return buf.getvalue()


def bmf_measure(metric: str, unit: str, statistic: str) -> str:
    """A measure's name in BMF: wall time per iteration is Bencher's built-in `latency`
    (nanoseconds); any other is created by Bencher from its name, which carries the unit."""
    if metric == "time" and unit == "ns" and statistic == "median":
        return "latency"
    stat = "" if statistic == "median" else f" {statistic}"
    return f"{metric}{stat} ({unit})"


def to_bmf(store, run_id: int) -> tuple[str, list[str]]:
    """The BMF JSON (benchmark: the cell's key; measures: its metrics, lower and upper
    values the 95% interval), and the keys of the cells it leaves out (no number)."""
    _, _, results = _run(store, run_id)
    data, left_out = {}, []
    for r in results:
        if not r.ok:
            left_out.append(r.cell.key)
            continue
        measures = data.setdefault(r.cell.key, {})
        for name, m in r.metrics.items():
            for stat, value, low, high, _ in _values(m):
                measure = {"value": value}
                if low is not None:  # BMF's bounds are optional
                    measure |= {"lower_value": low, "upper_value": high}
                measures[bmf_measure(name, m.unit, stat)] = measure
    return json.dumps(data, indent=1) + "\n", left_out
