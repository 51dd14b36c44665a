"""Driver registry: a missing tool is named with its install command; a bad driver is named."""

import dataclasses
import json
import os
import subprocess

import pytest

from wirebench import codec_records, drivers, registry

from .conftest import FAKE_DRIVER, REQUIRE_DRIVERS, builds_at, need_driver


def test_a_missing_tool_is_named_with_the_command_that_installs_it():
    d = dataclasses.replace(
        FAKE_DRIVER, tools=("no-such-compiler-xyz",), install_hint="apt-get install -y xyz"
    )
    assert d.missing() == ["no-such-compiler-xyz"]
    with pytest.raises(drivers.DriverError) as e:
        d.build_driver(lambda m: None)
    assert "missing no-such-compiler-xyz" in str(e.value)
    assert "install with: apt-get install -y xyz" in str(e.value)


def test_a_failing_build_shows_its_output():
    fails = (("sh", "-c", "echo compiler says no; exit 3"),)
    d = dataclasses.replace(FAKE_DRIVER, builds=builds_at("/nonexistent", fails))
    with pytest.raises(drivers.DriverError, match="compiler says no"):
        d.build_driver(lambda m: None)


def test_unbuilt_and_unknown_drivers(monkeypatch, fake):
    with pytest.raises(drivers.DriverError, match="unknown language 'cobol'; known: fake"):
        drivers.get("cobol")
    ghost = dataclasses.replace(FAKE_DRIVER, lang="ghost", builds=builds_at("/nonexistent/driver"))
    monkeypatch.setitem(drivers.DRIVERS, "ghost", ghost)
    assert not ghost.is_built()
    with pytest.raises(drivers.DriverError, match="wirebench build ghost"):
        drivers.list_cells("ghost")


def test_a_driver_whose_list_is_garbage_is_named(monkeypatch, tmp_path):
    script = tmp_path / "bad"
    script.write_text("#!/bin/sh\necho '{not json'\n")
    script.chmod(0o755)
    bad = dataclasses.replace(FAKE_DRIVER, lang="bad", builds=builds_at(script))
    monkeypatch.setitem(drivers.DRIVERS, "bad", bad)
    drivers.list_cells.cache_clear()
    with pytest.raises(drivers.DriverError, match="the bad driver's list, line 1"):
        drivers.list_cells("bad")


# The suites each driver runs: a language's primary driver all of them; a driver whose
# compiler is the variable (cpp by clang++, d by gdc and ldc2) those where it is.
ALL_SUITES = set(registry.SUITES)
SUITES_OF = {"cpp-clang++": {"readbytes", "limit"}, "d-gdc": {"readbytes"}, "d-ldc2": {"readbytes"}}
PRIMARY = [n for n, d in drivers.DRIVERS.items() if d.primary]


@need_driver("cpp")
@pytest.mark.parametrize("name", [n for n in drivers.DRIVERS if n != "cpp"])
def test_every_driver_lists_exactly_the_rpc_and_limit_cells_the_cpp_driver_lists(name):
    """One rpc matrix in every language: the same cells, in the same order. (Codec cells
    differ: each language has its own libraries.)"""
    if not drivers.DRIVERS[name].is_built() and not REQUIRE_DRIVERS:
        pytest.skip(f"the {name} driver is not built")
    runs = SUITES_OF.get(name, ALL_SUITES) & {"rpc", "limit"}

    def shared(driver):
        return [c for c in drivers.list_cells(driver) if c["suite"] in runs]

    assert shared(name) == shared("cpp")


@pytest.mark.parametrize("name", PRIMARY)
def test_every_drivers_codec_cells_follow_the_first_cell_rule(name):
    """Per case and library: a first (default) cell, then variants that each differ from
    it in exactly one parameter (docs/protocol.md, suite codec); the size axis's other
    batches have the first cell only."""
    if not drivers.DRIVERS[name].is_built() and not REQUIRE_DRIVERS:
        pytest.skip(f"the {name} driver is not built")
    firsts: dict[tuple, dict] = {}
    seen = set()
    for c in drivers.list_cells(name):
        if c["suite"] != "codec":
            continue
        key = (c["case"], c["lib"])
        params = tuple(sorted(c["params"].items()))
        assert (key, params) not in seen, f"{key} lists {params} twice"
        seen.add((key, params))
        first = firsts.setdefault(key, c["params"])
        differ = [k for k in first if first[k] != c["params"][k]]
        assert len(differ) <= 1, f"{key}: {c['params']} differs from {first} in {differ}"
        assert first["strings"] == "owned", (key, first)
        assert c["case"] in codec_records.CASES or c["params"] == first, c
    assert {case for case, _ in firsts} == set(codec_records.ALL_CASES)


