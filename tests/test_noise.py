"""The machine's noise beside every number: steal and other programs' load per process,
the worst per cell, and the cells measured under them named in the report."""

import json

from click.testing import CliRunner

from wirebench import cli, report
from wirebench.processes import Noise
from wirebench.store import Store

from .test_store import ARGS


def jiffies(user=0, idle=0, steal=0):
    # user nice system idle iowait irq softirq steal guest guest_nice
    return [user, 0, 0, idle, 0, 0, 0, steal, 0, 0]


def test_steal_is_read_on_the_pinned_cpus_and_load_is_everyone_elses_cpu_time():
    before = {0: jiffies(), 1: jiffies()}
    # One second (100 jiffies at 100 Hz): CPU 1 ran the driver (80) and lost 10 to steal;
    # CPU 0 ran other programs for 50 and lost 30.
    after = {0: jiffies(user=50, idle=20, steal=30), 1: jiffies(user=80, idle=10, steal=10)}
    hz = 1e9 / 100
    noise = Noise.between(before, after, {1}, own_ns=int(80 * hz), wall_ns=int(100 * hz))
    assert noise.steal_ns == int(10 * hz)
    assert noise.other_load == 0.5


def test_every_process_records_its_noise_and_the_report_names_stolen_cells(fake, tmp_path):
    db = tmp_path / "w.db"
    r = CliRunner().invoke(cli.main, [*ARGS[:-2], "--repeat", "2", "--db", str(db)])
    assert r.exit_code == 0, r.output
    store = Store(db)
    rows = store.db.execute("SELECT steal_ns, other_load FROM processes").fetchall()
    assert rows and all(s is not None and load is not None for s, load in rows)
    # A cell whose process lost 3% of its time to the hypervisor is named as such.
    key = store.cells(1)[0]["key"]
    store.db.execute("UPDATE cells SET steal = 0.03, other_load = 0.6 WHERE key = ?", (key,))
    md = report.markdown(report.build(store, 1))
    assert f"- {key}: up to 3.0%" in md
    assert f"- {key}: up to 0.60 CPU" in md
    data = json.loads(CliRunner().invoke(cli.main, ["report", "--json", "--db", str(db)]).output)
    assert {c["key"]: c["steal"] for c in data["cells"]}[key] == 0.03


def test_aa_twins_measure_a_cell_twice_and_give_the_noise_floor(fake, tmp_path):
    db = tmp_path / "w.db"
    args = ["run", "--lib", "good", "--mode", "object", "--iters", "3", "--aa", "1"]
    r = CliRunner().invoke(cli.main, [*args, "--no-limits", "--db", str(db)])
    assert r.exit_code == 0, r.output
    data = json.loads(CliRunner().invoke(cli.main, ["report", "--json", "--db", str(db)]).output)
    keys = [c["key"] for c in data["cells"]]
    twin = "rpc/carsales/fake/good build=stock compression=none mode=object reuse=reuse twin=b"
    assert twin in keys
    aa = next(t for t in data["tables"] if t["title"].startswith("A/A"))
    assert [row[:2] for row in aa["rows"]] == [[twin.removesuffix(" twin=b"), "time"]]
    # The fake's samples are the same in every process: its floor is 0.
    assert aa["rows"][0][2].startswith("1.00")
    others = [t for t in data["tables"] if not t["title"].startswith("A/A")]
    assert not any("twin" in str(t["rows"]) or "twin" in t["headers"] for t in others)


def test_a_ratio_within_the_noise_floor_is_no_difference():
    from wirebench.comparisons import differs
    from wirebench.stats import Ratio

    assert differs(Ratio(0.90, 0.85, 0.95, True), floor=0.05)
    assert not differs(Ratio(0.97, 0.95, 0.99, True), floor=0.05)  # within the floor
    assert not differs(Ratio(0.90, 0.80, 1.01, True), floor=0.0)  # the interval holds 1


def test_a_seeded_process_runs_without_randomisation_its_stack_moved_by_its_seed():
    from wirebench import processes

    show = ["sh", "-c", 'cat /proc/self/personality; printf "%s\\n" "${#WIREBENCH_STACK_PAD}"']

    def placement(seed):
        done = processes.run(show, {}, 10, address_seed=seed)
        personality, pad = done.client.output()[0].split()
        return int(personality, 16) & processes.ADDR_NO_RANDOMIZE, int(pad)

    assert placement(None)[1] == 0  # randomised as the harness is (not by the harness)
    off, pad = placement(3)
    assert off and pad == processes.stack_pad(3) and pad % 16 == 0
    assert placement(3) == (off, pad)  # a seed places a process the same way every time
    assert len({processes.stack_pad(s) for s in range(8)}) == 8


def test_a_run_with_address_seeds_rotates_them_and_says_so(fake, tmp_path):
    db = tmp_path / "w.db"
    args = [*ARGS[:-2], "--repeat", "4", "--db", str(db)]
    r = CliRunner().invoke(cli.main, [*args, "--address-seeds", "2"])
    assert r.exit_code == 0, r.output
    store = Store(db)
    plan = json.loads(store.run(1)["plan"])
    assert plan["address_seeds"] == 2
    md = report.markdown(report.build(store, 1))
    assert "address placement: 2 seeds (randomisation off" in md
    # Each round's layout is its code variant and its seed, for the variance tables.
    result = next(r for r in report.load(store, 1) if r.ok)
    assert result.layouts == {0: (0, 0), 1: (0, 1), 2: (0, 0), 3: (0, 1)}
    r = CliRunner().invoke(cli.main, [*args, "--address-seeds", "-1"])
    assert r.exit_code != 0 and "--address-seeds takes a number of seeds" in r.output
