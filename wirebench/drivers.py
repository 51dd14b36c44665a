"""The drivers: where each driver lives, how it is built, and asking it things.

A driver's identity is its language and its toolchain (the compiler, or the JVM), so one
language can have several drivers (C++ by g++ and by clang++). DRIVERS is keyed by a
driver's name: the language for its primary driver, `LANG-TOOLCHAIN` for another.
Adding a driver is one entry in DRIVERS. Everything else about it is learnt by asking it
(`info`, `list`), following docs/protocol.md.

A native build also has layout variants: K executables that differ only in code layout,
made reproducibly from a seed, that benchmark rounds rotate over so that a ratio averages
over where the linker happened to put hot code (Mytkowicz et al., "Producing wrong data
without doing anything obviously wrong!", ASPLOS 2009). Variant 0 is the ordinary build;
variant k >= 1 is variant 0's objects linked again with the sections in an order drawn
from k: a link, never a recompile. Each build's `relink` (Relink and its subclasses below)
is the one place that knows its language's recipe; the JVM has none (it places compiled
code anew in every process).
"""

from __future__ import annotations

import contextlib
import filecmp
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import paths, pgo
from .cells import DEFAULT_BUILD
from .paths import ROOT
from .protocol import PROTOCOL

# The native drivers' compilers and libraries: scripts/setup.sh lists and installs them
# (one list: a library added there needs no second line here).
APT_CPP = "scripts/setup.sh (the compilers and libraries it lists)"

# The build locks this process holds (Driver._building).
_HELD: set = set()


class DriverError(RuntimeError):
    """A driver is missing, will not build, or answers outside the protocol."""


def _variant_executable(executable: str, layout: int) -> str:
    return executable if layout == 0 else f"{executable}.layout-{layout}"


def _run(log, cmd, root: Path = ROOT, env: dict | None = None) -> None:
    """Runs one build command in the driver's tree, `root` (the repository, or a library
    variant's tree: library_variants.py), with `env` added to the environment; a
    callable(log, root, env) is a step in Python. The output's tail is the error."""
    if callable(cmd):
        try:
            cmd(log, root, env)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            raise DriverError(str(e)) from e
        return
    log(f"$ {' '.join(cmd)}" + (f" (in {root})" if root != ROOT else ""))
    full_env = {**os.environ, **env} if env else None
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=full_env)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
        raise DriverError(tail)


def _elf_linker(path: Path) -> str | None:
    """The linker an executable's .comment names (lld writes "Linker: LLD 14.0.6"; gold
    and Go's linker write none), or None."""
    try:
        out = subprocess.run(
            ["readelf", "-p", ".comment", str(path)], capture_output=True, text=True
        ).stdout
    except OSError:
        return None
    found = re.search(r"Linker: ([^(\n]+)", out)
    return found.group(1).strip() if found else None


@cache
def _gold_version() -> str:
    try:
        out = subprocess.run(["ld.gold", "--version"], capture_output=True, text=True).stdout
    except OSError:
        return "gold"
    return out.splitlines()[0].strip() if out else "gold"


@dataclass(frozen=True)
class Relink:
    """How a build makes its layout variants 1..n-1: variant 0's objects linked again with
    a code layout drawn from the variant's number k. A subclass per build system; `steps`
    are run like Build.commands, after variant 0's own build."""

    linker: str = "lld"  # lld: --shuffle-sections=*=k; gold: --section-ordering-file

    def steps(self, build: Build, n: int) -> tuple:
        raise NotImplementedError

    def cleanup(self, build: Build) -> tuple:
        """Steps run after `steps`, even when one failed."""
        return ()

    def describe(self, exe: Path, k: int) -> str:
        """How variant k (0: the ordinary build) was linked, for provenance."""
        if self.linker == "gold":
            # g++ and gdc with LTO: lld cannot link GCC's LTO objects (drivers/cpp/
            # CMakeLists.txt, "Code layout").
            if k == 0:
                return f"linked by {_gold_version()} (GCC LTO), writing its map"
            return (
                f"relinked by {_gold_version()} (GCC LTO) with --section-ordering-file: "
                f"variant 0's .text.* sections (its map) in an order drawn from seed {k}"
            )
        lld = _elf_linker(exe) or "lld"
        if k == 0:
            return f"linked by {lld}, sections in input order"
        return f"relinked by {lld} with --shuffle-sections=*={k}"


