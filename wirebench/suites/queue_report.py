"""The queue suite's section of a report: percentile tables per case, every implementation
against C++'s wbq, release against a full fence in each language, the paced ladder's
verdict, a latency-by-percentile chart per case, and each process's interval log."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .. import report, stats
from ..report import CellResult, Table, fmt_time, param_columns
from .queue import P99_BOUND_NS, RATES, interval_log

if TYPE_CHECKING:
    from .queue import Queue


def _pct(r: CellResult, metric: str = "latency") -> dict[float, stats.Percentile]:
    return {p.percentile: p for p in r.metric(metric).percentiles}


def _pct_cell(p: stats.Percentile) -> str:
    if p.low == p.high == p.value:
        return fmt_time(p.value)
    return f"{fmt_time(p.value)} [{fmt_time(p.low)}-{fmt_time(p.high)}]"


def _mean_cell(r: CellResult) -> str:
    s = r.summary("time")
    return f"{s.median:.2f} [{s.interval(lambda v: f'{v:.2f}', '-')}]" + (" !" if s.noisy else "")


def _steal(r: CellResult) -> str:
    return "-" if r.steal is None else f"{r.steal:.1%}"


def _label(p: float) -> str:
    return "max" if p == 100.0 else f"p{p:g}"


def tables(suite: Queue, results: list[CellResult]) -> list[Table]:
    names = [n for n in param_columns(suite, results) if n != "rate"]
    out = []
    for case in ("single", "bulk"):
        mine = [r for r in results if r.cell.case == case]
        if not mine:
            continue
        rows = []
        for r in mine:
            row = [r.cell.impl, *(r.cell.param.get(n, "") for n in names)]
            if not r.ok:
                rows.append([*row, r.status.upper(), *[""] * len(stats.PERCENTILES), _steal(r)])
                continue
            pct = _pct(r)
            rows.append(
                [*row, _mean_cell(r), *(_pct_cell(pct[p]) for p in stats.PERCENTILES), _steal(r)]
            )
        per = "write" if case == "single" else "long"
        what = "every write's service time" if case == "single" else "every run's one write"
        out.append(
            Table(
                f"queue / {case}: ns per {per} (mean over runs), and the percentiles of "
                f"{what}, with 95% intervals",
                ["impl", *names, f"ns/{per}", *map(_label, stats.PERCENTILES), "steal"],
                rows,
            )
        )
    out += _paced_tables(suite, results)
    out += _ratio_tables(suite, results)
    return out


def _paced_tables(suite: Queue, results: list[CellResult]) -> list[Table]:
    paced = [r for r in results if r.cell.case == "paced"]
    if not paced:
        return []
    names = [n for n in param_columns(suite, paced) if n != "rate"]
    rows, ladder = [], {}
    shown = (50.0, 99.0, 99.9, 100.0)
    for r in sorted(paced, key=lambda r: (r.cell.impl, RATES[r.cell.param["rate"]])):
        row = [r.cell.impl, r.cell.param["rate"], *(r.cell.param.get(n, "") for n in names)]
        if not r.ok:
            rows.append([*row, r.status.upper(), *[""] * (len(shown) + 1), _steal(r)])
            continue
        lat, svc = _pct(r), _pct(r, "service")
        rows.append(
            [
                *row,
                *(_pct_cell(lat[p]) for p in shown),
                _pct_cell(svc[50.0]),
                _pct_cell(svc[99.0]),
                _steal(r),
            ]
        )
        key = (r.cell.impl, *(r.cell.param.get(n, "") for n in names))
        ladder.setdefault(key, []).append((RATES[r.cell.param["rate"]], lat[99.0].value))
    verdict = []
    for key, points in sorted(ladder.items()):
        under = [rate for rate, p99 in points if p99 <= P99_BOUND_NS]
        best = f"{max(under):,}/s" if under else f"none of {', '.join(RATES)}"
        verdict.append([*key, best])
    return [
        Table(
            "queue / paced: latency from each write's scheduled start (open loop, no "
            "coordinated omission) and its service time, with 95% intervals",
            ["impl", "rate", *names, *(f"latency {_label(p)}" for p in shown)]
            + ["service p50", "service p99", "steal"],
            rows,
        ),
        Table(
            f"queue / paced: the highest rate tried whose p99 latency stays within "
            f"{P99_BOUND_NS / 1000:g} µs",
            ["impl", *names, "highest rate"],
            verdict,
        ),
    ]


def _base_key(r: CellResult) -> tuple:
    """The C++ wbq cell that `r` is set against: the same case and parameters; Chronicle
    (its own ordering) against C++'s release, the null floor against C++'s null."""
    params = dict(r.cell.params)
    lib = "null" if r.cell.lib == "null" else "wbq"
    if params.get("ordering") == "lib":
        params["ordering"] = "release"
    return (r.cell.case, lib, tuple(sorted(params.items())))


def _ratio_tables(suite: Queue, results: list[CellResult]) -> list[Table]:
    ok = [r for r in results if r.ok and r.cell.case in ("single", "bulk")]
    base = {
        (r.cell.case, r.cell.lib, r.cell.params): r
        for r in ok
        if (r.cell.lang, r.cell.toolchain) == ("cpp", None)
    }
    names = param_columns(suite, ok)
    rows = []
    for r in ok:
        b = base.get(_base_key(r))
        if b is None or b is r:
            continue
        q = report.ratio(r.metric("time"), b.metric("time"))
        pa, pb = _pct(r), _pct(b)
        rows.append(
            [
                r.cell.case,
                f"{r.cell.impl} / {b.cell.impl}",
                *(r.cell.param.get(n, "") for n in names),
                q.text(),
                f"{pa[50.0].value / pb[50.0].value:.2f}",
                f"{pa[99.0].value / pb[99.0].value:.2f}",
            ]
        )
    fence = []
    for r in ok:
        if r.cell.param.get("ordering") != "seqcst":
            continue
        want = tuple(sorted({**dict(r.cell.params), "ordering": "release"}.items()))
        same = (r.cell.case, r.cell.impl, want)
        rel = next((x for x in ok if (x.cell.case, x.cell.impl, x.cell.params) == same), None)
        if rel is None:
            continue
        q = report.ratio(r.metric("time"), rel.metric("time"))
        fence.append(
            [
                r.cell.case,
                r.cell.impl,
                *(r.cell.param.get(n, "") for n in names if n != "ordering"),
                f"{rel.summary('time').median:.2f}",
                f"{r.summary('time').median:.2f}",
                q.text(),
            ]
        )
    out = []
    if rows:
        out.append(
            Table(
                "queue: each implementation against C++ wbq (the seed's port) on the same "
                "work: mean time per write/long with its 95% interval (processes paired by "
                "round), and the ratios of p50 and p99; Chronicle against C++'s release",
                ["case", "ratio", *names, "time", "p50", "p99"],
                rows,
            )
        )
    if fence:
        out.append(
            Table(
                "queue: a full fence against a release store, per language: ns per write/long "
                "with each, and seqcst/release (above 1: the fence costs)",
                ["case", "impl", *(n for n in names if n != "ordering")]
                + ["release", "seqcst", "seqcst/release"],
                fence,
            )
        )
    return out


# -- files beside the report -------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", text).strip("_")


def attachments(results: list[CellResult], processes) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for r in results:
        if not r.ok:
            continue
        for rep, result in processes(r.cell):
            for metric in ("latency", "service"):
                if metric in (result.get("intervals") or {}):
                    name = f"queue/{_slug(r.cell.key)}.{metric}.p{rep + 1}.hlog"
                    files[name] = interval_log(result, metric).encode()
    files.update(_charts(results))
    return files


def _charts(results: list[CellResult]) -> dict[str, bytes]:
    """Latency by percentile, log scale on both axes (as HdrHistogram's plotter draws
    it), one chart per case (per rate for paced), one line per cell."""
    from .. import charts

    groups: dict[str, list[CellResult]] = {}
    for r in results:
        if r.ok:
            name = r.cell.case + (f"-{r.cell.param['rate']}" if r.cell.case == "paced" else "")
            groups.setdefault(name, []).append(r)
    files = {}
    for name, rs in groups.items():
        fig, ((ax,),) = charts.figure(9, 5.5)
        for r in rs:
            xs, ys = stats.percentile_curve(list(r.metric("latency").histograms.values()))
            label = (
                r.cell.impl
                + " "
                + " ".join(v for k, v in r.cell.params if k not in ("rate", "build"))
            )
            ax.plot(xs, ys, label=label, linewidth=1.2)
        ticks = [1, 10, 100, 1_000, 10_000, 100_000]
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(ticks, ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"])
        ax.set_xlabel("percentile")
        ax.set_ylabel("latency (ns)")
        ax.set_title(f"queue / {name}: latency by percentile")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
        files[f"queue-{name}.svg"] = charts.svg(fig)
    return files
