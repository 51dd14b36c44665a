"""Every driver against the harness's own judge: every cell a driver lists runs briefly
(2 iterations, 2 samples, one process) through `wirebench run`, and the protocol's checks
and each suite's own (the same that judge every benchmark) accept its result.

This is the one place where the suites' result checks meet the real drivers; the drivers'
own tests keep what is theirs (their command lines, libraries, golden files, servers).
Skipped for a driver that is not built, unless the drivers are required (`make test`).
"""

import json

import pytest
from click.testing import CliRunner

from wirebench import cli, drivers

from .conftest import need_driver


@pytest.mark.parametrize("name", [pytest.param(n, marks=need_driver(n)) for n in drivers.DRIVERS])
def test_every_listed_cell_of_the_driver_runs_and_passes_every_check(name, tmp_path, monkeypatch):
    d = drivers.DRIVERS[name]
    # The answers, not the times: the JVM neither waits for its JIT to settle
    # (drivers/java/src/main/java/wirebench/Jit.java) nor touches its whole heap at start,
    # and compiles with C1 only, in the background (the launcher's -Xbatch waits for every
    # compilation): together half of each of 280 cells' second or so.
    jvm = "-Dwirebench.jit.maxRounds=0 -XX:-AlwaysPreTouch -Xms64m"
    jvm += " -XX:TieredStopAtLevel=1 -XX:+BackgroundCompilation"
    monkeypatch.setenv("WIREBENCH_JVM_OPTS", jvm)
    args = ["run", "--lang", d.lang, "--toolchain", d.toolchain, "--no-pairs"]
    args += ["--iters", "2", "--samples", "2", "--repeat", "1", "--layouts", "1"]
    args += ["--json", "--db", str(tmp_path / "w.db")]
    r = CliRunner().invoke(cli.main, args)
    cells = json.loads(r.stdout)["cells"]
    bad = [(c["key"], c["error"]) for c in cells if c["status"] != "ok"]
    assert not bad
    assert r.exit_code == 0
    listed = drivers.list_cells(name)
    assert listed
    # Every listed cell ran (a pipe cell once per placement), and nothing else did.
    ran = {(c["suite"], c["case"], c["lib"]) for c in cells}
    assert ran == {(e["suite"], e["case"], e["lib"]) for e in listed}
    assert len(cells) >= len(listed)
