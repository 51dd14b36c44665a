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

ROOT = Path(__file__).resolve().parent.parent

APT_CPP = (
    "apt-get install -y cmake ninja-build g++ pkg-config capnproto libcapnp-dev "
    "protobuf-compiler libprotobuf-dev libgtest-dev flatbuffers-compiler libflatbuffers-dev "
    "libmsgpack-cxx-dev rapidjson-dev libsimdjson-dev nlohmann-json3-dev"
)


class DriverError(RuntimeError):
    """A driver is missing, will not build, or answers outside the protocol."""


PROTOCOL = 2


@dataclass(frozen=True)
class Driver:
    lang: str
    toolchain: str  # what `info` must say: g++, rustc, gc, openjdk
    executable: str  # relative to the repository root
    build: tuple[tuple[str, ...], ...]  # commands run in the repository root
    tools: tuple[str, ...]  # programs the build needs on PATH
    pkgconfig: tuple[str, ...]  # libraries the build needs (pkg-config names)
    install_hint: str
    # What the build makes, when the executable is a committed launcher (the JVM's jar).
    artifact: str | None = None
    primary: bool = True  # the language's default driver (cells name no toolchain)

    @property
    def name(self) -> str:
        return self.lang if self.primary else f"{self.lang}-{self.toolchain}"

    @property
    def identity(self) -> tuple[str, str | None]:
        """(language, toolchain) as cells name it: no toolchain for a primary driver."""
        return self.lang, None if self.primary else self.toolchain

    @property
    def path(self) -> Path:
        return ROOT / self.executable

    def is_built(self) -> bool:
        built = self.path.is_file() and os.access(self.path, os.X_OK)
        return built and (self.artifact is None or (ROOT / self.artifact).is_file())

    def missing(self) -> list[str]:
        """Tools and libraries the build needs that this machine lacks."""
        absent = [t for t in self.tools if shutil.which(t) is None]
        if self.pkgconfig and shutil.which("pkg-config"):
            for lib in self.pkgconfig:
                probe = subprocess.run(["pkg-config", "--exists", lib], capture_output=True)
                if probe.returncode != 0:
                    absent.append(f"{lib} (library)")
        return absent

    def build_driver(self, log) -> None:
        absent = self.missing()
        if absent:
            raise DriverError(
                f"cannot build the {self.name} driver: missing {', '.join(absent)}; "
                f"install with: {self.install_hint}"
            )
        for cmd in self.build:
            log(f"$ {' '.join(cmd)}")
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            if proc.returncode != 0:
                tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
                raise DriverError(f"building the {self.name} driver failed:\n{tail}")
        if not self.is_built():
            raise DriverError(f"the {self.name} build succeeded but {self.executable} is missing")
        info.cache_clear()
        list_cells.cache_clear()


DRIVERS = {
    "cpp": Driver(
        lang="cpp",
        toolchain="g++",
        executable="drivers/cpp/build/wirebench-cpp",
        build=(
            (
                "cmake",
                "-S",
                "drivers/cpp",
                "-B",
                "drivers/cpp/build",
                "-G",
                "Ninja",
                "-DCMAKE_BUILD_TYPE=Release",
            ),
            ("cmake", "--build", "drivers/cpp/build", "-j2"),
        ),
        tools=("cmake", "ninja", "g++", "capnp", "protoc", "flatc", "pkg-config"),
        pkgconfig=("capnp", "protobuf", "flatbuffers", "RapidJSON", "simdjson", "nlohmann_json"),
        install_hint=APT_CPP,
    ),
    "rust": Driver(
        lang="rust",
        toolchain="rustc",
        executable="drivers/rust/target/release/wirebench-rust",
        build=(("cargo", "build", "--release", "--manifest-path", "drivers/rust/Cargo.toml"),),
        # Code is generated from schemas/ with Debian's capnp, protoc and flatc.
        tools=("cargo", "capnp", "protoc", "flatc"),
        pkgconfig=(),
        install_hint="rustup, for cargo; " + APT_CPP,
    ),
    "go": Driver(
        lang="go",
        toolchain="gc",
        executable="drivers/go/bin/wirebench-go",
        # `go generate` runs capnpc-go and protoc-gen-go, pinned as tools in go.mod.
        build=(
            ("go", "-C", "drivers/go", "generate", "./..."),
            ("go", "-C", "drivers/go", "build", "-o", "bin/wirebench-go", "./cmd/wirebench-go"),
        ),
        tools=("go", "capnp", "protoc", "flatc"),
        pkgconfig=(),
        install_hint="Go 1.24 or later from go.dev; " + APT_CPP,
    ),
    "java": Driver(
        lang="java",
        toolchain="openjdk",
        # A committed launcher that starts the JVM with the flags in docs/methodology.md.
        executable="drivers/java/wirebench-java",
        artifact="drivers/java/target/wirebench-java.jar",
        build=(("mvn", "-q", "-B", "-f", "drivers/java/pom.xml", "package", "-DskipTests"),),
        tools=("java", "mvn", "flatc"),
        pkgconfig=(),
        install_hint="apt-get install -y openjdk-17-jdk-headless maven",
    ),
}


def get(name: str) -> Driver:
    try:
        return DRIVERS[name]
    except KeyError:
        raise DriverError(f"unknown language {name!r}; known: {', '.join(DRIVERS)}") from None


def _ask(driver: Driver, *args: str) -> str:
    if not driver.is_built():
        raise DriverError(
            f"the {driver.name} driver is not built: run `wirebench build {driver.name}`"
        )
    try:
        proc = subprocess.run([str(driver.path), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise DriverError(f"`{driver.name} {' '.join(args)}` failed: {e}") from None
    if proc.returncode != 0:
        raise DriverError(f"`{driver.name} {' '.join(args)}` failed: {proc.stderr.strip()}")
    return proc.stdout


@cache
def info(name: str) -> dict:
    """The driver's `info`: identity, protocol version, library versions. A driver of
    another protocol version, or that says it is another language or toolchain than its
    registration, is refused by name."""
    d = get(name)
    text = _ask(d, "info")
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
def list_cells(name: str) -> tuple[dict, ...]:
    """The cells the driver supports, as it lists them."""
    entries = []
    for n, line in enumerate(_ask(get(name), "list").splitlines(), 1):
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
