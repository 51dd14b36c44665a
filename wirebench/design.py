"""The design of repetition: iterations per sample, samples per process and processes per
cell, chosen per suite and driver from the variance each level shows and what each level
costs (Kalibera and Jones, "Rigorous benchmarking in reasonable time", ISMM 2013).

A cell's number is a mean over processes of each process's median of its samples. With
m samples a process, on the logs:

    variance per process  v(m) = s_p^2 + s_L^2 + (pi / 2) s_w^2 / m
    cost per process      c(m) = c_p + m c_s

where s_w is the spread of samples within a process, s_p of processes within one code
layout, s_L of layouts (variance.py), c_p what a process costs beside its samples (start,
warm-up, checks: its wall time beside its samples; the harness adds some 6 ms a process,
left out) and c_s one sample. An interval's width over n
processes goes as sqrt(v / n), its cost as n c: the width per machine-second is best at
m* = sqrt((pi / 2) c_p s_w^2 / (c_s s_p'^2)), s_p'^2 = s_p^2 + s_L^2 (Kalibera and Jones's
optimum for two levels; pi / 2 is the median's efficiency against a mean), kept within
[MIN_SAMPLES, MAX_SAMPLES]: a median of fewer than three is no median, and past forty a
process's cost is all samples.

Before that, a sample is made long enough to measure: at least MIN_SAMPLE_S, by running
more iterations of the profile's count (a whole multiple, so that the work per iteration
and its check digests stay the same). A clock read costs some 25 ns here: at 0.1 ms it is
0.025% of a sample. The kernel's tick comes every 4 ms: a sample of 0.1 ms takes one in
40, a few microseconds, which a process's median over its samples leaves out (Chen and
Revels, "Robust benchmarking in noisy environments", 2016, tune evaluations per sample
against the timer the same way, in BenchmarkTools.jl). Longer samples average more of
the noise within (a GC cycle, an interrupt) at a proportional cost, which the optimum
above takes into account (s_w^2 c_s stays the same).

`wirebench design` measures these on this machine (the dimensioning run: a few headline
cells of every suite and driver, DIM_REPS processes of DIM_SAMPLES samples over
DIM_LAYOUTS layouts each), stores that run, and writes the chosen design as
docs/data/design.json with the run's uid; every quick-profile plan reads it (`for_entry`).
docs/results.md's "The instrument" table is rendered from it.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from . import model, registry, variance
from .paths import DOCS

DESIGN_FILE = DOCS / "data" / "design.json"
RUN_NAME = "design-run"  # the dimensioning run's archive: docs/data/design-run.json.gz
FORMAT = 1

MIN_SAMPLE_S = 0.0001  # no sample shorter (module docstring)
MAX_FACTOR = 16  # the profile's iterations a sample times at most
MIN_SAMPLES, MAX_SAMPLES = 3, 40
MEDIAN_EFFICIENCY = math.pi / 2  # a median's variance over a mean's, for normal samples

# The dimensioning run: per suite and driver its first DIM_CELLS headline cells (in the
# suite's reading order), DIM_REPS processes each of DIM_SAMPLES samples, rotating over
# DIM_LAYOUTS layouts of each native driver (two processes a layout: the between-layout
# part is then separable from the between-process one).
DIM_CELLS = 3
DIM_REPS = 8
DIM_SAMPLES = 15
DIM_LAYOUTS = 4


@dataclass(frozen=True)
class Level:
    """One suite and driver of the dimensioning run: its variances (relative standard
    deviations, of the logs), its costs (seconds) and the design chosen from them."""

    suite: str
    driver: str
    cells: int
    processes: int
    within: float  # s_w: samples within a process, at the measured sample length
    between: float  # s_p: processes within one layout (less the median's own noise)
    layouts: float  # s_L: between layouts
    sample_s: float  # c_s: one sample (every metric's, for codec's operations)
    shortest_s: float  # the shortest metric's sample (the one MIN_SAMPLE_S is for)
    process_s: float  # c_p: a process's wall time beside its samples
    measured_samples: int
    measured_iters_factor: int
    # The design:
    iters_factor: int  # the profile's iterations times this, per sample
    samples: int  # m
    per_process: float  # sqrt(v(m)): one process's relative standard deviation

    @property
    def process_cost(self) -> float:
        """c(m): one process of the design, in seconds."""
        return self.process_s + self.samples * self.sample_s * self.iters_factor


def choose(
    suite: str,
    driver: str,
    *,
    cells: int,
    processes: int,
    within: float,
    between: float,
    layouts: float,
    sample_s: float,
    shortest_s: float,
    process_s: float,
    measured_samples: int,
    measured_iters_factor: int = 1,
) -> Level:
    """The design for one suite and driver from its measured levels (module docstring)."""
    # Iterations: the shortest metric's sample at least MIN_SAMPLE_S long.
    base_shortest = shortest_s / measured_iters_factor
    factor = 1
    if base_shortest > 0:
        factor = min(MAX_FACTOR, max(1, math.ceil(MIN_SAMPLE_S / base_shortest)))
    scale = factor / measured_iters_factor
    c_s = sample_s / measured_iters_factor  # a sample of the profile's iterations
    w2 = within**2 / scale  # a longer sample averages more of the noise within
    p2 = between**2 + layouts**2
    if p2 <= 0:
        m = MAX_SAMPLES if w2 > 0 else MIN_SAMPLES
    else:
        m = math.sqrt(MEDIAN_EFFICIENCY * process_s * w2 / (c_s * factor * p2))
        m = min(MAX_SAMPLES, max(MIN_SAMPLES, round(m)))
    per_process = math.sqrt(p2 + MEDIAN_EFFICIENCY * w2 / m)
    return Level(
        suite,
        driver,
        cells,
        processes,
        within,
        between,
        layouts,
        sample_s / measured_iters_factor,
        shortest_s / measured_iters_factor,
        process_s,
        measured_samples,
        measured_iters_factor,
        factor,
        int(m),
        per_process,
    )


# -- measuring a dimensioning run ------------------------------------------------------------


def _levels_of(results: list[model.CellResult]) -> tuple[list[float], list[float], list[float]]:
    """Each metric's within, between-process and between-layout variances over cells."""
    w, p, lay = [], [], []
    for r in results:
        suite = registry.of(r.cell)
        for name in suite.compared or (suite.primary,):
            m = r.metrics.get(name)
            if m is None or m.kind != "samples" or len(m.rounds) < 4:
                continue
            groups = variance.by_layout(m.rounds, {k: _variant(v) for k, v in r.layouts.items()})
            if len(groups) < 2:  # one layout (the JVM): every process is its own
                groups = {i: [s] for i, s in enumerate(m.groups)}
                logs = [np.log(np.asarray(s, dtype=float)) for s in m.groups if len(s) > 1]
                if len(logs) < 3:
                    continue
                within = float(np.mean([np.var(x, ddof=1) for x in logs]))
                meds = np.array([np.median(x) for x in logs])
                between = float(np.var(meds, ddof=1))
                w.append(within)
                p.append(between)
                lay.append(0.0)
                continue
            c = variance.decompose(groups)
            if c is None:
                continue
            w.append(c.within**2)
            p.append(c.between_processes**2)
            lay.append(c.between_layouts**2)
    return w, p, lay


