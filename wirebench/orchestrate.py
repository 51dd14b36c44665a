"""Runs and reports as operations, for the command line and anything else that drives
wirebench (an HTML report, an export): plan a run from filters, start or resume it,
execute it with progress callbacks, and build its report. Nothing here prints."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from . import (
    ab,
    adaptive,
    claims,
    comparisons,
    design,
    drivers,
    env,
    instructions,
    library_variants,
    matrix,
    registry,
    report,
    runner,
)
from .cells import DEFAULT_BUILD, MAX_LAYOUTS, Cell, Plan, PlanEntry, builds_asked
from .profiles import DEFAULT_PROFILE, PROFILES, Profile
from .suite import signature


class RunError(ValueError):
    """The request cannot become a run: a bad filter, driver or run id (a usage error)."""


@dataclass(frozen=True)
class Request:
    """What the user asked `wirebench run` for."""

    filters: dict[str, str | None]  # filter name -> comma list as typed
    profile: str
    reps: int | None = None
    samples: int | None = None
    iters: int | None = None
    timeout: float | None = None
    memory_limit: int | None = None  # bytes (RLIMIT_AS); 0: none; None: the default
    pairs: str | None = None  # --pair CLIENT:SERVER,...
    no_pairs: bool = False
    no_limits: bool = False
    measure: str = "time"  # time | instructions | all (both)
    twins: int = 0  # A/A twins per suite and language (the noise floor)
    headline: bool = False  # only the cells each suite puts in the headline run
    until: float | None = None  # adaptive repetition: the headline width to reach (adaptive.py)
    budget: float | None = None  # seconds the run may take with its added rounds
    layouts: int | None = None  # layout variants per native driver; None: DEFAULT_LAYOUTS
    address_seeds: int = 0  # seeded address placements (processes.py); 0: randomised
    claims: Path | None = None  # only the cells these claims compare (claims.py)
    with_: tuple[str, ...] = ()  # library variants, LANG:NAME=SOURCE (library_variants.py)
    ab: tuple[str, ...] = ()  # an A/B run's sides: B, or A and B (ab.py)
    designed: bool = True  # the quick profile's counts from the machine's design (design.py)
    quiet: bool = True  # the quiet gate (runner.QuietGate)

    @cached_property
    def parsed(self) -> dict[str, frozenset[str] | None]:
        """The filters, parsed once for the whole run; RunError names a bad one. An A/B
        run's builds are its sides'."""
        if self.ab and self.filters.get("build"):
            raise RunError("--ab sets the builds (its sides'): leave out --build")
        try:
            parsed = {k: matrix.parse_filter(k, self.filters.get(k)) for k in matrix.FILTER_NAMES}
        except matrix.MatrixError as e:
            raise RunError(str(e)) from None
        if self.ab:
            parsed["build"] = frozenset(ab.builds(self.ab))
        return parsed


def layouts(req: Request, names: list[str], rounds: int = 0) -> dict[str, int]:
    """K per driver of the plan: --layouts for every driver that has variants, or by
    default a variant of its own for each of the plan's `rounds` (at most MAX_LAYOUTS),
    which a second stage grows with the rounds it adds (Plan.fresh_layouts). Rounds that
    share a variant share its layout's effect (one binary's layout moved byte loops by
    10-30% and rpc and codec cells by up to 5% in the dimensioning experiment,
    docs/methodology.md, "Layout variants"): an interval's unit is then the variant, not
    the round (stats.clustered_mean), and a plan that reused six variants for forty rounds
    would rest on six rounds' worth of layouts. An A/B's two sides are different binaries,
    each moved its own way by its variant k: the same holds. A variant costs a link per
    driver (and side), nothing at run time. Drivers without variants (the JVM places its
    compiled code anew in every process) are left out (K = 1)."""
    out = {}
    for name in names:
        d = drivers.get(name)
        k = req.layouts if req.layouts is not None else min(rounds, MAX_LAYOUTS)
        if d.layouts and k > 1:
            out[name] = k
    return out


def selected_drivers(req: Request) -> list[str]:
    """The drivers a request needs (validating its filters and pairs on the way)."""
    parsed = req.parsed
    try:
        pairs = matrix.parse_pairs(req.pairs)
        for name in {x for p in pairs or () for x in p}:
            drivers.get(name)
    except (matrix.MatrixError, drivers.DriverError) as e:
        raise RunError(str(e)) from None
    langs, toolchains = parsed["lang"], parsed["toolchain"]
    for name, wanted, known in (
        ("language", langs, {d.lang for d in drivers.DRIVERS.values()}),
        ("toolchain", toolchains, {d.toolchain for d in drivers.DRIVERS.values()}),
    ):
        if wanted and not wanted <= known:
            raise RunError(
                f"unknown {name} {', '.join(repr(u) for u in sorted(wanted - known))}; "
                f"known: {', '.join(sorted(known))}"
            )
    chosen = [
        name
        for name, d in drivers.DRIVERS.items()
        if (langs is None or d.lang in langs) and (toolchains is None or d.toolchain in toolchains)
    ]
    return sorted(set(chosen) | {x for p in pairs or () for x in p})


def selected_builds(req: Request) -> list[str]:
    """The build profiles a request runs (stock unless --build says otherwise)."""
    return builds_asked(req.parsed["build"])


def plan(req: Request, names: list[str]) -> Plan:
    """The plan of a request over built drivers. Raises RunError naming what is wrong."""
    parsed = req.parsed
    try:
        first = selected_builds(req)[0]  # every build lists the same cells
        listed = {name: list(drivers.list_cells(name, first)) for name in names}
        cells = matrix.expand(
            listed,
            parsed,
            include_limits=not req.no_limits,
            pairs=matrix.parse_pairs(req.pairs),
            profile=None if req.no_pairs else req.profile,
            identities={name: drivers.get(name).identity for name in names},
        )
    except (matrix.MatrixError, drivers.DriverError) as e:
        raise RunError(str(e)) from None
    if req.headline or req.claims:
        chosen = headline(cells, listed) if req.headline else []
        if req.claims:
            try:
                patterns = claims.cell_patterns(claims.load(req.claims))
            except claims.ClaimError as e:
                raise RunError(str(e)) from None
            chosen += [
                c for c in cells if c not in chosen and any(claims.matches(c, p) for p in patterns)
            ]
        cells = chosen
    if req.measure != "time" and shutil.which("valgrind") is None:
        raise RunError("--measure instructions needs valgrind: apt-get install -y valgrind")
    if req.measure == "instructions":
        # An instruction run of a driver valgrind cannot count would be empty: say why.
        cells = [c for c in cells if countable(c)]
        if not cells:
            why = "; ".join(f"{k}: {v}" for k, v in instructions.NOT_COUNTED.items())
            raise RunError(f"the filters select no cell whose instructions are counted ({why})")
    if req.budget is not None and req.until is None:
        raise RunError("--budget bounds the rounds --until adds: give --until too")
    if req.until is not None and req.measure != "time":
        raise RunError(
            "--until adds timed rounds; instruction counts repeat exactly and need none: "
            "use --measure time with it"
        )
    reps = req.reps
    if req.until is not None:
        if reps is not None and reps < adaptive.PILOT:
            raise RunError(
                f"--until sizes its second stage from a pilot of at least {adaptive.PILOT} "
                f"rounds: --repeat {reps} is too few"
            )
        reps = max(reps or 0, adaptive.PILOT)
    if req.layouts is not None and req.layouts < 1:
        raise RunError(f"--layouts takes a number of variants, 1 or more, not {req.layouts}")
    if req.address_seeds < 0:
        raise RunError(
            f"--address-seeds takes a number of seeds, 0 or more, not {req.address_seeds}"
        )
    cells += twins(cells, req.twins)
    variants = chosen_variants(req, names)
    for v in variants:
        cells += variant_cells(cells, v)
    sides = ()
    if req.ab:
        try:
            sides = ab.sides(req.ab)
            cells = ab.keep(cells, *sides)
        except ab.ABError as e:
            raise RunError(str(e)) from None
    the_plan = make_plan(
        cells,
        PROFILES[req.profile],
        reps,
        req.samples,
        req.iters,
        req.timeout,
        req.measure,
        designed=req.designed,
    )
    limit = the_plan.memory_limit if req.memory_limit is None else req.memory_limit or None
    if req.until is not None and req.budget and req.designed and req.profile == DEFAULT_PROFILE:
        pilot = adaptive.size_pilot(the_plan.entries, design.load(), req.budget)
        the_plan = replace(the_plan, entries=pilot)
    return replace(
        the_plan,
        until=req.until,
        budget=req.budget,
        memory_limit=limit,
        fresh_layouts=req.layouts is None,
        layouts=layouts(
            req,
            sorted({n for n, _ in the_plan.builds}),
            max((e.reps for e in the_plan.entries), default=0),
        ),
        address_seeds=req.address_seeds,
        library_variants={v.label: v.to_json() for v in variants},
        ab=tuple(s.to_json() for s in sides),
        quiet=req.quiet and req.measure != "instructions",
    )


def dimensioning(names: list[str], filters: dict[str, str | None] | None = None) -> Plan:
    """The dimensioning run's plan (design.py): per suite and driver, DIM_CELLS of its
    headline cells spread through them, at the quick profile's own counts (not a design's),
    DIM_REPS processes of DIM_SAMPLES samples over DIM_LAYOUTS layouts each."""
    req = Request(
        filters=filters or {},
        profile=DEFAULT_PROFILE,
        reps=design.DIM_REPS,
        samples=design.DIM_SAMPLES,
        headline=True,
        no_limits=True,
        no_pairs=True,
        layouts=design.DIM_LAYOUTS,
        designed=False,
    )
    the_plan = plan(req, names)
    groups: dict[tuple, list[PlanEntry]] = {}
    for e in the_plan.entries:
        if e.cell.server_lang in (None, e.cell.lang):
            groups.setdefault((e.cell.suite, e.cell.driver_id), []).append(e)
    kept = []
    for group in groups.values():
        n = min(design.DIM_CELLS, len(group))
        kept += [group[(2 * i + 1) * len(group) // (2 * n)] for i in range(n)]
    return replace(the_plan, entries=tuple(kept))


def chosen_variants(req: Request, names: list[str]) -> list[library_variants.Variant]:
    """The request's library variants (--with, and --ab's), each registered as a driver
    (drivers.get)."""
    out: dict[str, library_variants.Variant] = {}
    for spec in dict.fromkeys((*req.with_, *ab.variant_texts(req.ab, names))):
        try:
            v = library_variants.parse(spec)
        except library_variants.VariantError as e:
            raise RunError(str(e)) from None
        if v.lang not in names:
            raise RunError(f"--with {spec!r}: the run has no {v.lang} cells (see --lang)")
        if v.label in out:
            raise RunError(f"--with {spec!r}: a second variant labelled {v.label}")
        out[v.label] = v
        library_variants.add(v)
    return list(out.values())


def variant_cells(cells: list[Cell], v: library_variants.Variant) -> list[Cell]:
    """The variant's cells: the run's cells of its base driver (in one language: a pipe
    cell's server is the variant too) of the library it names, or, if the driver has no
    library of that name (a crate another library uses), all of them."""
    mine = [
        c
        for c in cells
        if c.driver_id == v.lang
        and c.server_lang in (None, c.lang)
        and not registry.of(c).accompanies_every_run
        and "twin" not in c.param
    ]
    chosen = [c for c in mine if c.lib == v.name] or mine
    if not chosen:
        raise RunError(f"--with {v.lang}:{v.name}: the filters select no {v.lang} cell for it")
    return [c.with_param("variant", v.label) for c in chosen]


def headline(cells: list[Cell], listed: dict[str, list[dict]]) -> list[Cell]:
    """The cells each suite puts in the headline run (Suite.headline)."""
    firsts = set()  # the signature of each library's first listed cell, per case
    for entries in listed.values():
        seen = set()
        for e in entries:
            if signature(e)[:3] not in seen:
                seen.add(signature(e)[:3])
                firsts.add(signature(e))
    return [
        c
        for c in cells
        if registry.of(c).headline(
            c, signature({**c.to_json(), "params": registry.of(c).driver_params(c.param)}) in firsts
        )
    ]


def twins(cells: list[Cell], per: int) -> list[Cell]:
    """A/A twins: for each suite and language, `per` of its cells (evenly spread through
    them in reading order) measured again as `twin=b`, back to back with it."""
    groups: dict[tuple, list[Cell]] = {}
    for c in cells:
        if not registry.of(c).accompanies_every_run and c.server_lang in (None, c.lang):
            groups.setdefault((c.suite, c.lang, c.toolchain, c.build), []).append(c)
    out = []
    for group in groups.values():
        n = min(per, len(group))
        for i in range(n):
            out.append(group[(2 * i + 1) * len(group) // (2 * n)].with_param("twin", "b"))
    return out


def countable(cell: Cell) -> bool:
    """Whether valgrind counts the cell's instructions (native drivers only)."""
    return registry.of(cell).countable and not {cell.lang, cell.server_lang} & set(
        instructions.NOT_COUNTED
    )


def make_plan(
    cells: list[Cell],
    profile: Profile,
    reps=None,
    samples=None,
    iters=None,
    timeout=None,
    measure="time",
    designed=True,
) -> Plan:
    """Each cell's processes: timed ones (measure time or all) and one instruction count
    (instructions or all) where the cell's drivers can be counted."""
    timed = measure in ("time", "all")
    # The quick profile's samples and sample lengths are the machine's design (design.py),
    # where one was made and --samples and --iters leave them alone.
    chosen = design.load() if designed and profile.name == DEFAULT_PROFILE else None
    entries = []
    for cell in cells:
        suite = registry.of(cell)
        # --iters sizes the suites' own cells; the limits keep the profile's byte budget,
        # or a 64MiB memcpy block would copy iters x 64MiB.
        n = None if suite.accompanies_every_run else iters
        n = n or suite.iters_for(profile.name, cell.case, cell.param)
        m = samples or suite.samples_for(profile.name, cell.case) or profile.samples
        level = design.for_entry(chosen, cell.suite, cell.base_driver_id)
        if level and not suite.accompanies_every_run:
            n = n if iters else n * level[0]
            m = m if samples else level[1]
        warmup = suite.warmup_for(profile.name, cell.case, n)
        entries.append(
            PlanEntry(
                cell,
                n,
                m,
                profile.warmup_for(n) if warmup is None else warmup,
                (reps or profile.reps) if timed else 0,
                instructions=measure != "time" and countable(cell),
            )
        )
    used = chosen is not None and not (samples and iters)
    return Plan(
        profile.name,
        timeout or profile.timeout,
        tuple(entries),
        design=chosen.run_uid if used else None,
    )


def provenance(the_plan: Plan) -> dict:
    """This machine's provenance of a plan: its code, drivers, builds and layouts."""
    suites_run = {registry.of(e.cell).name: registry.of(e.cell) for e in the_plan.entries}
    prov = env.provenance(the_plan.builds, suites_run.values(), the_plan.variants)
    if the_plan.library_variants:
        prov["library_variants"] = {
            label: library_variants.describe(library_variants.Variant.from_json(spec))
            for label, spec in the_plan.library_variants.items()
        }
    return prov


def start(store, req: Request, the_plan: Plan, command: str) -> int:
    return store.create_run(req.profile, command, the_plan, provenance(the_plan))


def resume(store, run_id: int) -> tuple[Plan, str | None]:
    """The stored plan of a run to finish, and a warning if the tree has moved since."""
    row = store.run(run_id)
    if row is None:
        raise RunError(f"no run {run_id} in {store.name}; `wirebench runs` lists them")
    provenance = json.loads(row["provenance"])
    for suite in registry.SUITES.values():
        suite.recall((provenance.get("suites") or {}).get(suite.name) or {})
    the_plan = store.plan(run_id)
    for spec in the_plan.library_variants.values():
        library_variants.add(library_variants.Variant.from_json(spec))
    then = (provenance.get("git") or {}).get("revision")
    now = env.git_state()["revision"]
    warning = None
    if then != now:
        warning = (
            f"run {run_id} started at git {str(then)[:12]}, the tree is now at "
            f"{str(now)[:12]}; the finished and the new processes may differ"
        )
    return the_plan, warning


def executables(the_plan: Plan) -> dict:
    """The executable of every (driver, build, layout variant) the plan starts."""
    return {(n, b, k): drivers.get(n).variant_path(b, k) for n, b, k in the_plan.variants}


def pending(store, run_id: int, the_plan: Plan) -> list:
    """The processes the plan still lacks, in running order."""
    return runner.pending(store, run_id, the_plan, executables(the_plan))


def execute(
    store, run_id: int, the_plan: Plan, progress, on_round=None, broken=None, build=None
) -> str:
    """Runs what the plan still lacks, and the rounds adaptive repetition adds; the run's
    final status (complete, interrupted). `broken`: {driver: why} for drivers that did not
    build (a library variant), whose cells become error rows; `build(plan)` builds the
    layout variants a second stage adds."""

    def prepare(grown: Plan) -> dict:
        if build is not None:
            build(grown)
        return executables(grown)

    return runner.run_plan(
        store,
        run_id,
        the_plan,
        executables(the_plan),
        progress,
        identities(the_plan),
        on_round,
        broken,
        prepare,
    )


def identities(the_plan: Plan) -> runner.Identities:
    """Who each executable of the plan must say it is in its results (and of every
    variant a second stage may add to it)."""
    if the_plan.fresh_layouts:
        the_plan = replace(the_plan, layouts=dict.fromkeys(the_plan.layouts, MAX_LAYOUTS))
    return {
        exe: {"lang": drivers.get(n).lang, "toolchain": drivers.get(n).toolchain}
        for (n, _, _), exe in executables(the_plan).items()
    }


def build_report(store, run_id: int | None, compare=None, against=None) -> report.Report:
    row = store.run(run_id)
    if row is None:
        raise RunError(
            f"no run {run_id} in {store.name}; `wirebench runs` lists them"
            if run_id
            else f"no runs in {store.name} yet"
        )
    try:
        return report.build(store, row["id"], compare=compare, against=against)
    except comparisons.CompareError as e:
        raise RunError(str(e)) from None


def catalogue() -> dict:
    """What wirebench can measure, and which drivers are built here (`wirebench list`)."""
    found = {}
    for name, d in drivers.DRIVERS.items():
        entry = {
            "lang": d.lang,
            "toolchain": d.toolchain,
            "built": d.is_built(),
            "executable": d.profile(DEFAULT_BUILD).executable,
            "builds": {
                b: {"built": d.is_built(b), "executable": spec.executable, "flags": spec.flags}
                for b, spec in d.builds.items()
            },
            "missing": d.missing(),
        }
        if d.is_built():
            try:
                cells = drivers.list_cells(name)
                entry["libs"] = sorted({c["lib"] for c in cells})
                entry["cells"] = len(cells)
                entry["versions"] = drivers.info(name).get("versions", {})
            except drivers.DriverError as e:
                entry["error"] = str(e)
        found[name] = entry
    return {
        "suites": {
            s.name: {
                "description": s.description,
                "cases": s.cases,
                "params": {p.name: list(p.values) for p in s.params},
                "metrics": {m.name: f"{m.kind}, {m.unit}: {m.help}" for m in s.metrics},
            }
            for s in registry.SUITES.values()
        },
        "params": {k: list(v) for k, v in registry.all_params().items()},
        "profiles": {p.name: p.description for p in PROFILES.values()},
        "drivers": found,
    }
