"""Fidelity audit (issue 10): wirebench's rpc drivers beside the reference programs.

Builds, in one profile (`stock` or `tuned`), Cap'n Proto's own C++ benchmark programs
(`capnproto-*`, `protobuf-*` from c++/src/benchmark), capnproto-rust's benchmark program
(benchmark/) and our C++ and Rust drivers, then for every cell:

1. counts instructions per iteration under callgrind: each program at two iteration
   counts, (I(n2) - I(n1)) / (n2 - n1), which removes start-up and is free of noise;
2. times whole processes at the published iteration counts in interleaved rounds
   (reference and ours alternately, the order swapped every round), pinned to one CPU.

It prints Markdown tables (docs/fidelity.md explains the verdicts). It never fetches
anything: pass the reference source trees (scripts/fidelity/README.md says how to get
them). Everything it builds goes under --work, which must lie outside the repository;
the only adjustments to the reference programs are applied to copies there.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CASES = ("carsales", "catrank", "eval")
# The published iteration counts (docs/workloads.md) and the two counts callgrind runs.
ITERS = {"carsales": 10000, "catrank": 1000, "eval": 200000}
CG_ITERS = {"carsales": (100, 500), "catrank": (20, 100), "eval": (2000, 10000)}
CXX_FLAGS = {"stock": ["-O2", "-DNDEBUG"], "tuned": ["-O3", "-flto", "-DNDEBUG"]}
CARGO_ENV = {
    "stock": {"CARGO_PROFILE_RELEASE_LTO": "false", "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16"},
    "tuned": {"CARGO_PROFILE_RELEASE_LTO": "fat", "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "1"},
}
# Cells outside 5% whose difference docs/fidelity.md explains with a profile, by
# (lang, lib, case or "*", mode or "*", reuse or "*"); the first match applies.
EXPLAINED = {
    ("cpp", "capnp", "catrank", "*", "no-reuse"): "C1",
    ("cpp", "capnp", "eval", "*", "*"): "C2",
    ("cpp", "protobuf", "catrank", "*", "*"): "P1",
    ("rust", "capnp", "catrank", "object", "*"): "R1, R3",
    ("rust", "capnp", "catrank", "bytes", "*"): "R1, R2, R3",
    ("rust", "capnp", "*", "bytes", "*"): "R2, R3",
    ("rust", "capnp", "*", "object", "*"): "R3",
}


@dataclass(frozen=True)
class Cell:
    lang: str
    lib: str
    case: str
    mode: str
    compression: str
    reuse: str

    @property
    def name(self) -> str:
        return f"{self.lang} {self.lib} {self.case} {self.mode} {self.compression} {self.reuse}"


@dataclass
class Programs:
    cpp_driver: Path | None = None
    rust_driver: Path | None = None
    cpp_ref: Path | None = None  # directory of capnproto-* and protobuf-*
    rust_ref: Path | None = None


@dataclass
class Result:
    cell: Cell
    ref_ir: float | None = None
    ours_ir: float | None = None
    ref_ms: list[float] = field(default_factory=list)
    ours_ms: list[float] = field(default_factory=list)
    ours_sample_ms: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    bytes_equal: bool | None = None


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("+", " ".join(str(c) for c in cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, **kw)


# ---- building -------------------------------------------------------------------------


def build_cpp_ref(src: Path, out: Path, profile: str) -> Path:
    """Cap'n Proto's C++ benchmark programs against Debian's libcapnp and libprotobuf."""
    bench = src / "c++" / "src" / "benchmark"
    out.mkdir(parents=True, exist_ok=True)
    for f in bench.glob("*.capnp"):
        shutil.copy(f, out)
    for f in bench.glob("*.proto"):
        shutil.copy(f, out)
    schemas = [f"{c}.capnp" for c in CASES]
    run(["capnp", "compile", "-I/usr/include", "-oc++", *schemas], cwd=out)
    run(
        ["protoc", "--cpp_out=.", *[f"{c}.proto" for c in CASES]],
        cwd=out,
        stderr=subprocess.DEVNULL,
    )
    # Adjustment for protoc >= 3.x: generated message classes are `final`, and the reference's
    # protobuf-common.h derives its Reusable/SingleUse wrappers from them.
    for h in out.glob("*.pb.h"):
        h.write_text(re.sub(r"^class (\w+) final :", r"class \1 :", h.read_text(), flags=re.M))
    jobs = []
    for case in CASES:
        for lib, gen, libs in (
            ("capnproto", f"{case}.capnp.c++", ["-lcapnp", "-lkj"]),
            ("protobuf", f"{case}.pb.cc", ["-lprotobuf"]),
        ):
            cmd = [
                "g++",
                "-std=c++17",
                *CXX_FLAGS[profile],
                "-I.",
                f"-I{bench}",
                "-o",
                f"{lib}-{case}",
                str(bench / f"{lib}-{case}.c++"),
                gen,
                *libs,
                "-lpthread",
            ]
            jobs.append(cmd)
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        list(ex.map(lambda c: run(c, cwd=out), jobs))
    return out


