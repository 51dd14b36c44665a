import dataclasses
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from wirebench import drivers

FAKE = Path(__file__).resolve().parent / "fake_driver.py"
FAKE_DRIVER = drivers.Driver(
    lang="fake",
    executable=str(FAKE),
    build=(),
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


@pytest.fixture
def fake(monkeypatch):
    """Registers the fake driver as the only language."""
    monkeypatch.setattr(drivers, "DRIVERS", {"fake": FAKE_DRIVER})
    drivers.info.cache_clear()
    drivers.list_cells.cache_clear()
    yield FAKE_DRIVER
    drivers.info.cache_clear()
    drivers.list_cells.cache_clear()


def launch(args, db, env=None, **kw):
    """Starts `wirebench ARGS --db DB` with the fake driver, in a child process."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCH, *args, "--db", str(db)],
        env=full_env,
        # A harness started from a background job inherits an ignored SIGINT (and then
        # Python installs no handler); the tests send it one, as Ctrl-C would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


@pytest.fixture
def two_fakes(monkeypatch):
    """Two fake languages (the same script), for cross-language pairs and comparisons."""
    second = dataclasses.replace(FAKE_DRIVER, lang="fake2")
    monkeypatch.setattr(drivers, "DRIVERS", {"fake": FAKE_DRIVER, "fake2": second})
    drivers.info.cache_clear()
    drivers.list_cells.cache_clear()
    yield
    drivers.info.cache_clear()
    drivers.list_cells.cache_clear()