def _variant(v) -> int:
    return v[0] if isinstance(v, tuple) else v


def measure(store, run_id: int) -> list[Level]:
    """The design of every suite and driver a dimensioning run measured."""
    results = [r for r in model.load(store, run_id) if r.ok and "twin" not in r.cell.param]
    plan = json.loads(store.run(run_id)["plan"])
    samples_of = {c["cell"]["suite"]: c["samples"] for c in plan["cells"]}
    procs = store.db.execute(
        "SELECT key, rep, wall_ns FROM processes WHERE run_id = ? AND status = 'ok'", (run_id,)
    ).fetchall()
    walls: dict[str, list[tuple[int, float]]] = {}
    for p in procs:
        walls.setdefault(p["key"], []).append((p["rep"], p["wall_ns"] / 1e9))
    groups: dict[tuple[str, str], list[model.CellResult]] = {}
    for r in results:
        if (
            registry.of(r.cell).accompanies_every_run
            or r.cell.is_pipe
            and (r.cell.server_lang != r.cell.lang)
        ):
            continue
        groups.setdefault((r.cell.suite, r.cell.driver_id), []).append(r)
    levels = []
    for (suite_name, driver), mine in sorted(groups.items()):
        suite = registry.SUITES[suite_name]
        names = [n for n in (suite.compared or (suite.primary,))]
        w, p, lay = _levels_of(mine)
        if not w:
            continue
        sample, shortest, fixed, nproc = [], [], [], 0
        for r in mine:
            per_metric = [
                float(np.median([v for s in r.metrics[n].rounds.values() for v in s]))
                * r.metrics[n].iters
                / 1e9
                for n in names
                if n in r.metrics and r.metrics[n].kind == "samples"
            ]
            if not per_metric:
                continue
            sample.append(sum(per_metric))
            shortest.append(min(per_metric))
            m = samples_of.get(suite_name, DIM_SAMPLES)
            for _, wall in walls.get(r.cell.key, []):
                fixed.append(max(0.0, wall - m * sum(per_metric)))
                nproc += 1
        m_dim = samples_of.get(suite_name, DIM_SAMPLES)
        w2 = float(np.mean(w))
        # A process's median of m samples carries (pi/2) s_w^2 / m of the samples' noise:
        # what the processes' spread shows beyond it is theirs.
        p2 = max(0.0, float(np.mean(p)) - MEDIAN_EFFICIENCY * w2 / m_dim)
        levels.append(
            choose(
                suite_name,
                driver,
                cells=len(mine),
                processes=nproc,
                within=math.sqrt(w2),
                between=math.sqrt(p2),
                layouts=math.sqrt(float(np.mean(lay))),
                sample_s=float(np.median(sample)),
                shortest_s=float(np.median(shortest)),
                process_s=float(np.median(fixed)),
                measured_samples=m_dim,
            )
        )
    return levels