def build_cpp_driver(out: Path, profile: str, cmake_args: list[str]) -> Path:
    if profile != "stock" and not cmake_args:
        print(
            "warning: our C++ driver takes its flags from drivers/cpp/CMakeLists.txt; pass "
            "--cmake-arg to select the tuned profile",
            file=sys.stderr,
        )
    run(
        [
            "cmake",
            "-S",
            str(REPO / "drivers" / "cpp"),
            "-B",
            str(out),
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            *cmake_args,
        ],
        stdout=subprocess.DEVNULL,
    )
    run(
        ["cmake", "--build", str(out), "-j2", "--target", "wirebench-cpp"],
        stdout=subprocess.DEVNULL,
    )
    return out / "wirebench-cpp"


def crate_version(name: str) -> str:
    """The version of `name` our Rust driver is built with (drivers/rust/Cargo.lock)."""
    lock = (REPO / "drivers" / "rust" / "Cargo.lock").read_text()
    m = re.search(rf'name = "{name}"\nversion = "([^"]+)"', lock)
    if not m:
        raise SystemExit(f"{name} not found in drivers/rust/Cargo.lock")
    return m.group(1)


def build_rust_ref(src: Path, work: Path, profile: str, capnp: str) -> Path:
    """capnproto-rust's benchmark/ as a crate of its own (outside the reference's workspace,
    whose other members need crates this build does not), on the capnp crate `capnp`:
    a version from crates.io (default: our driver's, so both use the same library) or
    "path" (the reference tree's own capnp/ and capnpc/)."""
    crate = work / "ref-rust-src"
    (crate / "src").mkdir(parents=True, exist_ok=True)
    bench = src / "benchmark"
    for f in bench.glob("*.rs"):
        if f.name == "build.rs":
            shutil.copy(f, crate)
        elif f.name != "run_all.rs":
            shutil.copy(f, crate / "src")
    for f in bench.glob("*.capnp"):
        shutil.copy(f, crate)
    if capnp == "path":
        dep = f'capnp = {{ path = "{src / "capnp"}" }}'
        bdep = f'capnpc = {{ path = "{src / "capnpc"}" }}'
    else:
        dep, bdep = f'capnp = "={capnp}"', f'capnpc = "={crate_version("capnpc")}"'
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "benchmark"\nversion = "0.0.0"\nedition = "2021"\n'
        'build = "build.rs"\n\n[[bin]]\nname = "benchmark"\npath = "src/benchmark.rs"\n\n'
        f"[dependencies]\n{dep}\n\n[build-dependencies]\n{bdep}\n\n[workspace]\n"
    )
    target = work / f"ref-rust-{profile}"
    cargo_release(crate / "Cargo.toml", target, profile)
    return target / "release" / "benchmark"


def cargo_release(manifest: Path, target: Path, profile: str) -> None:
    """`cargo build --release` with the profile's settings as cargo's environment overrides."""
    env = {**os.environ, **CARGO_ENV[profile]}
    cmd = ["cargo", "build", "--release", "--manifest-path", str(manifest)]
    run([*cmd, "--target-dir", str(target)], env=env)


def build_rust_driver(work: Path, profile: str) -> Path:
    target = work / f"rust-{profile}"
    cargo_release(REPO / "drivers" / "rust" / "Cargo.toml", target, profile)
    return target / "release" / "wirebench-rust"


# ---- cells and commands ---------------------------------------------------------------


def cells(
    langs: list[str], libs: list[str], cases: list[str], modes: list[str], reuses: list[str]
) -> list[Cell]:
    out = []
    for lang in langs:
        for lib in libs:
            if lang == "rust" and lib != "capnp":
                continue  # prost has no reference program
            for case in cases:
                for mode, comp in (("object", "none"), ("bytes", "none"), ("bytes", "packed")):
                    if (lib == "protobuf" and comp == "packed") or mode not in modes:
                        continue
                    for reuse in reuses:
                        out.append(Cell(lang, lib, case, mode, comp, reuse))
    return out


