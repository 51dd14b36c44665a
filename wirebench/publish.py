"""docs/results.md, made by wirebench from published runs, never written by hand.

`wirebench publish RUN --as NAME` archives a stored run as docs/data/NAME.json.gz
(archive.py: its rows, uid, revision, host and command). `wirebench results` renders
docs/results.md.j2 over those archives and the seed claims (docs/claims.toml, judged by
claims.py); `--check` says whether the committed document is what the data make, as a
test does on every change. The template's prose explains; every number in it comes from
a function below, from one run, with its interval:

- `run(name)`: the run's uid, revision, host, date, command and report header lines;
- `tables(name, suite=..., title=...)`: the tables of the run's report, as Markdown;
- `ratio(name, a, b, metric)`: a/b of two cells of the run (claims.find patterns),
  paired by round, with its 95% interval; cells of different build profiles are refused;
- `median(name, a, metric)`: one cell's median with its interval;
- `claims()`: every seed claim with the figure that tests it and its verdict;
- `compare(before, after, by=None)`: what changed between two published runs
  (`published(name)`: whether a run of that name is there); with `by`, one table grouped
  by a parameter (compare.summary);
- `ab(name, by="mode")`: a published A/B run's B against its A, grouped likewise;
- `fuzzing()`: the last long fuzz run (`make fuzz-long`, its results/fuzz-executions.tsv
  copied to data/): its revision and budget, and per language the executions per target.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from . import ab, archive, claims, compare, env, model, report
from .paths import DOCS

DATA = DOCS / "data"
CLAIMS = DOCS / "claims.toml"
FUZZ = "fuzz-executions.tsv"
TEMPLATE = DOCS / "results.md.j2"
OUTPUT = DOCS / "results.md"
CHARTS = DOCS / "charts"  # the charts results.md shows, written by `wirebench results`


class PublishError(ValueError):
    pass


def publish(
    store, run_id: int, name: str, data: Path = DATA, allow_dirty: bool = False
) -> tuple[Path, str]:
    """Archives the run as data/NAME.json.gz, the one it replaces as NAME-before (the
    results compare them); returns the file and the run's uid. A run of a tree with
    uncommitted changes is refused unless `allow_dirty`: nobody could rebuild what it
    measured."""
    if not name.replace("-", "").isalnum():
        raise PublishError(f"a published run's name is letters, digits and '-', not {name!r}")
    run = store.run(run_id)
    if run is None:
        raise PublishError(f"no run {run_id} in {store.name}")
    if run["status"] != "complete":
        raise PublishError(f"run {run_id} is {run['status']}: publish a complete run")
    git = (json.loads(run["provenance"] or "{}") or {}).get("git") or {}
    if git.get("dirty") and not allow_dirty:
        raise PublishError(
            f"run {run_id} measured a tree with uncommitted changes (revision "
            f"{(git.get('revision') or 'unknown')[:12]}): nobody can rebuild what it "
            "measured; rerun it from a clean tree, or publish it anyway with --allow-dirty"
        )
    path = data / f"{name}.json.gz"
    republished = path.exists() and archive.uid(path) == run["uid"]
    if path.exists() and not republished and not name.endswith("-before"):
        path.replace(data / f"{name}-before.json.gz")  # the document compares the two
    tree = env.code_tree(git["revision"]) if git.get("revision") else None
    return path, archive.write(store, run_id, path, tree)


def _md_table(t: model.Table) -> str:
    out = [f"**{t.title}**", "", "| " + " | ".join(t.headers) + " |"]
    out.append("|" + "|".join("---" for _ in t.headers) + "|")
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in t.rows]
    return "\n".join(out)


class Published:
    """The archives of data/ and the functions the template calls on them."""

    def __init__(self, data: Path = DATA, claims_path: Path = CLAIMS):
        self.charts: dict[str, bytes] = {}  # what chart() showed, by file name
        self.data = data
        self.claims_path = claims_path
        self._stores: dict[str, tuple] = {}

    def _open(self, name: str):
        if name not in self._stores:
            path = self.data / f"{name}.json.gz"
            if not path.exists():
                raise PublishError(f"no published run {name!r} ({path} does not exist)")
            self._stores[name] = archive.read(path)
        return self._stores[name]

    @functools.cache  # noqa: B019 (one Published per rendering)
    def report(self, name: str) -> report.Report:
        store, run_id = self._open(name)
        return report.build(store, run_id, attachments=False)

    @functools.cache  # noqa: B019 (one Published per rendering)
    def attachments(self, name: str) -> dict[str, bytes]:
        store, run_id = self._open(name)
        return report.build(store, run_id).attachments

    def chart(self, name: str, file: str, alt: str) -> str:
        """A chart of a published run's report, kept as docs/charts/<name>-<file> (the
        caller writes `charts`), and its Markdown image."""
        data = self.attachments(name).get(file)
        if data is None:
            raise PublishError(f"run {name!r} has no chart {file!r}")
        self.charts[f"{name}-{file}"] = data
        return f"![{alt}]({CHARTS.name}/{name}-{file})"

    def results(self, name: str) -> list[model.CellResult]:
        return self.report(name).results

    def run(self, name: str) -> dict:
        rep = self.report(name)
        git = rep.provenance.get("git") or {}
        tree = git.get("code_tree")
        if git.get("dirty"):
            drivers = "uncommitted changes when it ran"
        elif not tree:
            drivers = "not recorded (published before wirebench recorded it)"
        elif tree == env.code_tree():
            drivers = "the checkout's"
        else:
            drivers = "not the checkout's (drivers/ or schemas/ changed since)"
        return {
            "name": name,
            "uid": rep.run["uid"],
            "revision": (git.get("revision") or "unknown")[:12]
            + (" (dirty)" if git.get("dirty") else ""),
            "host": rep.provenance.get("host"),
            "drivers": drivers,  # its drivers' code against the checkout's (env.DRIVER_CODE)
            "started": rep.run["started"],
            "finished": rep.run["finished"],
            "command": rep.run["command"],
            "header": report.header_lines(rep),
        }

    def published(self, name: str) -> bool:
        return (self.data / f"{name}.json.gz").exists()

    def tables(self, name: str, suite: str | None = None, title: str | None = None) -> str:
        chosen = [
            t
            for t in self.report(name).tables
            if (suite is None or t.suite == suite) and (title is None or t.title.startswith(title))
        ]
        if not chosen:
            raise PublishError(f"run {name!r} has no table of suite={suite!r} title={title!r}")
        return "\n\n".join(_md_table(t) for t in chosen)

    def ratio(self, name: str, a: str, b: str, metric: str = "time") -> str:
        ra, rb = claims.find(self.results(name), a), claims.find(self.results(name), b)
        claims.comparable(ra.cell, rb.cell)
        return model.ratio(ra.metric(metric), rb.metric(metric)).text()

    def median(self, name: str, a: str, metric: str = "time") -> str:
        r = claims.find(self.results(name), a)
        m = r.metric(metric)
        return model.fmt_summary(r.summary(metric), m.unit)

    def claims(self) -> list[claims.Verdict]:
        return [
            claims.judge(c, self.results(c.run) if c.unmeasurable is None else [])
            for c in claims.load(self.claims_path)
        ]

    def compare(self, before: str, after: str, by: str | None = None) -> str:
        base, run = (compare.run_side(*self._open(n)) for n in (before, after))
        c = compare.compare(base, run)
        return compare.summary(c, by) if by else compare.markdown(c)

    def ab(self, name: str, by: str = "mode") -> str:
        store, run_id = self._open(name)
        plan = store.plan(run_id)
        if not plan.ab:
            raise PublishError(f"run {name!r} is not an A/B run (wirebench run --ab)")
        row = store.run(run_id)
        c = ab.comparison(self.results(name), dict(row), json.loads(row["provenance"]), plan.ab)
        return compare.summary(c, by)


def fuzzing(data: Path = DATA) -> str:
    """data/fuzz-executions.tsv as its first line (revision, host, budget) and a table per
    language: targets, the fewest and most executions (which target) and their total."""
    path = data / FUZZ
    if not path.exists():
        raise PublishError(f"no long fuzz run published ({path} does not exist)")
    lines = path.read_text().splitlines()
    if not lines or not lines[0].startswith("# "):
        raise PublishError(f"{path}: the first line must name the revision (scripts/fuzz-long.sh)")
    about = dict(field.split("=", 1) for field in lines[0][2:].split())
    by_lang: dict[str, list[tuple[int, str]]] = {}
    for line in lines[1:]:
        tag, lang, target, execs, _ = line.split("\t")
        if tag != "fuzz-executions":
            raise PublishError(f"{path}: not a fuzz-executions line: {line!r}")
        by_lang.setdefault(lang, []).append((int(execs), target))
    out = [
        f"Revision {about['revision']}"
        + (" (dirty)" if about.get("dirty") == "yes" else "")
        + f" on {about['host']}, started {about['started']}: each target {about['seconds']} s,"
        " one fuzzer at a time.",
        "",
        "| language | targets | fewest executions | most executions | total |",
        "|---|---|---|---|---|",
    ]
    for lang, runs in by_lang.items():
        low, high = min(runs), max(runs)
        out.append(
            f"| {lang} | {len(runs)} | {low[0]:,} ({low[1]}) | {high[0]:,} ({high[1]}) "
            f"| {sum(n for n, _ in runs):,} |"
        )
    every = [n for runs in by_lang.values() for n, _ in runs]
    million = sum(n >= 1_000_000 for n in every)
    out += ["", f"{million} of {len(every)} targets reached 1M executions."]
    return "\n".join(out)


def render(data: Path = DATA, claims_path: Path = CLAIMS, template: Path = TEMPLATE) -> str:
    return render_all(data, claims_path, template)[0]


def render_all(
    data: Path = DATA, claims_path: Path = CLAIMS, template: Path = TEMPLATE
) -> tuple[str, dict[str, bytes]]:
    """The page and the charts it shows (docs/charts/, by file name)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template.parent),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # Markdown, not HTML
    )
    pub = Published(data, claims_path)
    context = {
        "run": pub.run,
        "tables": pub.tables,
        "ratio": pub.ratio,
        "median": pub.median,
        "claims": pub.claims,
        "seed_figure": claims.seed_figure,
        "compare": pub.compare,
        "ab": pub.ab,
        "published": pub.published,
        "fuzzing": lambda: fuzzing(data),
        "chart": pub.chart,
        "VERDICTS": claims.VERDICTS,
    }
    try:
        return env.get_template(template.name).render(**context), pub.charts
    except (claims.ClaimError, PublishError, archive.ArchiveError) as e:
        raise PublishError(f"{template.name}: {e}") from None
