"""The queue suite's section of a report: per case the time of runs timed whole, the cost
above the language's null floor and the percentiles of runs timed write by write; every
implementation against C++'s wbq, release against a full fence in each language, the
builds beside the bulk table, the paced ladder's verdict, a latency-by-percentile chart
per case, and each process's interval log; and the headline's table of each language's
cost above its floor."""

from __future__ import annotations

import io
import re

from .. import charts, model, stats
from ..model import CellResult, Table, fmt_time
from ..protocol import histogram_encoding
from ..suite import Suite, param_columns

# The paced table's verdict: the highest rate whose p99 latency stays under this.
P99_BOUND_NS = 10_000


def _pct(r: CellResult, metric: str = "latency") -> dict[float, stats.Percentile]:
    return {p.percentile: p for p in r.metric(metric).percentiles}


def _pct_cell(p: stats.Percentile) -> str:
    if p.low == p.high == p.value:
        return fmt_time(p.value)
    return f"{fmt_time(p.value)} [{fmt_time(p.low)}-{fmt_time(p.high)}]"


def _ns(v: float) -> str:
    """A few ns, or a fraction of one (bulk: per long)."""
    return f"{v:.2f}" if abs(v) >= 1 else f"{v:.3f}"


def _mean_cell(r: CellResult) -> str:
    s = r.summary("time")
    return f"{_ns(s.median)} [{s.interval(_ns, '-')}]" + (" !" if s.noisy else "")


def _floor_key(r: CellResult) -> tuple:
    """What a cell shares with its null floor: language and compiler, case, clock, storage
    and build (the floor has no ordering and is always pretouched)."""
    p = r.cell.param
    return (r.cell.driver_id, r.cell.case, p.get("clock"), p.get("storage"), r.cell.build)


def _floors(results: list[CellResult]) -> dict[tuple, CellResult]:
    return {_floor_key(r): r for r in results if r.ok and r.cell.lib == "null"}


def above_null(r: CellResult, floors: dict[tuple, CellResult]) -> stats.Difference | None:
    """r's time less its language's null floor in the same case and parameters: process
    medians paired by round (model.difference); None without a floor."""
    floor = floors.get(_floor_key(r))
    if floor is None or floor is r or not r.ok:
        return None
    a, b = r.metric("time"), floor.metric("time")
    try:
        return model.difference(a, b)
    except ValueError:  # no round both ran
        return None


def _above_cell(r: CellResult, floors: dict[tuple, CellResult]) -> str:
    d = above_null(r, floors)
    return "-" if d is None else d.text(_ns)


def _steal(r: CellResult) -> str:
    return "-" if r.steal is None else f"{r.steal:.1%}"


def _label(p: float) -> str:
    return "max" if p == 100.0 else f"p{p:g}"


def tables(suite: Suite, results: list[CellResult], provenance: dict) -> list[Table]:
    names = [n for n in param_columns(suite, results) if n != "rate"]
    floors = _floors(results)
    out = []
    for case in ("single", "bulk"):
        mine = [r for r in results if r.cell.case == case]
        if not mine:
            continue
        rows = []
        for r in mine:
            row = [r.cell.impl, *(r.cell.param.get(n, "") for n in names)]
            if not r.ok:
                rows.append([*row, r.status.upper(), "", *[""] * len(stats.PERCENTILES), _steal(r)])
                continue
            pct = _pct(r)
            rows.append(
                [
                    *row,
                    _mean_cell(r),
                    _above_cell(r, floors),
                    *(_pct_cell(pct[p]) for p in stats.PERCENTILES),
                    _steal(r),
                ]
            )
        if case == "single":
            title = (
                "queue / single: ns per write in runs timed whole (no timer read among the "
                "writes; each entry's own timestamp read is part of the write), median over "
                "processes; above null: less the same language's null floor, process medians "
                "paired by round; and the percentiles of every write's service time in "
                "separate runs timed write by write (two timer reads around each: read them "
                "from p99.9 up); 95% intervals"
            )
        else:
            title = (
                "queue / bulk: ns per long of each run's one write, median over processes; "
                "above null: less the same language's null floor, paired by round; and the "
                "percentiles of the runs' writes (ns per write), 95% intervals"
            )
        per = "write" if case == "single" else "long"
        out.append(
            Table(
                title,
                ["impl", *names, f"ns/{per}", "above null"]
                + [*map(_label, stats.PERCENTILES), "steal"],
                rows,
            )
        )
        if case == "bulk":
            out += _build_table(mine, provenance)
    out += _paced_tables(suite, results)
    out += _ratio_tables(suite, results)
    return out


