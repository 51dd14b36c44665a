#!/usr/bin/env python3
"""Evidence for the JVM warm-up rule (src/main/java/wirebench/Jit.java): runs cells with a
forced number of warm-up rounds (the rule's decision is replayed afterwards from the
per-round data) and prints, per round, its time relative to the best timed sample, the
compilations completed and the JIT compiler threads' CPU time; `*` marks the round after
which the rule would have stopped. Pipe cells run as the harness runs them: a Java client
and a Java server process joined by two pipes, both pinned to one CPU. Usage (from the
repository root):

    python3 drivers/java/scripts/jit_evidence.py [--scale 1|10] [--rounds 25] [--cpu 1]
"""

import argparse
import json
import os
import subprocess

J = "drivers/java/wirebench-java"
CELLS = [
    (
        "eval capnp object",
        "--case eval --lib capnp --mode object --compression none --reuse reuse",
        20000,
    ),
    (
        "carsales capnp bytes",
        "--case carsales --lib capnp --mode bytes --compression none --reuse reuse",
        1000,
    ),
    (
        "catrank capnp pipe",
        "--case catrank --lib capnp --mode pipe --compression none --reuse reuse",
        100,
    ),
    (
        "eval protobuf bytes",
        "--case eval --lib protobuf --mode bytes --compression none --reuse no-reuse",
        20000,
    ),
    (
        "catrank protobuf pipe-async",
        "--case catrank --lib protobuf --mode pipe-async --compression none --reuse reuse",
        100,
    ),
    (
        "carsales null object",
        "--case carsales --lib null --mode object --compression none --reuse reuse",
        1000,
    ),
]


def run(cell, iters, rounds, cpu, samples):
    env = dict(
        os.environ,
        WIREBENCH_JVM_OPTS=(
            f"-Dwirebench.jit.minRounds={rounds} -Dwirebench.jit.maxRounds={rounds} "
            "-Dwirebench.jit.maxSeconds=100000"
        ),
    )
    counts = [
        "--iters",
        str(iters),
        "--samples",
        str(samples),
        "--warmup",
        str(max(1, iters // 10)),
    ]
    base = ["taskset", "-c", cpu, J, "run", "--suite", "rpc", *cell.split(), *counts]
    if "pipe" not in cell:
        out = subprocess.run(base, capture_output=True, text=True, env=env)
        return json.loads(out.stdout)
    c2s_r, c2s_w = os.pipe()
    s2c_r, s2c_w = os.pipe()
    srv = subprocess.Popen(
        base + ["--role", "server", "--in-fd", str(c2s_r), "--out-fd", str(s2c_w)],
        pass_fds=(c2s_r, s2c_w),
        stdout=subprocess.PIPE,
        text=True,
    )
    cli = subprocess.Popen(
        base + ["--role", "client", "--in-fd", str(s2c_r), "--out-fd", str(c2s_w)],
        pass_fds=(s2c_r, c2s_w),
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    for fd in (c2s_r, c2s_w, s2c_r, s2c_w):
        os.close(fd)
    out, _ = cli.communicate()
    srv.communicate()
    return json.loads(out)


def rule_stop(comps, cpu_us, quiet_needed=2, cpu_limit_us=1000):
    quiet = 0
    for i, (c, u) in enumerate(zip(comps, cpu_us, strict=True)):
        quiet = quiet + 1 if c == 0 and u < cpu_limit_us else 0
        if quiet >= quiet_needed:
            return i + 1
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=1, help="1: quick counts, 10: standard")
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--cpu", default="1")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    for name, cell, q in CELLS:
        if a.only and a.only not in name:
            continue
        iters = q * a.scale
        r = run(cell, iters, a.rounds, a.cpu, a.samples)
        j = r["jit"]
        samples = r["metrics"]["time"]["samples"]
        best = min(samples)
        stop = rule_stop(j["round_compiles"], j["round_jit_cpu_us"])
        upto = sum(j["round_ns"][:stop]) / 1e9 if stop else None
        print(
            f"## {name}, iters {iters}: best sample {best / 1e6:.1f} ms; samples / best "
            f"{[round(x / best, 2) for x in samples]}; compiles during samples "
            f"{j['sample_compiles']}; rule stops after round {stop} "
            f"({f'{upto:.1f} s of rounds' if upto else 'cap'})"
        )
        print(
            "round     "
            + " ".join(
                f"{i + 1:>5}{'*' if stop == i + 1 else ' '}" for i in range(len(j["round_ns"]))
            )
        )
        print("time/best " + " ".join(f"{x / best:6.2f}" for x in j["round_ns"]))
        print("compiles  " + " ".join(f"{x:6d}" for x in j["round_compiles"]))
        print("jit cpu ms" + " ".join(f"{x / 1000:6.0f}" for x in j["round_jit_cpu_us"]))
        print("mxbean ms " + " ".join(f"{x:6d}" for x in j["round_compile_ms"]))
        print(flush=True)


if __name__ == "__main__":
    main()
