"""Suite rpc: the Cap'n Proto benchmark cases (carsales, catrank, eval), request and
response with work at both ends, in the modes of the reference suite.

Everything particular to rpc lives here: the cases and parameters, the iterations per
profile, pipe cells (a client and a server process, placed on CPUs, possibly in two
languages), the check digests a result must carry, and the report's tables (per case with
the null floor and the memcpy limit beside every library).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from .. import charts as ch
from .. import model, stats, workloads
from ..cells import Task
from ..model import CellResult, Table, fmt_bytes, fmt_ratio, fmt_time
from ..protocol import Metric, MetricSpec, ResultError
from ..suite import ExpandContext, Param, Suite, signature
from . import limit

CHECKS_FILE = Path(__file__).resolve().parent.parent.parent / "testdata" / "rpc" / "checks.json"
PIPE_MODES = ("pipe", "pipe-async")
DEFAULT_PLACEMENT = "one-core"

PLACEMENTS = {
    "one-core": "client and server pinned to the same CPU (the default: stable here)",
    "two-cores": "client and server pinned to different CPUs",
    "unpinned": "the scheduler decides",
}

ITERS = workloads.RPC_ITERS  # iterations per sample, by profile and case

# The pipe cells that also run between languages (client in one, server in the other) for
# every ordered pair of languages built: the library and parameter values allowed.
PAIRS = {
    # One representative cell per case and wire format: 6 per ordered pair of languages.
    "quick": {
        "lib": ("capnp", "protobuf"),
        "mode": ("pipe",),
        "compression": ("none",),
        "reuse": ("reuse",),
    },
    "standard": {"lib": ("capnp", "protobuf"), "mode": ("pipe", "pipe-async"), "reuse": ("reuse",)},
}

READING = (
    "Times are per iteration (one request built, sent, handled, answered and checked); "
    "median of all samples of all processes, with its 95% bootstrap interval (processes "
    "and samples resampled). `spread` is the interquartile range over the median; `!` "
    f"marks spread above {stats.SPREAD_LIMIT:.0%}, not to be trusted. `vs null` is the "
    "ratio to the hand-written null library in the same mode (the floor), paired by "
    f"round; `memcpy` is the time memcpy ({limit.LIMIT_BLOCK} blocks) takes to move the same "
    "bytes (the limit). `placement` says where a pipe cell's two processes ran."
)


class Rpc(Suite):
    def headline(self, cell, default):
        """Reuse, no compression, bytes for every library (the work plus its wire format),
        and capnp carsales over a pipe in one language (a JVM pipe process costs 5-9 s:
        one case of it). Left out, to keep the default run within 10 minutes at 6
        processes a cell: object mode (the work alone), no-reuse, packing, pipe-async,
        the other pipe cells and placements, cross-language pairs."""
        p = cell.param
        if p.get("reuse") != "reuse" or p.get("compression") != "none":
            return False
        if p.get("mode") == "pipe":
            return (cell.case, cell.lib) == ("carsales", "capnp") and cell.server_lang == cell.lang
        return p.get("mode") == "bytes"

    def expand(self, driver, entry, ctx: ExpandContext):
        """A pipe cell becomes one cell per placement and per server driver: with --pair,
        exactly those client:server pairs (and no other cells); without, the client's own
        driver, plus every other driver that lists the same cell when the cell passes the
        profile's pair filter."""
        params = dict(entry["params"])
        if params.get("mode") not in PIPE_MODES:
            return [] if ctx.pairs else [(params, None)]
        serves = [d for d, sigs in ctx.supported.items() if signature(entry) in sigs]
        pair_filter = PAIRS.get(ctx.pairs_of_profile or "")
        if ctx.pairs:
            servers = [s for s in serves if (driver, s) in ctx.pairs]
        elif pair_filter is not None and all(
            {"lib": entry["lib"], **params}.get(k) in allowed for k, allowed in pair_filter.items()
        ):
            servers = serves
        else:
            servers = [driver]
        placements = sorted(ctx.filters.get("placement") or {DEFAULT_PLACEMENT})
        return [({**params, "placement": p}, s) for s in servers for p in placements]

    def check_result(self, task: Task, r: dict, metrics: dict[str, Metric]) -> None:
        if any(v < 1 for v in metrics["time"].samples):
            raise ResultError("malformed result: a time sample is below 1 ns")
        sizes = metrics["bytes"].samples
        if len(set(sizes)) != 1:
            raise ResultError(f"samples of identical work moved different byte counts: {sizes}")
        checks = r.get("check")
        if (
            not isinstance(checks, list)
            or len(checks) != task.samples
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in checks)
        ):
            raise ResultError(
                f"malformed result: 'check' must be a list of {task.samples} integers"
            )
        checked = r.get("responses_checked")
        if not isinstance(checked, int) or checked < task.iters * task.samples:
            raise ResultError(
                f"the driver checked {checked!r} responses, fewer than the "
                f"{task.iters * task.samples} it timed"
            )
        want = expected_check(task.cell.case, task.iters)
        if any(v != want for v in checks):
            raise ResultError(
                f"wrong answers: check digest {checks[0]} but the workload's is {want} "
                f"(testdata/rpc/checks.json)"
            )

    def check_server(self, task: Task, s: dict, client: dict) -> None:
        want = client["warmup"] + task.iters * task.samples
        if s.get("requests") != want:
            raise ResultError(
                f"the server answered {s.get('requests')!r} requests, expected {want}"
            )

    def tables(self, results: list[CellResult], context: dict) -> list[Table]:

        bandwidth = limit.bandwidth(context["all"])
        block = limit.LIMIT_BLOCK
        floors = {_floor_key(r): r for r in results if r.cell.lib == "null" and r.ok}
        tables = []
        for case in self.cases:
            rows = []
            for r in (r for r in results if r.cell.case == case):
                head = [r.cell.impl, *(r.cell.param.get(n, "") for n in _COLUMNS)]
                if not r.ok:
                    rows.append(head + [r.status.upper()] + [""] * 7)
                    continue
                time, s = r.metric("time"), r.summary("time")
                floor = floors.get(_floor_key(r))
                vs_null = "-"
                if floor and floor is not r:
                    vs_null = fmt_ratio(model.ratio(time, floor.metric("time")))
                bpi = r.summary("bytes").median
                memcpy = fmt_time(bpi / bandwidth[block]) if bpi and block in bandwidth else "-"
                rows.append(
                    head
                    + [
                        fmt_time(s.median),
                        s.interval(fmt_time),
                        fmt_time(s.min),
                        f"{s.spread * 100:.1f}%" + (" !" if s.noisy else ""),
                        fmt_bytes(bpi) if bpi else "-",
                        f"{bpi / s.median * 1e3:.0f}" if bpi else "-",
                        vs_null,
                        memcpy,
                    ]
                )
            if rows:
                tables.append(
                    Table(
                        title=f"rpc / {case}: time per request+response",
                        headers=["impl", *_COLUMNS, "median", "95% CI", "min", "spread"]
                        + ["bytes/iter", "MB/s", "vs null", "memcpy"],
                        rows=rows,
                    )
                )
        return tables

    def attachments(self, results: list[CellResult], processes, context: dict) -> dict[str, bytes]:
        return charts(results, context.get("base", "cpp"), self.param("mode").values)