def _build_table(results: list[CellResult], provenance: dict) -> list[Table]:
    """The builds of the drivers beside the bulk table: a loop of plain stores is where a
    compiler's optimisation level shows (-O2 against opt-level 3), so the flags each
    driver was built with stand beside its numbers (from the run's provenance)."""
    builds = provenance.get("builds") or {}
    rows = []
    for driver, build in sorted({(r.cell.driver_id, r.cell.build) for r in results}):
        b = builds.get(f"{driver} {build}") or {}
        rows.append([driver, build, b.get("flags") or "not recorded"])
    if not rows:
        return []
    return [
        Table(
            "queue / bulk: how each driver was built (its build profile's flags, as the run "
            "recorded them; docs/methodology.md, Build profiles)",
            ["driver", "build", "flags"],
            rows,
        )
    ]


def _paced_tables(suite: Suite, results: list[CellResult]) -> list[Table]:
    paced = [r for r in results if r.cell.case == "paced"]
    if not paced:
        return []
    names = [n for n in param_columns(suite, paced) if n != "rate"]
    rows, ladder = [], {}
    shown = (50.0, 99.0, 99.9, 100.0)
    for r in sorted(paced, key=lambda r: (r.cell.impl, suite.rates[r.cell.param["rate"]])):
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
        ladder.setdefault(key, []).append((suite.rates[r.cell.param["rate"]], lat[99.0].value))
    verdict = []
    for key, points in sorted(ladder.items()):
        under = [rate for rate, p99 in points if p99 <= P99_BOUND_NS]
        best = f"{max(under):,}/s" if under else f"none of {', '.join(suite.rates)}"
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


# The percentiles whose ratios the table against C++ shows: the tail, where a write timed
# on its own is not one clock step against another.
TAIL = (99.9, 99.99)


def _base_key(r: CellResult) -> tuple:
    """The C++ wbq cell that `r` is set against: the same case and parameters; Chronicle
    (its own ordering) against C++'s release, the null floor against C++'s null."""
    params = dict(r.cell.params)
    lib = "null" if r.cell.lib == "null" else "wbq"
    if params.get("ordering") == "lib":
        params["ordering"] = "release"
    return (r.cell.case, lib, tuple(sorted(params.items())))