@dataclass(frozen=True)
class CMakeRelink(Relink):
    """drivers/cpp: the targets wirebench-cpp.layout-K, K < WB_LAYOUTS, link the objects of
    wirebench-cpp; ninja keeps them current. WB_LAYOUTS only grows, so that no variant
    file is left behind by a target that no longer exists."""

    build_dir: str = ""

    def steps(self, build: Build, n: int) -> tuple:
        def configure(log, root, env):
            cache = root / self.build_dir / "CMakeCache.txt"
            found = re.search(r"^WB_LAYOUTS:STRING=(\d+)$", cache.read_text(), re.M)
            if found is None or int(found.group(1)) < n:
                cmd = ("cmake", "-S", "drivers/cpp", "-B", self.build_dir, f"-DWB_LAYOUTS={n}")
                _run(log, cmd, root, env)

        targets = [Path(_variant_executable(build.executable, k)).name for k in range(1, n)]
        return (configure, ("cmake", "--build", self.build_dir, "-j2", "--target", *targets))


@dataclass(frozen=True)
class MakeRelink(Relink):
    """drivers/d: the Makefile's pattern rules <executable>.layout-K relink its object."""

    def steps(self, build: Build, n: int) -> tuple:
        rel = Path(build.executable).relative_to("drivers/d")
        return (
            ("make", "-C", "drivers/d", *(_variant_executable(str(rel), k) for k in range(1, n))),
        )


def _copy_if_changed(source: str, dest: str):
    def copy(log, root, env):
        src, dst = root / source, root / dest
        if dst.is_file() and filecmp.cmp(src, dst, shallow=False):
            return
        log(f"copy {source} to {dest}")
        tmp = dst.with_name(dst.name + ".tmp")
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)

    return copy


@dataclass(frozen=True)
class CargoRelink(Relink):
    """drivers/rust: `cargo rustc` of the binary with the seed as a link argument (rustc
    emits a section per function on ELF, and links by lld: build.rs). Cargo keeps each
    seed's binary apart in deps/ (the extra arguments are part of its hash), so the
    library and the dependencies are not rebuilt and an unchanged variant is not relinked;
    but it also copies each to the build's executable, which the build's own command then
    restores (cargo copies the current binary again, with no link), failed or not. In the
    tuned profile that crate's compile is the fat LTO of the whole program (~25 s here)."""

    profile: tuple[str, ...] = ("--release",)

    def steps(self, build: Build, n: int) -> tuple:
        steps: list = []
        for k in range(1, n):
            steps.append(
                (
                    "cargo",
                    "rustc",
                    *self.profile,
                    "--manifest-path",
                    "drivers/rust/Cargo.toml",
                    "--bin",
                    "wirebench-rust",
                    "--",
                    "-C",
                    f"link-arg=-Wl,--shuffle-sections=*={k}",
                )
            )
            steps.append(
                _copy_if_changed(build.executable, _variant_executable(build.executable, k))
            )
        return tuple(steps)

    def cleanup(self, build: Build) -> tuple:
        return build.commands

    def describe(self, exe: Path, k: int) -> str:
        text = super().describe(exe, k)
        return text if k == 0 else f"{text} (cargo rustc, the binary crate only)"


@dataclass(frozen=True)
class GoRelink(Relink):
    """drivers/go: Go's own linker lays functions out in an order drawn from
    -randlayout=K (`go tool link -help`); the build cache has every package compiled, so
    this is a link, and none when the variant is already the one `go build` would make."""

    linker: str = "go"
    pgo: bool = False  # the tuned build: its profile is bin/default.pgo

    def steps(self, build: Build, n: int) -> tuple:
        pgo = ("-pgo=bin/default.pgo",) if self.pgo else ()
        out = Path(build.executable).relative_to("drivers/go")
        return tuple(
            (
                "go",
                "-C",
                "drivers/go",
                "build",
                *pgo,
                f"-ldflags=-randlayout={k}",
                "-o",
                _variant_executable(str(out), k),
                "./cmd/wirebench-go",
            )
            for k in range(1, n)
        )

    def describe(self, exe: Path, k: int) -> str:
        if k == 0:
            return "linked by Go's linker, functions in its own order"
        return f"relinked by Go's linker with -randlayout={k} (go build -ldflags)"