# -- the stored design -----------------------------------------------------------------------


@dataclass(frozen=True)
class Design:
    run_uid: str | None
    levels: dict[tuple[str, str], Level]

    def level(self, suite: str, driver: str) -> Level | None:
        return self.levels.get((suite, driver))

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "run": self.run_uid,
            "rule": {
                "min_sample_s": MIN_SAMPLE_S,
                "max_factor": MAX_FACTOR,
                "samples": [MIN_SAMPLES, MAX_SAMPLES],
            },
            "levels": [asdict(v) for _, v in sorted(self.levels.items())],
        }

    @staticmethod
    def from_json(d: dict) -> Design:
        if d.get("format") != FORMAT:
            raise ValueError(f"design format {d.get('format')!r}, expected {FORMAT}")
        levels = {(v["suite"], v["driver"]): Level(**v) for v in d["levels"]}
        return Design(d.get("run"), levels)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _secs(x: float) -> str:
    return f"{1000 * x:.1f} ms" if x < 1 else f"{x:.2f} s"


def table(design: Design) -> list[str]:
    """The design as a Markdown table: what each level showed, what it costs, and the
    choice."""
    lines = [
        "| suite | driver | cells | processes | within a process | between processes "
        "| between layouts | a sample | a process beside its samples | iterations x "
        "| samples | a process's SD | a process's cost |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (_, _), v in sorted(design.levels.items()):
        lines.append(
            f"| {v.suite} | {v.driver} | {v.cells} | {v.processes} | {_pct(v.within)} "
            f"| {_pct(v.between)} | {_pct(v.layouts)} | {_secs(v.sample_s)} "
            f"| {_secs(v.process_s)} | {v.iters_factor} | {v.samples} "
            f"| {_pct(v.per_process)} | {_secs(v.process_cost)} |"
        )
    return lines


# docs/methodology.md shows the design between these lines, written by `wirebench design`
# (tests/test_design.py holds it to docs/data/design.json).
METHODOLOGY = DOCS / "methodology.md"
BEGIN = "<!-- design: generated by `wirebench design` from docs/data/design.json; never edit -->"
END = "<!-- end of design -->"


def render_into(text: str, design: Design) -> str:
    """`text` (docs/methodology.md) with the design's table between BEGIN and END."""
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"{METHODOLOGY.name} has no design block ({BEGIN} ... {END})")
    block = [
        "",
        f"From the dimensioning run `{design.run_uid}` (docs/data/design-run.json.gz): the "
        "relative standard deviations at each level, the costs, and the choice.",
        "",
        *table(design),
        "",
    ]
    return head + BEGIN + "\n".join(block) + "\n" + END + tail


def save(design: Design, path: Path = DESIGN_FILE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(design.to_json(), indent=1, sort_keys=True) + "\n")


def load(path: Path | None = None) -> Design | None:
    """The design plans use: `path`, or $WIREBENCH_DESIGN (`none`: no design), or
    DESIGN_FILE; None where there is none (every plan keeps its profile's counts)."""
    if path is None:
        named = os.environ.get("WIREBENCH_DESIGN")
        if named == "none":
            return None
        path = Path(named) if named else DESIGN_FILE
    if not path.exists():
        return None
    return Design.from_json(json.loads(path.read_text()))


def for_entry(design: Design | None, suite: str, driver: str) -> tuple[int, int] | None:
    """(iterations factor, samples) of a quick-profile cell of `driver` in `suite`; None:
    the design has no level for it (the profile's counts stand)."""
    level = design.level(suite, driver) if design else None
    return None if level is None else (level.iters_factor, level.samples)


def estimate(design: Design | None, entries, overhead_s: float = 0.0) -> float:
    """Seconds the timed processes of plan entries (PlanEntry) take by the design's costs:
    a process's fixed cost and its samples, scaled by its iterations against the quick
    profile's. A cell the design has no level for costs its driver's median process (or
    the design's). NaN without a design."""
    if design is None or not design.levels:
        return math.nan
    every = [v.process_cost for v in design.levels.values()]
    total = 0.0
    for e in entries:
        c = e.cell
        level = design.level(c.suite, c.base_driver_id)
        if level is None:
            mine = [v.process_cost for v in design.levels.values() if v.driver == c.base_driver_id]
            each = float(np.median(mine or every))
        else:
            base = registry.of(c).iters_for("quick", c.case, c.param)
            each = level.process_s + e.samples * level.sample_s * e.iters / max(1, base)
        total += e.reps * (each + overhead_s)
    return total