_COLUMNS = ("mode", "compression", "reuse", "placement")


HATCHES = {"null": "", "capnp": "//", "protobuf": ".."}


def charts(results: list[CellResult], base: str, modes: tuple[str, ...]) -> dict[str, bytes]:
    """The seed's charts, with error bars: per case and setting (compression, reuse,
    build), grouped bars by mode, one bar per implementation, as its time over the base
    language's cell of the same library and parameters (paired by round: the report's
    ratios), whiskers the 95% interval. Pipe cells between two languages are not drawn:
    they belong to neither."""

    single = [r for r in results if r.ok and r.cell.server_lang in (None, r.cell.lang)]
    bases = {(r.cell.case, r.cell.lib, r.cell.params): r for r in single if r.cell.lang == base}
    groups: dict[tuple, dict[str, dict[str, stats.Ratio]]] = {}
    for r in single:
        b = bases.get((r.cell.case, r.cell.lib, r.cell.params))
        if r.cell.driver_id == base or b is None:
            continue
        p = r.cell.param
        setting = (r.cell.case, p.get("compression"), p.get("reuse"), p.get("build"))
        q = model.ratio(r.metric("time"), b.metric("time"))
        groups.setdefault(setting, {}).setdefault(r.cell.impl, {})[p["mode"]] = q
    files = {}
    for (case, compression, reuse, build), impls in sorted(groups.items(), key=str):
        drawn = [m for m in modes if any(m in by_mode for by_mode in impls.values())]
        names = sorted(impls, key=lambda i: (i.split("/")[1], i))
        fig, ((ax,),) = ch.figure(max(6.0, 0.4 * len(drawn) * len(names)), 4.5)
        width = 0.8 / len(names)
        for k, impl in enumerate(names):
            xs = [i + (k - (len(names) - 1) / 2) * width for i in range(len(drawn))]
            qs = [impls[impl].get(m) for m in drawn]
            ax.bar(
                [x for x, q in zip(xs, qs, strict=True) if q],
                [q.value for q in qs if q],
                width,
                yerr=ch.whiskers(
                    *([getattr(q, f) for q in qs if q] for f in ("value", "low", "high"))
                ),
                label=impl,
                color=ch.colour(impl.split("/")[0].split("@")[0]),
                hatch=HATCHES.get(impl.split("/")[1], "xx"),  # the libraries of a language
                edgecolor="white",
                error_kw={"elinewidth": 0.8, "capsize": 2},
            )
        ax.axhline(1, color="black", linewidth=0.8)
        ax.set_xticks(range(len(drawn)), drawn)
        ax.set_ylabel(f"time / {base}'s (below 1: faster; whiskers: 95% interval)")
        ax.set_title(f"rpc / {case}: compression {compression}, {reuse}, build {build}")
        ax.legend(fontsize=7, ncol=3)
        ax.grid(True, axis="y", alpha=0.3)
        name = f"rpc-{case}-{compression}-{reuse}-{build}.svg"
        files[name] = ch.svg(fig)
    return files