@dataclass(frozen=True)
class Build:
    """One build profile of a driver: what it makes and how."""

    executable: str  # relative to the repository root
    # Commands run in the repository root; a callable(log) is a step done in Python.
    commands: tuple = ()
    flags: str = ""  # what the profile means for this language, stored with every run
    # What the build makes, when the executable is a committed launcher (the JVM's jar).
    artifact: str | None = None
    relink: Relink | None = None  # how its layout variants are made; None: it has none


@dataclass(frozen=True)
class Driver:
    lang: str
    toolchain: str  # what `info` must say: g++, rustc, gc, openjdk
    builds: dict[str, Build]  # by profile; every driver has each of BUILDS
    tools: tuple[str, ...]  # programs the build needs on PATH
    pkgconfig: tuple[str, ...]  # libraries the build needs (pkg-config names)
    install_hint: str
    primary: bool = True  # the language's default driver (cells name no toolchain)
    # A library variant (library_variants.py): its label, the tree it is built in, and
    # what its builds add to the environment. None: the driver as committed.
    variant: str | None = None
    root: Path = ROOT
    build_env: dict[str, str] | None = None

    @property
    def name(self) -> str:
        base = self.lang if self.primary else f"{self.lang}-{self.toolchain}"
        return base if self.variant is None else f"{base}+{self.variant}"

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
        return self.root / self.profile(build).executable

    def is_built(self, build: str = DEFAULT_BUILD) -> bool:
        b = self.profile(build)
        exe = self.path(build)
        built = exe.is_file() and os.access(exe, os.X_OK)
        return built and (b.artifact is None or (self.root / b.artifact).is_file())

    def missing(self) -> list[str]:
        """Tools and libraries the build needs that this machine lacks."""
        absent = [t for t in self.tools if shutil.which(t) is None]
        if self.pkgconfig and shutil.which("pkg-config"):
            for lib in self.pkgconfig:
                probe = subprocess.run(["pkg-config", "--exists", lib], capture_output=True)
                if probe.returncode != 0:
                    absent.append(f"{lib} (library)")
        return absent

    @contextlib.contextmanager
    def _building(self):
        """One build of the driver at a time, across processes (two runs started at once,
        a fleet's worker beside a run, tests in parallel): otherwise both regenerate and
        relink the same files under each other (go generate, ninja, Maven have no lock of
        their own). Held once per process: a build within a build goes on."""
        tree = hashlib.sha1(str(self.root).encode()).hexdigest()[:12]
        # In the checkout's build/, never in the driver's tree: a revision's tree must not
        # exist before `git worktree add` makes it.
        path = ROOT / "build" / "locks" / f"{self.lang}-{tree}.lock"
        if path in _HELD:
            yield
            return
        with paths.locked(path):
            _HELD.add(path)
            try:
                yield
            finally:
                _HELD.discard(path)

    def build_driver(self, log, build: str = DEFAULT_BUILD, ran: set | None = None) -> None:
        """Runs the build's commands. `ran` holds the commands already run by this
        invocation (for several builds at once): one that is there is not run again, so
        that Go's tuned build does not redo the stock one nor Java's the jar."""
        with self._building():
            self._build_driver(log, build, ran)

    def _build_driver(self, log, build: str, ran: set | None) -> None:
        ran = set() if ran is None else ran
        absent = self.missing()
        if absent:
            raise DriverError(
                f"cannot build the {self.name} driver: missing {', '.join(absent)}; "
                f"install with: {self.install_hint}"
            )
        b = self.profile(build)
        for cmd in b.commands:
            if not callable(cmd):
                if cmd in ran:
                    continue
                ran.add(cmd)
            try:
                _run(log, cmd, self.root, self.build_env)
            except DriverError as e:
                sep = ": " if callable(cmd) else ":\n"
                raise DriverError(
                    f"building the {self.name} driver ({build}) failed{sep}{e}"
                ) from e
        if not self.is_built(build):
            raise DriverError(
                f"the {self.name} build ({build}) succeeded but {b.executable} is missing"
            )
        info.cache_clear()
        list_cells.cache_clear()

    # -- layout variants (the module's docstring) --

    @property
    def layouts(self) -> bool:
        """Whether the driver has layout variants (every native one; not the JVM)."""
        return all(b.relink is not None for b in self.builds.values())

    def _relink(self, build: str, layout: int) -> Relink | None:
        b = self.profile(build)
        if layout > 0 and b.relink is None:
            raise DriverError(
                f"the {self.name} driver has no layout variants (asked for variant {layout} "
                f"of its {build} build): its runtime places the code in every process"
            )
        if layout < 0:
            raise DriverError(f"no layout variant {layout} of the {self.name} driver: k >= 0")
        return b.relink

    def variant_path(self, build: str, layout: int) -> Path:
        """Variant 0 is the build's executable; variant k its `.layout-k` beside it."""
        self._relink(build, layout)
        return self.root / _variant_executable(self.profile(build).executable, layout)

    def variant_built(self, build: str, layout: int) -> bool:
        if layout == 0:
            return self.is_built(build)
        exe = self.variant_path(build, layout)
        return exe.is_file() and os.access(exe, os.X_OK)

    def build_variants(self, log, build: str, k: int, ran: set | None = None) -> None:
        """Makes variants 1..k-1 of the build, current with variant 0 (built first, as
        build_driver does: `ran` is its). Cheap when they are: every recipe is a build
        system's target (ninja, make, cargo, go's cache)."""
        with self._building():
            self._build_variants(log, build, k, ran)

    def _build_variants(self, log, build: str, k: int, ran: set | None) -> None:
        relink = self._relink(build, 1 if k > 1 else 0)
        self.build_driver(log, build, ran)
        if k <= 1:
            return
        what = f"the layout variants 1-{k - 1} of the {self.name} driver ({build})"
        b = self.profile(build)
        if self._variants_current(build, k):
            return  # a relink costs up to 2 s a variant (Go's linker) for nothing
        try:
            try:
                for step in relink.steps(b, k):
                    _run(log, step, self.root, self.build_env)
            finally:
                for step in relink.cleanup(b):
                    _run(log, step, self.root, self.build_env)
        except DriverError as e:
            raise DriverError(f"building {what} failed:\n{e}") from e
        missing = [
            str(self.variant_path(build, n))
            for n in range(1, k)
            if not self.variant_built(build, n)
        ]
        if missing:
            raise DriverError(f"building {what} succeeded but {', '.join(missing)} is missing")
        self._stamp(build).write_text(f"{_digest(self.variant_path(build, 0))} {k}\n")

    def _stamp(self, build: str) -> Path:
        """Beside variant 0: its digest and the variants made from it (_variants_current)."""
        exe = self.variant_path(build, 0)
        return exe.with_name(exe.name + ".layouts")

    def _variants_current(self, build: str, k: int) -> bool:
        """Whether variants 1..k-1 exist and were made from variant 0 as it is now (a
        build rewrites it, Go's even unchanged: its bytes, not its time, say)."""
        try:
            digest, made = self._stamp(build).read_text().split()
        except (OSError, ValueError):
            return False
        return (
            int(made) >= k
            and digest == _digest(self.variant_path(build, 0))
            and all(self.variant_built(build, n) for n in range(1, k))
        )

    def variant_flags(self, build: str, layout: int) -> str:
        """One line: how the variant was made (stored in the run's provenance)."""
        relink = self._relink(build, layout)
        if relink is None:
            return "the ordinary build (no layout variants: the JVM places code per process)"
        return relink.describe(self.variant_path(build, layout), layout)


