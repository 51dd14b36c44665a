"""docs/adding-a-suite.md, followed in a copy of the harness: a suite is its module in
wirebench/suites/ and its line in the registry, and nothing else in the harness. The
copy gets exactly those (a throwaway suite, `probe`, which the fake driver runs), and a
real `wirebench run` of it lists, runs, judges, stores and reports its cells."""

import json
import os
import shutil
import subprocess
import sys

from wirebench import paths

from .conftest import FAKE

SUITE_MODULE = '''"""Suite probe: a throwaway suite (tests/test_adding_a_suite.py)."""

from ..protocol import MetricSpec
from ..suite import Param, Suite

SUITE = Suite(
    name="probe",
    description="a latency histogram and an output file",
    cases={"echo": "the fake driver's echo"},
    params=(Param("size", ("small",), "sizes"),),
    metrics=(
        MetricSpec("time", "samples", "ns", "wall time"),
        MetricSpec("latency", "histogram", "ns", "per operation"),
    ),
    fixtures=("out_dir",),
    iters={"quick": {"echo": 3}, "standard": {"echo": 3}},
)
'''

# The child: the copy's CLI with the fake driver as the only one.
LAUNCH = (
    "import sys; from wirebench import drivers, cli; "
    f"sys.path.insert(0, {str(FAKE.parent)!r}); from conftest import FAKE_DRIVER; "
    "drivers.DRIVERS.clear(); drivers.DRIVERS['fake'] = FAKE_DRIVER; "
    "sys.argv = ['wirebench'] + sys.argv[1:]; cli.main()"
)


def test_a_suite_is_its_module_and_its_registry_line(tmp_path):
    copy = tmp_path / "harness"
    shutil.copytree(
        paths.ROOT / "wirebench", copy / "wirebench", ignore=shutil.ignore_patterns("__pycache__")
    )
    (copy / "wirebench" / "suites" / "probe.py").write_text(SUITE_MODULE)
    registry = copy / "wirebench" / "registry.py"
    text = registry.read_text()
    imports = "from .suites import codec, limit, queue, readbytes, rpc\n"
    listed = "        limit.SUITE,\n"
    assert imports in text and listed in text  # the two places the doc names
    text = text.replace(imports, imports.replace("limit,", "limit, probe,"))
    registry.write_text(text.replace(listed, listed + "        probe.SUITE,\n"))

    db = tmp_path / "w.db"
    args = ["run", "--suite", "probe", "--repeat", "3", "--json"]
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH, *args, "--db", str(db)],
        env={**os.environ, "PYTHONPATH": str(copy)},
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,  # not the checkout: its wirebench/ would come first
    )
    assert done.returncode == 0, done.stderr
    cells = json.loads(done.stdout)["cells"]
    probe = [c for c in cells if c["suite"] == "probe"]
    assert [c["status"] for c in probe] == ["ok"]
    assert set(probe[0]["metrics"]) == {"time", "latency"}
    # The real package is untouched: the suite exists only in the copy.
    assert not (paths.ROOT / "wirebench" / "suites" / "probe.py").exists()
