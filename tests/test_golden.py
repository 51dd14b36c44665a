"""Golden messages: every built driver decodes every language's files in testdata/golden/.

Each language writes the first requests of each case, and its server's responses, in
each wire format (`DRIVER golden write DIR`); every other language must read them and
reach the same answers (`DRIVER golden check DIR`). A library upgrade that changes what
a driver writes shows up in that driver's own tests, which compare against its files.
"""

import json
import subprocess

import pytest

from wirebench import drivers

from .conftest import REQUIRE_DRIVERS

GOLDEN = drivers.ROOT / "testdata" / "golden"
WRITERS = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
# Every driver when they are required (a missing one fails below), else the built ones.
READERS = (
    list(drivers.DRIVERS)
    if REQUIRE_DRIVERS
    else [name for name, d in drivers.DRIVERS.items() if d.is_built()]
)


def test_every_language_has_golden_files_and_some_reader():
    assert set(WRITERS) >= {"cpp", "rust", "go", "java"}
    if not READERS:
        pytest.skip("no driver is built: `wirebench build`")


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("reader", READERS)
def test_every_language_reads_every_language(reader, writer):
    assert drivers.DRIVERS[reader].is_built(), f"the {reader} driver is not built"
    proc = subprocess.run(
        [str(drivers.DRIVERS[reader].path), "golden", "check", str(GOLDEN / writer)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"{reader} reading {writer}'s files: {proc.stderr}"
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    checked = [r for r in lines if r.get("ok")]
    assert checked, f"{reader} checked none of {writer}'s files"
    assert all(r.get("ok") or r.get("skipped") for r in lines)