@pytest.mark.parametrize("name", list(drivers.DRIVERS))
def test_every_driver_says_who_it_is(name):
    if not drivers.DRIVERS[name].is_built() and not REQUIRE_DRIVERS:
        pytest.skip(f"the {name} driver is not built")
    info = drivers.info(name)  # refuses another protocol or identity
    assert set(info["suites"]) == SUITES_OF.get(name, ALL_SUITES)
    assert info["versions"]


@pytest.mark.parametrize("name", list(drivers.DRIVERS))
def test_each_build_reports_itself_and_lists_the_same_cells(name):
    """The tuned build is not part of `make test` (a second optimised build of every
    driver): where it has been built, it says which it is and lists what stock lists."""
    d = drivers.DRIVERS[name]
    if not (d.is_built("stock") and d.is_built("tuned")):
        pytest.skip(f"the {name} driver is not built in both profiles")
    stock, tuned = (drivers.info(name, b)["build"] for b in ("stock", "tuned"))
    assert stock != tuned
    if name in ("cpp", "cpp-clang++", "rust", "d-gdc", "d-ldc2"):
        assert tuned["profile"] == "tuned"
    if name == "go":
        assert "-pgo" in tuned and "-pgo" not in stock
    if name == "java":
        assert "-XX:+UseTransparentHugePages" in tuned["jvm_flags"]
    assert drivers.list_cells(name, "tuned") == drivers.list_cells(name, "stock")


@need_driver("java")
def test_the_java_driver_maps_its_class_data_sharing_archive_and_rebuilds_nothing_unchanged(
    monkeypatch,
):
    """The build made the archive and the launcher passes it: with -Xshare:on the JVM exits
    with an error when it cannot map it. A second build of an unchanged tree runs neither
    Maven nor the archive's training."""
    root = drivers.ROOT
    drivers.DRIVERS["java"].build_driver(lambda m: None)  # current (a no-op if it was)
    assert (root / drivers._JSA).is_file()
    launcher = root / "drivers/java/wirebench-java"
    env = {**os.environ, "WIREBENCH_JVM_OPTS": "-Xshare:on"}
    env.pop("WIREBENCH_JAVA_CLASSPATH", None)
    out = subprocess.run([launcher, "info"], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "SharedArchiveFile" in json.loads(out.stdout)["build"]["jvm_flags"]

    def run(log, cmd, *args, **kwargs):  # fails before the build records anything as made
        raise AssertionError(f"an unchanged tree's build ran {cmd}")

    monkeypatch.setattr(drivers, "_run", run)
    drivers._java_build(lambda m: None, root, None)


def test_a_java_build_whose_archive_fails_warns_and_runs_without_one(tmp_path, monkeypatch):
    """The archive only speeds up a JVM's start: a JDK that cannot make one (no base
    archive, say) leaves the driver built, says so, and the next build tries again."""
    for rel in (drivers._JAR, drivers._JAVA_TRAINING, "drivers/java/pom.xml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")

    def no_archive(log, root, env):
        raise drivers.DriverError("the JVM made no class-data-sharing archive (x.tmp)")

    monkeypatch.setattr(drivers, "_run", lambda *a, **k: None)
    monkeypatch.setattr(drivers, "_java_archive", no_archive)
    said = []
    drivers._java_build(said.append, tmp_path, None)
    assert said[-1].startswith("warning: no class-data-sharing archive for the java driver")
    assert not (tmp_path / drivers._JSA).exists()
    assert json.loads((tmp_path / drivers._JAVA_STAMP).read_text())["archived"] is None
