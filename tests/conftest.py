import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from wirebench import cells, cli, drivers, protocol, registry, suite
from wirebench.protocol import Metric

FAKE = Path(__file__).resolve().parent / "fake_driver.py"

# Tests plan at the profiles' own counts, whatever this machine's design of repetition
# (tests/test_design.py reads it explicitly), and without the quiet gate, which would
# wait for the other pytest worker to be idle (tests/test_runner.py tests the gate).
os.environ.setdefault("WIREBENCH_DESIGN", "none")
os.environ.setdefault("WIREBENCH_QUIET_GATE", "0")


def builds_at(executable, commands=()) -> dict[str, drivers.Build]:
    """Every build profile of a test driver: one executable (the fake is all of them)."""
    return {b: drivers.Build(str(executable), commands) for b in cells.BUILDS}


FAKE_DRIVER = drivers.Driver(
    lang="fake",
    toolchain="fakec",
    builds=builds_at(FAKE),
    tools=(),
    pkgconfig=(),
    install_hint="",
)

# Runs the CLI in a child process with the fake driver registered (used where a test
# must kill the harness itself).
LAUNCH = (
    "import sys; from wirebench import drivers, cli; "
    f"sys.path.insert(0, {str(FAKE.parent)!r}); from conftest import FAKE_DRIVER; "
    "drivers.DRIVERS.clear(); drivers.DRIVERS['fake'] = FAKE_DRIVER; "
    "sys.argv = ['wirebench'] + sys.argv[1:]; cli.main()"
)


# The test files that take longest, started first: `make test` runs two pytest workers,
# a file each at a time, and they then finish together (pytest-xdist's --dist loadfile
# --no-loadscope-reorder hands out files in collection order).
LONGEST_FIRST = (
    "test_conformance.py",
    "test_ci_workflow.py",
    "test_adding_a_library.py",
    "test_store_faults.py",
    "test_distributed.py",
)


def pytest_collection_modifyitems(items):
    def rank(item):
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: each file keeps its own order


# `make test` builds every driver first and sets this: a driver missing there is a failure,
# not a skip. Without it (pytest alone), tests of unbuilt drivers are skipped by name.
REQUIRE_DRIVERS = os.environ.get("WIREBENCH_REQUIRE_DRIVERS") == "1"


def built_drivers() -> list[str]:
    return [name for name, d in drivers.DRIVERS.items() if d.is_built()]


def need_driver(name: str):
    """A mark for tests of one real driver: skipped where it is not built, unless the
    drivers are required."""
    built = drivers.DRIVERS[name].is_built()
    return pytest.mark.skipif(
        not built and not REQUIRE_DRIVERS, reason=f"the {name} driver is not built"
    )


def _clear_caches():
    drivers.info.cache_clear()
    drivers.list_cells.cache_clear()


@pytest.fixture
def fake(monkeypatch):
    """Registers the fake driver as the only language."""
    monkeypatch.setattr(drivers, "DRIVERS", {"fake": FAKE_DRIVER})
    _clear_caches()
    yield FAKE_DRIVER
    _clear_caches()


@pytest.fixture
def run(fake, tmp_path):
    """`wirebench ARGS` in this process with the fake driver, on one database."""
    db = tmp_path / "w.db"

    def invoke(*args):
        return CliRunner().invoke(cli.main, [*args, "--db", str(db)])

    invoke.db = db
    return invoke


def launch(args, db, env=None, **kw):
    """Starts `wirebench ARGS --db DB` with the fake driver, in a child process."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCH, *args, "--db", str(db)],
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


@pytest.fixture
def two_fakes(monkeypatch, tmp_path):
    """Two fake languages (the same script under two names), for cross-language pairs and
    comparisons."""
    link = tmp_path / "fake2_driver.py"
    link.symlink_to(FAKE)
    second = dataclasses.replace(FAKE_DRIVER, lang="fake2", builds=builds_at(link))
    monkeypatch.setattr(drivers, "DRIVERS", {"fake": FAKE_DRIVER, "fake2": second})
    _clear_caches()
    yield
    _clear_caches()


class Probe(suite.Suite):
    """A suite for the tests only: a histogram metric, and an --out-dir whose files the
    harness measures itself (as the codec suite's compressed sizes will be)."""

    def inspect(self, task, result, fixtures):
        out = Path(fixtures["out_dir"])
        size = sum(f.stat().st_size for f in out.iterdir())
        return {"out_bytes": Metric("out_bytes", "B", "scalar", value=size)}


PROBE = Probe(
    name="probe",
    description="tests: histograms and fixtures",
    cases={"echo": "a latency histogram and an output file"},
    params=(suite.Param("size", ("small",), "sizes"),),
    metrics=(
        protocol.MetricSpec("time", "samples", "ns", "wall time"),
        protocol.MetricSpec("latency", "histogram", "ns", "per operation"),
    ),
    fixtures=("out_dir",),
    iters={"quick": {"echo": 3}, "standard": {"echo": 3}},
)


@pytest.fixture
def probe_suite(monkeypatch):
    monkeypatch.setitem(registry.SUITES, "probe", PROBE)
    yield PROBE


# -- PostgreSQL ---------------------------------------------------------------------------

# The session's server, as a worker in a network namespace of its own reaches it: its
# Unix socket's folder and port (set by postgres_server).
PG_SOCKET: dict[str, str] = {}


@pytest.fixture(scope="session")
def postgres_server():
    """A throwaway PostgreSQL cluster (Debian's) on loopback for the session: initdb into a
    temporary directory, trust authentication, a free port; the base URL, without a
    database. As root it runs as the postgres user (PostgreSQL refuses root)."""
    import glob
    import shutil
    import socket
    import tempfile

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        if REQUIRE_DRIVERS:
            pytest.fail("PostgreSQL is not installed: scripts/setup.sh installs it")
        pytest.skip("PostgreSQL is not installed (scripts/setup.sh installs it)")
    bindir = Path(found[-1]).parent
    home = Path(tempfile.mkdtemp(prefix="wirebench-pg-"))
    as_postgres = []
    if os.geteuid() == 0:
        shutil.chown(home, "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = home / "data"

    def pg(*args):
        return subprocess.run([*as_postgres, *map(str, args)], capture_output=True, text=True)

    done = pg(bindir / "initdb", "-D", data, "-A", "trust", "-U", "wirebench", "--no-sync")
    assert done.returncode == 0, done.stderr
    options = f"-k {home} -h 127.0.0.1 -p {port} -F"
    done = pg(bindir / "pg_ctl", "-D", data, "-w", "-l", home / "log", "-o", options, "start")
    assert done.returncode == 0, done.stdout + done.stderr
    PG_SOCKET.update(dir=str(home), port=str(port))
    yield f"postgresql://wirebench@127.0.0.1:{port}"
    pg(bindir / "pg_ctl", "-D", data, "-m", "immediate", "stop")
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server):
    """A fresh database of the session's server for one test."""
    import uuid

    import psycopg

    name = f"t{uuid.uuid4().hex[:12]}"
    with psycopg.connect(f"{postgres_server}/postgres", autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")
    return f"{postgres_server}/{name}"