def _floor_key(r: CellResult) -> tuple:
    p = r.cell.param
    return (r.cell.lang, r.cell.case, p.get("mode"), p.get("reuse"), p.get("placement"))


@cache
def _committed_checks() -> dict:
    try:
        return json.loads(CHECKS_FILE.read_text())
    except (OSError, json.JSONDecodeError):
        return {}


@cache
def expected_check(case: str, iters: int) -> int:
    """The digest a correct driver reports: committed, or computed by wirebench.workloads."""
    committed = _committed_checks().get(case, {}).get(str(iters))
    return committed if committed is not None else workloads.digest(case, iters)


SUITE = Rpc(
    name="rpc",
    description="the Cap'n Proto benchmark cases: request/response with work at both ends",
    cases={
        "carsales": "numbers-heavy: a parking lot of cars in, its total value out",
        "catrank": "strings-heavy: search results in, re-ranked results out",
        "eval": "pointer-heavy, small messages: an expression tree in, its value out",
    },
    params=(
        Param(
            "mode",
            ("object", "bytes", "pipe", "pipe-async"),
            "object (in memory), bytes (through buffers), pipe, pipe-async (two processes)",
        ),
        Param("compression", ("none", "packed"), "none, packed (Cap'n Proto's packing)"),
        Param("reuse", ("reuse", "no-reuse"), "reuse or not the builders' and readers' memory"),
        Param(
            "placement",
            tuple(PLACEMENTS),
            "pipe cells: one-core (default), two-cores, unpinned",
            harness=True,
        ),
    ),
    metrics=(
        MetricSpec("time", "samples", "ns", "wall time of the iterations"),
        MetricSpec("bytes", "samples", "B", "request and response bytes that crossed the wire"),
    ),
    reading=READING,
    lib_order=("null", "capnp", "protobuf"),
    iters=ITERS,
)