def ref_cmd(p: Programs, c: Cell, iters: int) -> list[str]:
    if c.lang == "cpp":
        prog = p.cpp_ref / f"{'capnproto' if c.lib == 'capnp' else 'protobuf'}-{c.case}"
        return [str(prog), c.mode, c.reuse, c.compression, str(iters)]
    return [str(p.rust_ref), c.case, c.mode, c.reuse, c.compression, str(iters)]


def ours_cmd(p: Programs, c: Cell, iters: int) -> list[str]:
    drv = p.cpp_driver if c.lang == "cpp" else p.rust_driver
    return [
        str(drv),
        "run",
        "--suite",
        "rpc",
        "--case",
        c.case,
        "--lib",
        c.lib,
        "--mode",
        c.mode,
        "--compression",
        c.compression,
        "--reuse",
        c.reuse,
        "--iters",
        str(iters),
        "--samples",
        "1",
        "--warmup",
        "0",
    ]


# ---- instruction counts ---------------------------------------------------------------


def callgrind(cmd: list[str], out: Path) -> int:
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for line in out.read_text(errors="replace").splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out}")


def functions(out: Path) -> dict[str, int]:
    """Self instructions per function (callgrind_annotate, no threshold)."""
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--inclusive=no", str(out)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    res: dict[str, int] = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*?)(?:\s+\[[^\]]*\])?$", line)
        if m and ":" in m.group(2):
            name = m.group(2).split(":", 1)[1]
            res[name] = res.get(name, 0) + int(m.group(1).replace(",", ""))
    return res


def per_iteration(cg: Path, side: str, c: Cell, cmd_of) -> float:
    n1, n2 = CG_ITERS[c.case]
    stem = f"{side}-{c.name.replace(' ', '-')}"
    f1, f2 = cg / f"{stem}-{n1}.out", cg / f"{stem}-{n2}.out"
    i1, i2 = callgrind(cmd_of(c, n1), f1), callgrind(cmd_of(c, n2), f2)
    return (i2 - i1) / (n2 - n1)


def function_diff(cg: Path, side: str, c: Cell) -> dict[str, float]:
    n1, n2 = CG_ITERS[c.case]
    stem = f"{side}-{c.name.replace(' ', '-')}"
    a, b = functions(cg / f"{stem}-{n1}.out"), functions(cg / f"{stem}-{n2}.out")
    return {k: (b.get(k, 0) - a.get(k, 0)) / (n2 - n1) for k in set(a) | set(b)}


# ---- wall time ------------------------------------------------------------------------


def timed(cmd: list[str], cpu: str, env: dict[str, str] | None) -> tuple[float, str]:
    t0 = time.perf_counter_ns()
    cp = subprocess.run(
        ["taskset", "-c", cpu, *cmd], check=True, capture_output=True, text=True, env=env
    )
    return (time.perf_counter_ns() - t0) / 1e6, cp.stdout


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def time_rounds(
    p: Programs, results: list[Result], rounds: int, cpu: str, env: dict[str, str] | None
) -> None:
    for r in range(rounds):
        print(f"round {r + 1}/{rounds}, load {loadavg()}", file=sys.stderr, flush=True)
        for res in results:
            c, n = res.cell, ITERS[res.cell.case]
            order = ("ref", "ours") if r % 2 == 0 else ("ours", "ref")
            got = {}
            for side in order:
                cmd = ref_cmd(p, c, n) if side == "ref" else ours_cmd(p, c, n)
                got[side] = timed(cmd, cpu, env)
            res.ref_ms.append(got["ref"][0])
            res.ours_ms.append(got["ours"][0])
            res.ratios.append(got["ours"][0] / got["ref"][0])
            doc = json.loads(got["ours"][1])
            res.ours_sample_ms.append(doc["metrics"]["time"]["samples"][0] / 1e6)
            if c.lang == "cpp":
                ref_bytes = int(got["ref"][1].split()[0])
                res.bytes_equal = ref_bytes == doc["metrics"]["bytes"]["samples"][0]


# ---- report ---------------------------------------------------------------------------

MEASURED = ("ref_ir", "ours_ir", "ref_ms", "ours_ms", "ours_sample_ms", "ratios", "bytes_equal")