def _ratio_tables(suite: Suite, results: list[CellResult]) -> list[Table]:
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
        q = model.ratio(r.metric("time"), b.metric("time"))
        pa, pb = _pct(r), _pct(b)
        rows.append(
            [
                r.cell.case,
                f"{r.cell.impl} / {b.cell.impl}",
                *(r.cell.param.get(n, "") for n in names),
                q.text(),
                *(f"{pa[p].value / pb[p].value:.2f}" for p in TAIL),
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
        a, b = r.metric("time"), rel.metric("time")
        fence.append(
            [
                r.cell.case,
                r.cell.impl,
                *(r.cell.param.get(n, "") for n in names if n != "ordering"),
                _ns(rel.summary("time").median),
                _ns(r.summary("time").median),
                model.difference(a, b).text(_ns),
                model.ratio(a, b).text(),
            ]
        )
    out = []
    if rows:
        out.append(
            Table(
                "queue: each implementation against C++ wbq (the seed's port) on the same "
                "work: time per write/long in runs timed whole with its 95% interval "
                "(processes paired by round), and the ratios of the tail percentiles (single: "
                "below p99.9 a write timed on its own is within a clock step or two of "
                "another); Chronicle against C++'s release",
                ["case", "ratio", *names, "time", *(_label(p) for p in TAIL)],
                rows,
            )
        )
    if fence:
        out.append(
            Table(
                "queue: a full fence against a release store, per language: ns per write/long "
                "with each, what the fence adds (seqcst - release, paired by round, 95% t "
                "interval) and seqcst/release (above 1: the fence costs)",
                ["case", "impl", *(n for n in names if n != "ordering")]
                + ["release", "seqcst", "seqcst - release", "seqcst/release"],
                fence,
            )
        )
    return out


def headline_tables(suite: Suite, results: list[CellResult], base: str) -> list[Table]:
    """The queue's table in the report's headline: what each language's queue costs above
    its own null floor, per write (single) and per long (bulk), monotonic clock, tmpfs.

    Not a ratio between languages: a write's cost above the floor is a few ns whose
    interval can reach 0 (C++'s among them), and a ratio to such a number has no bound;
    the differences, each with its interval, compare directly."""
    floors = _floors(results)
    rows: dict[tuple, dict[str, str]] = {}
    found = set()  # every language with a cell here: one with only its floor shows as "-"
    for r in results:
        p = r.cell.param
        if r.cell.case not in ("single", "bulk") or p.get("clock") != "mono":
            continue
        if p.get("storage") != "tmpfs":
            continue
        found.add(r.cell.driver_id)
        if r.cell.lib == "null":
            continue
        d = above_null(r, floors)
        if d is not None:
            key = (r.cell.case, r.cell.lib, p.get("ordering"), p.get("pretouch"), r.cell.build)
            rows.setdefault(key, {})[r.cell.driver_id] = d.text(_ns)
    if not rows:
        return []
    langs = sorted(found, key=lambda lang: (lang != base, lang))
    orderings = list(suite.param("ordering").values)
    order = sorted(
        rows,
        key=lambda k: (k[0] != "single", suite.lib_rank(k[1]), orderings.index(k[2]), k[3:]),
    )
    return [
        Table(
            "Headline, queue: what each language's queue costs above its own null floor "
            "(wbq - null, Chronicle - Java's null), ns per write (single) or per long "
            "(bulk), in runs timed whole, monotonic clock, tmpfs: the mean over rounds of the "
            "difference of the two process medians with a 95% t interval. Not a ratio "
            "between languages: a cost of a few ns whose interval can reach 0 makes a "
            "ratio without bound",
            ["case", "lib", "ordering", "pretouch", "build", *langs],
            [[*key, *(rows[key].get(lang, "-") for lang in langs)] for key in order],
        )
    ]


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


def interval_log(result: dict, metric: str = "latency") -> str:
    """A process's per-second histograms as an HdrHistogram interval log (the format of
    HistogramLogWriter, readable by HistogramLogProcessor and HdrHistogram's plotters)."""
    from hdrh.histogram import HdrHistogram
    from hdrh.log import HistogramLogWriter

    out = io.StringIO()
    w = HistogramLogWriter(out)
    cell = f"{result.get('lang')}/{result.get('lib')} {result.get('case')} {result.get('params')}"
    w.output_comment(f"wirebench queue {metric}, ns: {cell}")
    w.output_legend()
    for iv in (result.get("intervals") or {}).get(metric, []):
        h = HdrHistogram.decode(histogram_encoding(iv))
        h.set_start_time_stamp(int(iv["start_ms"]))
        h.set_end_time_stamp(int(iv["start_ms"]) + int(iv["length_ms"]))
        # Times in the log are seconds since the first timed run; the max is in ns.
        w.output_interval_histogram(
            h,
            iv["start_ms"] / 1000.0 or 1e-9,  # 0 would mean "the histogram's own stamp"
            (iv["start_ms"] + iv["length_ms"]) / 1000.0,
            max_value_unit_ratio=1.0,
        )
    return out.getvalue()