def _digest(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha1").hexdigest()


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


# Every native C++ and D build compiles a section per function and datum and links with
# lld (gold for GCC's LTO), so that its layout variants differ from it by the seed alone.
_SECTIONS_LLD = "; -ffunction-sections -fdata-sections, linked by lld"
_SECTIONS_GOLD = "; -ffunction-sections -fdata-sections, linked by gold (lld cannot link GCC LTO)"


def _d(compiler: str) -> Driver:
    """The D driver as one compiler builds it (drivers/d/Makefile)."""
    exe = f"drivers/d/build/wirebench-d-{compiler}"
    tuned_linker = "gold" if compiler == "gdc" else "lld"
    return Driver(
        lang="d",
        toolchain=compiler,
        builds={
            "stock": Build(
                exe,
                (("make", "-C", "drivers/d", f"build/wirebench-d-{compiler}"),),
                "dub's release build type as it drives this compiler (drivers/d/Makefile)"
                + _SECTIONS_LLD,
                relink=MakeRelink(),
            ),
            "tuned": Build(
                f"{exe}-tuned",
                (("make", "-C", "drivers/d", f"build/wirebench-d-{compiler}-tuned"),),
                "-O3, no bounds checks, LTO (drivers/d/Makefile)"
                + (_SECTIONS_GOLD if tuned_linker == "gold" else _SECTIONS_LLD),
                relink=MakeRelink(linker=tuned_linker),
            ),
        },
        tools=("make", compiler, "ld.lld"),
        pkgconfig=(),
        install_hint=f"apt-get install -y {'ldc' if compiler == 'ldc2' else 'gdc'} lld",
        primary=False,
    )


_GO_GENERATE = ("go", "-C", "drivers/go", "generate", "./...")
_GO_STOCK = ("go", "-C", "drivers/go", "build", "-o", "bin/wirebench-go", "./cmd/wirebench-go")
_MVN = ("mvn", "-q", "-B", "-f", "drivers/java/pom.xml", "package", "-DskipTests")
_JAR = "drivers/java/target/wirebench-java.jar"
# The Java driver's class-data-sharing archive: the classes its cells load, parsed and
# verified once at build time (the launcher maps it; drivers/java/wirebench-java).
_JSA = "drivers/java/target/wirebench-java.jsa"
# What the jar is made from: Maven's project, the driver's own sources, and the shared
# schemas it generates code from (and copies into the jar: log.avsc, logs.avsc).
_JAVA_SOURCES = ("drivers/java/pom.xml", "drivers/java/src/main", "schemas")
# What the archive is made from besides the jar: the libraries beside it and the launcher
# (its flags: the archive records the class path and the modules it was made with).
_JAVA_ARCHIVED = (_JAR, "drivers/java/target/lib", "drivers/java/wirebench-java")
# The archive's training run (the cells whose classes it holds).
_JAVA_TRAINING = "drivers/java/src/main/java/wirebench/CdsTraining.java"
# What a build last made, and from what (_java_build).
_JAVA_STAMP = "drivers/java/target/wirebench-java.built"


def _files_digest(root: Path, paths) -> str:
    """The name, size and modification time (ns) of every file under `paths`: changes
    when a file is edited, added, removed, or replaced by an older copy (a git checkout, a
    library variant's tree synced with its times kept), which "newer than the jar" misses."""
    h = hashlib.sha256()
    for rel in paths:
        top = root / rel
        files = sorted(f for f in top.rglob("*") if f.is_file()) if top.is_dir() else [top]
        for f in files:
            try:
                st = f.stat()
            except FileNotFoundError:
                h.update(f"{rel}\0missing\n".encode())
                continue
            h.update(f"{f.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _tools(*names: str) -> str:
    """The programs on PATH that generate code into the jar, by path, size and time."""
    out = []
    for name in names:
        found = shutil.which(name)
        st = Path(found).resolve().stat() if found else None
        out.append(f"{name}\0{found}\0{st.st_size}\0{st.st_mtime_ns}" if st else name)
    return "\0".join(out)


def _jdk() -> str:
    """The JDK on PATH, by its module image: a new JDK (an upgrade too) cannot map an
    archive another one made."""
    java = shutil.which("java")
    if java is None:
        return "none"
    modules = Path(java).resolve().parent.parent / "lib" / "modules"
    try:
        st = modules.stat()
    except OSError:
        return str(modules)
    return f"{modules}\0{st.st_size}\0{st.st_mtime_ns}"


def _java_build(log, root: Path, env: dict | None) -> None:
    """The Java driver's build: Maven's package, then the class-data-sharing archive, each
    only when what it is made from changed since the last build (recorded in _JAVA_STAMP).
    Maven has no up-to-date check of its own worth the name: a package of an unchanged tree
    still runs every generator and the compiler (~45 s here); cargo, ninja, make and go's
    cache are the other drivers' checks."""
    stamp = root / _JAVA_STAMP
    try:
        last = json.loads(stamp.read_text())
    except (OSError, ValueError):
        last = {}
    sources = _files_digest(root, _JAVA_SOURCES) + "\0" + _tools("flatc", "thrift")
    if last.get("sources") != sources or not (root / _JAR).is_file():
        stamp.unlink(missing_ok=True)
        _run(log, _MVN, root, env)
    archived = _files_digest(root, _JAVA_ARCHIVED) + "\0" + _jdk()
    if not (root / _JAVA_TRAINING).is_file():
        # A revision from before the archive (an A/B run's other side): none to make.
        (root / _JSA).unlink(missing_ok=True)
    elif last.get("archived") != archived or not (root / _JSA).is_file():
        try:
            _java_archive(log, root, env)
        except DriverError as e:
            # The driver runs without one, loading its classes from the jars (slower to
            # start, the same code): said, and tried again by the next build.
            (root / _JSA).unlink(missing_ok=True)
            log(f"warning: no class-data-sharing archive for the java driver: {e}")
            archived = None
    stamp.write_text(json.dumps({"sources": sources, "archived": archived}) + "\n")


def _java_archive(log, root: Path, env: dict | None) -> None:
    """Makes the Java driver's class-data-sharing archive: the launcher runs
    wirebench.CdsTraining (one small cell of each case, library and rpc mode of every
    suite, in one JVM, untimed) with -XX:ArchiveClassesAtExit, into a temporary file
    renamed into place, so that no process maps half an archive."""
    jsa = root / _JSA
    tmp = jsa.with_name(jsa.name + ".tmp")
    tmp.unlink(missing_ok=True)
    log(f"class-data-sharing archive {_JSA} (wirebench.CdsTraining)")
    with tempfile.TemporaryDirectory(prefix="wirebench-cds-") as scratch:
        launcher = str(root / "drivers/java/wirebench-java")
        cmd_env = {
            **(env or {}),
            "WIREBENCH_JAVA_CDS_DUMP": str(tmp),
            "WIREBENCH_JVM_OPTS": "",  # the launcher's flags and nothing else
            "WIREBENCH_JAVA_CLASSPATH": "",
        }
        _run(log, (launcher, scratch), root, cmd_env)
    if not tmp.is_file():
        raise DriverError(f"the JVM made no class-data-sharing archive ({tmp})")
    os.replace(tmp, jsa)


DRIVERS = {
    "cpp": Driver(
        lang="cpp",
        toolchain="g++",
        builds={
            "stock": Build(
                "drivers/cpp/build/wirebench-cpp",
                _cmake("drivers/cpp/build", "stock"),
                "CMake Release: -O2 -DNDEBUG, Debian's shared libraries" + _SECTIONS_LLD,
                relink=CMakeRelink(build_dir="drivers/cpp/build"),
            ),
            "tuned": Build(
                "drivers/cpp/build-tuned/wirebench-cpp",
                _cmake("drivers/cpp/build-tuned", "tuned"),
                "-O3 -DNDEBUG -flto, Debian's static libcapnp, libkj, libprotobuf and "
                "libflatbuffers (simdjson ships no static library: shared)" + _SECTIONS_GOLD,
                relink=CMakeRelink(linker="gold", build_dir="drivers/cpp/build-tuned"),
            ),
        },
        # SBE's generator is a Java program (scripts/sbe-generate.sh), fetched once by mvn.
        tools=(
            *("cmake", "ninja", "g++", "ld.lld", "pkg-config"),
            *("capnp", "protoc", "flatc", "thrift", "java", "mvn"),
        ),
        pkgconfig=(
            *("capnp", "protobuf", "flatbuffers", "RapidJSON", "simdjson", "nlohmann_json"),
            *("libcbor", "libbson-1.0", "avro-c", "thrift"),
        ),
        install_hint=APT_CPP,
    ),
    "cpp-clang++": Driver(
        lang="cpp",
        toolchain="clang++",
        builds={
            "stock": Build(
                "drivers/cpp/build-clang/wirebench-cpp",
                _cmake("drivers/cpp/build-clang", "stock", *_CLANG),
                "CMake Release by clang++: -O2 -DNDEBUG (suites limit and readbytes)"
                + _SECTIONS_LLD,
                relink=CMakeRelink(build_dir="drivers/cpp/build-clang"),
            ),
            "tuned": Build(
                "drivers/cpp/build-clang-tuned/wirebench-cpp",
                _cmake("drivers/cpp/build-clang-tuned", "tuned", *_CLANG),
                "clang++ -O3 -DNDEBUG -flto (suites limit and readbytes)" + _SECTIONS_LLD,
                relink=CMakeRelink(build_dir="drivers/cpp/build-clang-tuned"),
            ),
        },
        tools=("cmake", "ninja", "clang++", "ld.lld"),
        pkgconfig=(),
        install_hint="apt-get install -y cmake ninja-build clang lld",
        primary=False,
    ),
    "rust": Driver(
        lang="rust",
        toolchain="rustc",
        # Code is generated from schemas/ with Debian's capnp, protoc, flatc and thrift, and
        # SBE's generator (Java, scripts/sbe-generate.sh).
        builds={
            "stock": Build(
                "drivers/rust/target/release/wirebench-rust",
                (("cargo", "build", "--release", "--manifest-path", "drivers/rust/Cargo.toml"),),
                "cargo build --release: Cargo's default release profile (opt-level 3, "
                "no cross-crate LTO, 16 codegen units); linked by lld",
                relink=CargoRelink(),
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
                "cargo profile `tuned`: release with lto = fat, codegen-units = 1; linked by lld",
                relink=CargoRelink(profile=("--profile", "tuned")),
            ),
        },
        tools=("cargo", "capnp", "protoc", "flatc", "thrift", "java", "mvn"),
        pkgconfig=(),
        install_hint="rustup, for cargo; " + APT_CPP,
    ),
    "go": Driver(
        lang="go",
        toolchain="gc",
        # `go generate` runs capnpc-go and protoc-gen-go, pinned as tools in go.mod.
        builds={
            "stock": Build(
                "drivers/go/bin/wirebench-go",
                (_GO_GENERATE, _GO_STOCK),
                "go build",
                relink=GoRelink(),
            ),
            "tuned": Build(
                "drivers/go/bin/wirebench-go-tuned",
                (
                    _GO_GENERATE,
                    _GO_STOCK,
                    lambda log, root, env: pgo.profile_go(root / "drivers/go/bin", log),
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
                relink=GoRelink(pgo=True),
            ),
        },
        tools=("go", "capnp", "protoc", "flatc", "thrift", "java", "mvn"),
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
                (_java_build,),
                "the launcher's measurement flags only (a fixed heap by suite, SerialGC, "
                "foreground JIT, a class-data-sharing archive)",
                _JAR,
            ),
            "tuned": Build(
                "drivers/java/wirebench-java-tuned",
                (_java_build,),
                "the stock flags plus -XX:+UseTransparentHugePages",
                _JAR,
            ),
        },
        tools=("java", "mvn", "flatc", "thrift"),
        pkgconfig=(),
        install_hint="apt-get install -y openjdk-17-jdk-headless maven",
    ),
    "d-gdc": _d("gdc"),
    "d-ldc2": _d("ldc2"),
}


# The library variants of this invocation, by name (library_variants.add).
VARIANTS: dict[str, Driver] = {}


def get(name: str) -> Driver:
    try:
        return DRIVERS.get(name) or VARIANTS[name]
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