def dump(r: Result) -> dict:
    return {"cell": r.cell.__dict__, **{k: getattr(r, k) for k in MEASURED}}


def merge(results: list[Result], saved: list[dict]) -> None:
    by_cell = {Cell(**d["cell"]): d for d in saved}
    for r in results:
        d = by_cell.get(r.cell, {})
        for k in MEASURED:
            if getattr(r, k) in (None, []) and d.get(k) not in (None, []):
                setattr(r, k, d[k])


def explained(c: Cell) -> str | None:
    for (lang, lib, case, mode, reuse), tag in EXPLAINED.items():
        if (
            (lang, lib) == (c.lang, c.lib)
            and case in ("*", c.case)
            and mode in ("*", c.mode)
            and reuse in ("*", c.reuse)
        ):
            return tag
    return None


def judge(c: Cell, ir: float | None, tr: float | None, ratios: list[float]) -> str:
    """Within 5% if both ratios are; if only the time is outside but the per-round ratios
    reach into [0.95, 1.05], the machine's noise; otherwise explained or not."""

    def ok(x: float | None) -> bool:
        return x is None or 0.95 <= x <= 1.05

    if ok(ir) and ok(tr):
        return "within 5%"
    if ok(ir) and ratios and min(ratios) <= 1.05 and max(ratios) >= 0.95:
        return "within 5% (instructions); time within noise"
    tag = explained(c)
    return f"explained ({tag})" if tag else "UNEXPLAINED"


def fmt(x: float | None, spec: str = ",.0f") -> str:
    return "-" if x is None else format(x, spec)


