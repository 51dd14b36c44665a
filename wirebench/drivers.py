"""The drivers: where each driver lives, how it is built, and asking it things.

A driver's identity is its language and its toolchain (the compiler, or the JVM), so one
language can have several drivers (C++ by g++ and by clang++). DRIVERS is keyed by a
driver's name: the language for its primary driver, `LANG-TOOLCHAIN` for another.
Adding a driver is one entry in DRIVERS. Everything else about it is learnt by asking it
(`info`, `list`), following docs/protocol.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import pgo

ROOT = Path(__file__).resolve().parent.parent

APT_CPP = (
    "apt-get install -y cmake ninja-build g++ pkg-config capnproto libcapnp-dev "
    "protobuf-compiler libprotobuf-dev libgtest-dev flatbuffers-compiler libflatbuffers-dev "
    "libmsgpack-cxx-dev rapidjson-dev libsimdjson-dev nlohmann-json3-dev"
)


class DriverError(RuntimeError):
    """A driver is missing, will not build, or answers outside the protocol."""


PROTOCOL = 2


# Build profiles (docs/methodology.md, "Build profiles"): `stock` is each ecosystem's
# release build as its users get it by default; `tuned` what a performance-minded user of
# the language ships. Every cell names its build; no ratio mixes two.
BUILDS = ("stock", "tuned")
DEFAULT_BUILD = "stock"


@dataclass(frozen=True)
class Build:
    """One build profile of a driver: what it makes and how."""

    executable: str  # relative to the repository root
    # Commands run in the repository root; a callable(log) is a step done in Python.
    commands: tuple = ()
    flags: str = ""  # what the profile means for this language, stored with every run
    # What the build makes, when the executable is a committed launcher (the JVM's jar).
    artifact: str | None = None


@dataclass(frozen=True)
class Driver:
    lang: str
    toolchain: str  # what `info` must say: g++, rustc, gc, openjdk
    builds: dict[str, Build]  # by profile; every driver has each of BUILDS
    tools: tuple[str, ...]  # programs the build needs on PATH
    pkgconfig: tuple[str, ...]  # libraries the build needs (pkg-config names)
    install_hint: str
    primary: bool = True  # the language's default driver (cells name no toolchain)

    @property
    def name(self) -> str:
        return self.lang if self.primary else f"{self.lang}-{self.toolchain}"

    @property
    def identity(self) -> tuple[str, str | None]:
        """(language, toolchain) as cells name it: no toolchain for a primary driver."""
        return self.lang, None if self.primary else self.toolchain

    def profile(self, build: str) -> Build:
        try:
            return self.builds[build]
        except KeyError:
            raise DriverError(
                f"unknown build {build!r} of the {self.name} driver; known: "
                f"{', '.join(self.builds)}"
            ) from None

    def path(self, build: str = DEFAULT_BUILD) -> Path:
        return ROOT / self.profile(build).executable

    def is_built(self, build: str = DEFAULT_BUILD) -> bool:
        b = self.profile(build)
        exe = self.path(build)
        built = exe.is_file() and os.access(exe, os.X_OK)
        return built and (b.artifact is None or (ROOT / b.artifact).is_file())

    def missing(self) -> list[str]:
        """Tools and libraries the build needs that this machine lacks."""
        absent = [t for t in self.tools if shutil.which(t) is None]
        if self.pkgconfig and shutil.which("pkg-config"):
            for lib in self.pkgconfig:
                probe = subprocess.run(["pkg-config", "--exists", lib], capture_output=True)
                if probe.returncode != 0:
                    absent.append(f"{lib} (library)")
        return absent

    def build_driver(self, log, build: str = DEFAULT_BUILD, ran: set | None = None) -> None:
        """Runs the build's commands. `ran` holds the commands already run by this
        invocation (for several builds at once): one that is there is not run again, so
        that Go's tuned build does not redo the stock one nor Java's the jar."""
        ran = set() if ran is None else ran
        absent = self.missing()
        if absent:
            raise DriverError(
                f"cannot build the {self.name} driver: missing {', '.join(absent)}; "
                f"install with: {self.install_hint}"
            )
        b = self.profile(build)
        for cmd in b.commands:
            if callable(cmd):
                try:
                    cmd(log)
                except (RuntimeError, OSError) as e:
                    what = f"building the {self.name} driver ({build})"
                    raise DriverError(f"{what} failed: {e}") from e
                continue
            if cmd in ran:
                continue
            ran.add(cmd)
            log(f"$ {' '.join(cmd)}")
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            if proc.returncode != 0:
                tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
                raise DriverError(f"building the {self.name} driver ({build}) failed:\n{tail}")
        if not self.is_built(build):
            raise DriverError(
                f"the {self.name} build ({build}) succeeded but {b.executable} is missing"
            )
        info.cache_clear()
        list_cells.cache_clear()


def _cmake(build_dir: str, profile: str, *options: str) -> tuple:
    return (
        (
            "cmake",
            "-S",
            "drivers/cpp",
            "-B",
            build_dir,
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DWB_BUILD_PROFILE={profile}",
            *options,
        ),
        ("cmake", "--build", build_dir, "-j2"),
    )


# The clang++ build of the C++ driver has the suites where the compiler is the variable
# (readbytes) and the machine's limit beside them.
_CLANG = (
    "-DCMAKE_C_COMPILER=clang",
    "-DCMAKE_CXX_COMPILER=clang++",
    "-DWB_SUITES=limit;readbytes",
)


def _d(compiler: str) -> Driver:
    """The D driver as one compiler builds it (drivers/d/Makefile)."""
    exe = f"drivers/d/build/wirebench-d-{compiler}"
    return Driver(
        lang="d",
        toolchain=compiler,
        builds={
            "stock": Build(
                exe,
                (("make", "-C", "drivers/d", f"build/wirebench-d-{compiler}"),),
                "dub's release build type as it drives this compiler (drivers/d/Makefile)",
            ),
            "tuned": Build(
                f"{exe}-tuned",
                (("make", "-C", "drivers/d", f"build/wirebench-d-{compiler}-tuned"),),
                "-O3, no bounds checks, LTO where it links (drivers/d/Makefile)",
            ),
        },
        tools=("make", compiler),
        pkgconfig=(),
        install_hint=f"apt-get install -y {'ldc' if compiler == 'ldc2' else 'gdc'}",
        primary=False,
    )


_GO_GENERATE = ("go", "-C", "drivers/go", "generate", "./...")
_GO_STOCK = ("go", "-C", "drivers/go", "build", "-o", "bin/wirebench-go", "./cmd/wirebench-go")
_MVN = ("mvn", "-q", "-B", "-f", "drivers/java/pom.xml", "package", "-DskipTests")
_JAR = "drivers/java/target/wirebench-java.jar"

DRIVERS = {
    "cpp": Driver(
        lang="cpp",
        toolchain="g++",
        builds={
            "stock": Build(
                "drivers/cpp/build/wirebench-cpp",
                _cmake("drivers/cpp/build", "stock"),
                "CMake Release: -O2 -DNDEBUG, Debian's shared libraries",
            ),
            "tuned": Build(
                "drivers/cpp/build-tuned/wirebench-cpp",
                _cmake("drivers/cpp/build-tuned", "tuned"),
                "-O3 -DNDEBUG -flto, Debian's static libcapnp, libkj, libprotobuf and "
                "libflatbuffers (simdjson ships no static library: shared)",
            ),
        },
        tools=("cmake", "ninja", "g++", "capnp", "protoc", "flatc", "pkg-config"),
        pkgconfig=("capnp", "protobuf", "flatbuffers", "RapidJSON", "simdjson", "nlohmann_json"),
        install_hint=APT_CPP,
    ),
    "cpp-clang++": Driver(
        lang="cpp",
        toolchain="clang++",
        builds={
            "stock": Build(
                "drivers/cpp/build-clang/wirebench-cpp",
                _cmake("drivers/cpp/build-clang", "stock", *_CLANG),
                "CMake Release by clang++: -O2 -DNDEBUG (suites limit and readbytes)",
            ),
            "tuned": Build(
                "drivers/cpp/build-clang-tuned/wirebench-cpp",
                _cmake("drivers/cpp/build-clang-tuned", "tuned", *_CLANG),
                "clang++ -O3 -DNDEBUG -flto (suites limit and readbytes)",
            ),
        },
        tools=("cmake", "ninja", "clang++"),
        pkgconfig=(),
        install_hint="apt-get install -y cmake ninja-build clang",
        primary=False,
    ),
    "rust": Driver(
        lang="rust",
        toolchain="rustc",
        # Code is generated from schemas/ with Debian's capnp, protoc and flatc.
        builds={
            "stock": Build(
                "drivers/rust/target/release/wirebench-rust",
                (("cargo", "build", "--release", "--manifest-path", "drivers/rust/Cargo.toml"),),
                "cargo build --release: Cargo's default release profile (opt-level 3, "
                "no cross-crate LTO, 16 codegen units)",
            ),
            "tuned": Build(
                "drivers/rust/target/tuned/wirebench-rust",
                (
                    (
                        "cargo",
                        "build",
                        "--profile",
                        "tuned",
                        "--manifest-path",
                        "drivers/rust/Cargo.toml",
                    ),
                ),
                "cargo profile `tuned`: release with lto = fat, codegen-units = 1",
            ),
        },
        tools=("cargo", "capnp", "protoc", "flatc"),
        pkgconfig=(),
        install_hint="rustup, for cargo; " + APT_CPP,
    ),
    "go": Driver(
        lang="go",
        toolchain="gc",
        # `go generate` runs capnpc-go and protoc-gen-go, pinned as tools in go.mod.
        builds={
            "stock": Build("drivers/go/bin/wirebench-go", (_GO_GENERATE, _GO_STOCK), "go build"),
            "tuned": Build(
                "drivers/go/bin/wirebench-go-tuned",
                (
                    _GO_GENERATE,
                    _GO_STOCK,
                    lambda log: pgo.profile_go(ROOT / "drivers/go/bin", log),
                    (
                        "go",
                        "-C",
                        "drivers/go",
                        "build",
                        "-pgo=bin/default.pgo",
                        "-o",
                        "bin/wirebench-go-tuned",
                        "./cmd/wirebench-go",
                    ),
                ),
                "go build -pgo: profile-guided, from a CPU profile of the stock driver "
                "running its own local cells (wirebench/pgo.py)",
            ),
        },
        tools=("go", "capnp", "protoc", "flatc"),
        pkgconfig=(),
        install_hint="Go 1.24 or later from go.dev; " + APT_CPP,
    ),
    "java": Driver(
        lang="java",
        toolchain="openjdk",
        # Committed launchers that start the JVM with the flags in docs/methodology.md.
        builds={
            "stock": Build(
                "drivers/java/wirebench-java",
                (_MVN,),
                "the launcher's measurement flags only (fixed heap, SerialGC, foreground JIT)",
                _JAR,
            ),
            "tuned": Build(
                "drivers/java/wirebench-java-tuned",
                (_MVN,),
                "the stock flags plus -XX:+UseTransparentHugePages",
                _JAR,
            ),
        },
        tools=("java", "mvn", "flatc"),
        pkgconfig=(),
        install_hint="apt-get install -y openjdk-17-jdk-headless maven",
    ),
    "d-gdc": _d("gdc"),
    "d-ldc2": _d("ldc2"),
}


def get(name: str) -> Driver:
    try:
        return DRIVERS[name]
    except KeyError:
        raise DriverError(f"unknown language {name!r}; known: {', '.join(DRIVERS)}") from None


def _ask(driver: Driver, build: str, *args: str) -> str:
    if not driver.is_built(build):
        how = "" if build == DEFAULT_BUILD else f" --build {build}"
        raise DriverError(
            f"the {driver.name} driver ({build}) is not built: run "
            f"`wirebench build{how} {driver.name}`"
        )
    try:
        argv = [str(driver.path(build)), *args]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise DriverError(f"`{driver.name} {' '.join(args)}` failed: {e}") from None
    if proc.returncode != 0:
        raise DriverError(f"`{driver.name} {' '.join(args)}` failed: {proc.stderr.strip()}")
    return proc.stdout


@cache
def info(name: str, build: str = DEFAULT_BUILD) -> dict:
    """The driver's `info`: identity, protocol version, library versions. A driver of
    another protocol version, or that says it is another language or toolchain than its
    registration, is refused by name."""
    d = get(name)
    text = _ask(d, build, "info")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise DriverError(f"the {name} driver's info is not JSON: {e}") from None
    if data.get("protocol") != PROTOCOL:
        raise DriverError(
            f"the {name} driver speaks protocol {data.get('protocol')!r}, this harness "
            f"{PROTOCOL}: rebuild it (`wirebench build {name}`)"
        )
    said = (data.get("lang"), data.get("toolchain"))
    if said != (d.lang, d.toolchain):
        raise DriverError(
            f"the {name} driver says it is {said[0]}/{said[1]}, registered as "
            f"{d.lang}/{d.toolchain}"
        )
    return data


@cache
def list_cells(name: str, build: str = DEFAULT_BUILD) -> tuple[dict, ...]:
    """The cells the driver supports, as it lists them (the same in every build)."""
    entries = []
    for n, line in enumerate(_ask(get(name), build, "list").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            if not all(k in entry for k in ("suite", "case", "lib", "params")):
                raise ValueError("needs suite, case, lib and params")
        except ValueError as e:
            raise DriverError(f"the {name} driver's list, line {n}: {e}") from None
        entries.append(entry)
    return tuple(entries)