def report(results: list[Result], title: str) -> str:
    lines = [
        f"### {title}",
        "",
        "| cell | ref instr/iter | ours instr/iter | ratio | ref ms | ours ms | ratio "
        "| ratio range | ours sample ms | bytes | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        ir = r.ours_ir / r.ref_ir if r.ref_ir and r.ours_ir is not None else None
        rm = statistics.median(r.ref_ms) if r.ref_ms else None
        om = statistics.median(r.ours_ms) if r.ours_ms else None
        tr = statistics.median(r.ratios) if r.ratios else None
        rng = f"{min(r.ratios):.2f}-{max(r.ratios):.2f}" if r.ratios else "-"
        sm = statistics.median(r.ours_sample_ms) if r.ours_sample_ms else None
        verdict = judge(r.cell, ir, tr, r.ratios)
        b = {None: "n/a", True: "equal", False: "DIFFER"}[r.bytes_equal]
        c = r.cell
        lines.append(
            f"| {c.case} {c.mode} {c.compression} {c.reuse} | {fmt(r.ref_ir)} | "
            f"{fmt(r.ours_ir)} | {fmt(ir, '.3f')} | {fmt(rm, '.1f')} | "
            f"{fmt(om, '.1f')} | {fmt(tr, '.3f')} | {rng} | {fmt(sm, '.1f')} | {b} "
            f"| {verdict} |"
        )
    return "\n".join(lines)


def top_functions(cg: Path, results: list[Result], n: int) -> str:
    """Per-iteration self instructions of the top functions of both sides, for cells
    outside 5% in instructions."""
    out = []
    for r in results:
        if r.ref_ir is None or r.ours_ir is None or 0.95 <= r.ours_ir / r.ref_ir <= 1.05:
            continue
        out.append(f"\n#### {r.cell.name}: ref {r.ref_ir:,.0f}, ours {r.ours_ir:,.0f}\n")
        for side in ("ref", "ours"):
            try:
                fd = function_diff(cg, side, r.cell)
            except (subprocess.CalledProcessError, FileNotFoundError):
                out.append(f"{side}: no callgrind output in {cg}")
                continue
            out.append(f"{side}:")
            for k, v in sorted(fd.items(), key=lambda kv: -kv[1])[:n]:
                out.append(f"  {v:>12,.0f}  {k[:150]}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--capnproto", type=Path, help="capnproto checkout at v0.9.2")
    ap.add_argument("--capnproto-rust", type=Path, help="capnproto-rust at capnp-v0.27.0")
    ap.add_argument("--work", type=Path, required=True, help="work directory, outside the repo")
    ap.add_argument("--profile", choices=("stock", "tuned"), default="stock")
    ap.add_argument("--lang", default="cpp,rust")
    ap.add_argument("--lib", default="capnp,protobuf")
    ap.add_argument("--case", default=",".join(CASES))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu", default="1", help="CPU to pin timed processes to")
    ap.add_argument(
        "--rust-capnp",
        default=None,
        help="capnp crate for the Rust reference: a version (default: our "
        "driver's, from drivers/rust/Cargo.lock) or 'path' (the tree's own)",
    )
    ap.add_argument("--cmake-arg", action="append", default=[])
    ap.add_argument(
        "--env",
        action="append",
        default=[],
        help="KEY=VALUE for both sides' timed processes (e.g. GLIBC_TUNABLES=...)",
    )
    ap.add_argument(
        "--json",
        type=Path,
        help="results file: what it holds fills what this run does not measure (e.g. "
        "counts from a --no-time run), and this run's results are written back to it",
    )
    ap.add_argument("--reuse", default="reuse,no-reuse")
    ap.add_argument("--mode", default="object,bytes")
    ap.add_argument("--skip-build", action="store_true", help="reuse what --work holds")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--no-time", action="store_true")
    ap.add_argument(
        "--functions",
        type=int,
        default=0,
        help="list this many top functions per side for cells outside 5%%",
    )
    a = ap.parse_args()

    work = a.work.resolve()
    if work == REPO or REPO in work.parents:
        raise SystemExit("--work must lie outside the repository")
    work.mkdir(parents=True, exist_ok=True)
    langs, libs = a.lang.split(","), a.lib.split(",")
    p = Programs()
    if "cpp" in langs:
        if not a.skip_build and a.capnproto is None:
            raise SystemExit("--capnproto is required to build the C++ references")
        ref_dir = work / f"ref-cpp-{a.profile}"
        p.cpp_ref = ref_dir if a.skip_build else build_cpp_ref(a.capnproto, ref_dir, a.profile)
        drv_dir = work / f"cpp-{a.profile}"
        p.cpp_driver = (
            drv_dir / "wirebench-cpp"
            if a.skip_build
            else build_cpp_driver(drv_dir, a.profile, a.cmake_arg)
        )
    if "rust" in langs:
        if not a.skip_build and a.capnproto_rust is None:
            raise SystemExit("--capnproto-rust is required to build the Rust reference")
        capnp = a.rust_capnp or crate_version("capnp")
        p.rust_ref = (
            work / f"ref-rust-{a.profile}" / "release" / "benchmark"
            if a.skip_build
            else build_rust_ref(a.capnproto_rust, work, a.profile, capnp)
        )
        p.rust_driver = (
            work / f"rust-{a.profile}" / "release" / "wirebench-rust"
            if a.skip_build
            else build_rust_driver(work, a.profile)
        )

    sel = (a.case.split(","), a.mode.split(","), a.reuse.split(","))
    results = [Result(c) for c in cells(langs, libs, *sel)]
    start_load = loadavg()
    if not a.no_callgrind:
        cg = work / f"callgrind-{a.profile}"
        cg.mkdir(exist_ok=True)

        def count(r: Result) -> None:
            r.ref_ir = per_iteration(cg, "ref", r.cell, lambda c, n: ref_cmd(p, c, n))
            r.ours_ir = per_iteration(cg, "ours", r.cell, lambda c, n: ours_cmd(p, c, n))
            print(
                f"callgrind {r.cell.name}: {r.ref_ir:,.0f} {r.ours_ir:,.0f}",
                file=sys.stderr,
                flush=True,
            )

        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            list(ex.map(count, results))
    if not a.no_time:
        env = {**os.environ, **dict(e.split("=", 1) for e in a.env)} if a.env else None
        time_rounds(p, results, a.rounds, a.cpu, env)
    if a.json and a.json.exists():
        merge(results, json.loads(a.json.read_text()))
    if a.json:
        a.json.write_text(json.dumps([dump(r) for r in results], indent=1))
    print(
        f"<!-- profile {a.profile}, {a.rounds} rounds pinned to CPU {a.cpu}, load at start "
        f"{start_load}, at end {loadavg()}, env {a.env} -->\n"
    )
    for lang in langs:
        for lib in libs:
            sub = [r for r in results if (r.cell.lang, r.cell.lib) == (lang, lib)]
            if sub:
                print(report(sub, f"{lang} {lib}, profile {a.profile}") + "\n")
    if a.functions:
        print(top_functions(work / f"callgrind-{a.profile}", results, a.functions))


if __name__ == "__main__":
    main()
