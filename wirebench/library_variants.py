"""Library variants: a driver built against another version or checkout of one library,
`wirebench run --with LANG:NAME=SOURCE` (docs/methodology.md, "Library variants").

NAME is a library as the driver's `info` names it in `versions`; its package is the one
`packages` gives (a Go module, a Maven artifact) or NAME itself (a Rust crate), as
docs/protocol.md says. SOURCE is a published version (`rust:capnp=0.26.0`,
`go:protobuf=v1.36.0`, `java:jackson=2.18.2`), or a directory: a checkout of the library
(`rust:capnp=~/src/capnproto-rust`, `go:capnp=../go-capnp`, `java:capnp=../capnproto-java`,
which Maven builds and installs), or for C++, whose libraries come from Debian, an
install prefix (`cpp:capnp=/opt/capnp-1.1`).

A variant is built in a tree of its own, build/variants/LANG-LABEL/: a copy of the
driver's committed files with schemas/ and testdata/ linked, in which the ecosystem's own
tool substitutes the package. Cargo: `cargo add NAME@=VERSION` (with every crate of the
driver's that comes from the same repository, released with it, as capnp and capnpc), or
`cargo add --path` the checkout's crates. Go: `go get MODULE@VERSION`, or `go mod edit
-replace` to the checkout. Maven: the dependency's version in the pom (its property, when
it has one, which moves the artifacts released with it), after `mvn install` of a
checkout. CMake: the prefix first on CMAKE_PREFIX_PATH, PKG_CONFIG_PATH and PATH. The
committed manifests are never touched.

The variant is a driver of its own (drivers.VARIANTS, named `rust+capnp@0.26.0`): it has
its base driver's builds and layout variants, its cells carry `variant=LABEL`, and its
`info` goes into the run's provenance beside the source (and a checkout's commit, dirty or
not). After every build it must report the version it was asked for.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from . import drivers
from .paths import ROOT

TREES = ROOT / "build" / "variants"
GOLDEN = ROOT / "testdata" / "golden"
# What a variant's tree links from the repository rather than copies: what the drivers'
# builds read outside their own folder.
LINKED = ("schemas", "testdata", "scripts")
# What a new variant's tree starts from, copied from the driver's folder: the build
# outputs of its dependencies (Cargo then compiles only the crates that changed).
SEEDS = {"rust": ("target/release",)}
# Per language: the manifests a substitution rewrites.
MANIFESTS = {
    "rust": ("Cargo.toml", "Cargo.lock"),
    "go": ("go.mod", "go.sum"),
    "java": ("pom.xml",),
    "cpp": (),
}
SPEC = re.compile(r"^(?P<lang>[a-z]+):(?P<name>[A-Za-z0-9_.:+-]+)=(?P<source>.+)$")


class VariantError(ValueError):
    """A --with that cannot be a variant: its syntax, driver, library or source."""


# Two variants of the driver's own code rather than of a library: NAME `patch` with a
# patch file (the committed drivers as they are in the work tree, with the patch applied:
# a change under test), and NAME `rev` with a git revision (its drivers, built in a git
# worktree of it: one wirebench revision against another).
PATCH, REVISION = "patch", "rev"


@dataclass(frozen=True)
class Variant:
    lang: str  # the base driver's name (cpp, rust, go, java, ...)
    name: str  # a name of the base driver's `info` versions, or PATCH or REVISION
    source: str  # as given: a version, a directory, a patch file; a revision's commit

    @property
    def directory(self) -> Path | None:
        """The checkout or prefix the source names; None for a version."""
        if self.name in (PATCH, REVISION):
            return None
        path = Path(self.source).expanduser()
        looks_like_a_path = "/" in self.source or self.source.startswith(("~", "."))
        return path.resolve() if path.is_dir() or looks_like_a_path else None

    @property
    def kind(self) -> str:
        if self.name in (PATCH, REVISION):
            return {PATCH: "patch", REVISION: "revision"}[self.name]
        if self.directory is None:
            return "version"
        return "prefix" if self.lang.startswith("cpp") else "checkout"

    @property
    def label(self) -> str:
        """How tables name it: NAME@VERSION, NAME@ the directory's (or patch's) name,
        rev@ the commit."""
        if self.kind == "revision":
            return f"{REVISION}@{self.source[:10]}"
        if self.kind == "patch":
            return f"{PATCH}@{Path(self.source).stem}"
        d = self.directory
        return f"{self.name}@{d.name if d else self.source}"

    @property
    def driver_name(self) -> str:
        return f"{self.lang}+{self.label}"

    @property
    def tree(self) -> Path:
        if self.kind == "revision":  # one worktree for every driver of the revision
            return TREES / f"rev-{self.source[:12]}"
        slug = re.sub(r"[^A-Za-z0-9_.@-]", "_", self.label)
        return TREES / f"{self.lang}-{slug}"

    def to_json(self) -> dict:
        return {"lang": self.lang, "name": self.name, "source": self.source}

    @staticmethod
    def from_json(d: dict) -> Variant:
        return Variant(d["lang"], d["name"], d["source"])


def parse(spec: str) -> Variant:
    """A --with value, checked against the base driver's `info` (which must be built)."""
    m = SPEC.match(spec)
    if m is None:
        raise VariantError(
            f"--with {spec!r}: expected LANG:NAME=SOURCE (rust:capnp=0.26.0, "
            "go:capnp=../go-capnp, cpp:capnp=/opt/capnp-1.1)"
        )
    v = Variant(m["lang"], m["name"], m["source"])
    if v.name in (PATCH, REVISION):
        return _own_code(spec, v)
    if v.lang not in MANIFESTS:
        raise VariantError(
            f"--with {spec!r}: no library variants of a {v.lang!r} driver; "
            f"languages: {', '.join(MANIFESTS)}"
        )
    if v.directory is not None and not v.directory.is_dir():
        raise VariantError(f"--with {spec!r}: {v.directory} is not a directory")
    if v.lang == "cpp" and v.kind != "prefix":
        raise VariantError(
            f"--with {spec!r}: C++ libraries come from Debian; a C++ variant is an install "
            "prefix (a directory with include/ and lib/), not a version"
        )
    try:
        versions = drivers.info(v.lang).get("versions", {})
    except drivers.DriverError as e:
        raise VariantError(f"--with {spec!r}: {e}") from None
    names = sorted(k for k in versions if k != "compiler")
    if v.name not in names:
        raise VariantError(
            f"--with {spec!r}: the {v.lang} driver has no library {v.name!r}; "
            f"its libraries (`info` versions): {', '.join(names)}"
        )
    return v


def _own_code(spec: str, v: Variant) -> Variant:
    """A patch or revision variant, its source made absolute (a file, a commit)."""
    try:
        drivers.get(v.lang)
    except drivers.DriverError as e:
        raise VariantError(f"--with {spec!r}: {e}") from None
    return Variant(v.lang, v.name, resolve(spec, v.name, v.source))


def resolve(spec: str, name: str, source: str) -> str:
    """A patch's absolute path, or a revision's commit."""
    if name == PATCH:
        path = Path(source).expanduser().resolve()
        if not path.is_file():
            raise VariantError(f"{spec!r}: no patch file {path}")
        return str(path)
    found = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{source}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        raise VariantError(f"{spec!r}: no commit {source!r} in {ROOT}")
    return found.stdout.strip()


def package(v: Variant) -> str:
    """The ecosystem's package of the library (docs/protocol.md, `packages`)."""
    return drivers.info(v.lang).get("packages", {}).get(v.name, v.name)


def add(v: Variant) -> drivers.Driver:
    """The variant's driver, registered (drivers.get finds it by its name)."""
    base = drivers.get(v.lang)
    library = v.name not in (PATCH, REVISION)
    builds = {
        name: dataclasses.replace(
            b,
            commands=(
                _prepare(v, base),
                *b.commands,
                *((_verify(v, b.executable),) if library else ()),
            ),
        )
        for name, b in base.builds.items()
    }
    d = dataclasses.replace(
        base, builds=builds, variant=v.label, root=v.tree, build_env=_build_env(v)
    )
    drivers.VARIANTS[d.name] = d
    return d


def describe(v: Variant) -> dict:
    """The variant's provenance: its source, package, and a checkout's commit (a patch's
    digest; a revision's commit is its source)."""
    out = {**v.to_json(), "kind": v.kind, "label": v.label}
    if v.kind == "patch":
        return out | {"sha256": hashlib.sha256(Path(v.source).read_bytes()).hexdigest()}
    if v.kind == "revision":
        return out
    out["package"] = package(v)
    if v.directory is not None and (v.directory / ".git").exists():
        git = ("git", "-C", str(v.directory))
        head = subprocess.run((*git, "rev-parse", "HEAD"), capture_output=True, text=True)
        status = subprocess.run((*git, "status", "--porcelain"), capture_output=True, text=True)
        out["commit"] = head.stdout.strip() or None
        out["dirty"] = bool(status.stdout.strip())
    return out


# -- the variant's tree --------------------------------------------------------------


def _folder(base: drivers.Driver) -> str:
    """The driver's folder in the repository (drivers/rust), from its executable."""
    return "/".join(Path(base.profile("stock").executable).parts[:2])


def _prepare(v: Variant, base: drivers.Driver):
    """The build's first step: the tree, current with the repository, and the package
    substituted (again only when the base manifests or the source changed)."""
    folder = _folder(base)

    def prepare(log, root, env):
        if v.kind == "revision":
            if not (root / ".git").exists():
                _tool(log, ["git", "worktree", "add", "--detach", str(root), v.source], ROOT)
        else:
            _sync(folder, root, skip=() if v.kind == "patch" else MANIFESTS[v.lang])
        for seed in SEEDS.get(v.lang, ()):
            if (ROOT / folder / seed).is_dir() and not (root / folder / seed).exists():
                log(f"seeding {root / folder / seed} from {folder}/{seed}")
                shutil.copytree(ROOT / folder / seed, root / folder / seed, symlinks=True)
        if v.kind == "patch":  # its part of the patch, on the files as committed
            apply = ["git", "apply", "--allow-empty", f"--include={folder}/*", v.source]
            # The tree lies inside the repository: git must not take it for a part of it.
            _tool(log, apply, root, {"GIT_CEILING_DIRECTORIES": str(root.parent)})
            return
        if v.kind == "revision":
            return
        stamp = root / ".wirebench-variant"
        # Substituted again when the base manifests or this recipe change.
        base = _digest(ROOT / folder / m for m in MANIFESTS[v.lang])
        want = json.dumps({**v.to_json(), "base": base, "recipe": _digest([Path(__file__)])})
        if stamp.is_file() and stamp.read_text() == want and v.kind == "version":
            return
        for name in MANIFESTS[v.lang]:
            shutil.copy2(ROOT / folder / name, root / folder / name)
        log(f"substituting {package(v)} = {v.source} in {root / folder}")
        SUBSTITUTE[v.lang](v, root / folder, log)
        stamp.write_text(want)

    return prepare


def _sync(folder: str, root: Path, skip=()) -> None:
    """Copies the driver's committed files (as they are in the work tree) into the tree,
    only those that changed (builds stay incremental), and drops the ones gone since."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", folder], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    files = [f for f in listed.split("\0") if f and Path(f).name not in skip]
    root.mkdir(parents=True, exist_ok=True)
    for name in LINKED:
        link = root / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name)
    index = root / ".wirebench-files"
    before = set(index.read_text().splitlines()) if index.is_file() else set()
    for f in files:
        src, dst = ROOT / f, root / f
        if not src.exists():
            continue  # deleted in the work tree
        if dst.is_file() and dst.read_bytes() == src.read_bytes():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    for gone in before - set(files):
        (root / gone).unlink(missing_ok=True)
    index.write_text("\n".join(files))


def _digest(files) -> str:
    h = hashlib.sha256()
    for f in files:
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _build_env(v: Variant) -> dict[str, str] | None:
    if v.kind != "prefix":
        return None
    p = v.directory
    pkgconfig = [p / "lib/pkgconfig", p / "lib/x86_64-linux-gnu/pkgconfig", p / "share/pkgconfig"]
    return {
        "CMAKE_PREFIX_PATH": os.pathsep.join([str(p), os.environ.get("CMAKE_PREFIX_PATH", "")]),
        "PKG_CONFIG_PATH": os.pathsep.join(
            [*map(str, pkgconfig), os.environ.get("PKG_CONFIG_PATH", "")]
        ),
        "PATH": os.pathsep.join([str(p / "bin"), os.environ.get("PATH", "")]),
    }


def _verify(v: Variant, executable: str):
    """The build's last step: the built driver reports the version asked for, and reads
    every language's golden files (testdata/golden) as the committed driver does: a
    library that no longer reads the others' bytes is no variant to time."""

    def verify(log, root, env):
        exe = str(root / executable)
        reported = json.loads(_tool(log, [exe, "info"], root)).get("versions", {}).get(v.name)
        log(f"the variant reports {v.name} {reported}")
        if v.kind == "version" and (reported or "").lstrip("v") != v.source.lstrip("v"):
            raise RuntimeError(
                f"the {v.driver_name} driver reports {v.name} {reported}, not {v.source}: "
                "the substitution did not take"
            )
        for writer in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
            _tool(log, [exe, "golden", "check", str(writer)], root)

    return verify


def _tool(log, cmd: list[str], cwd: Path, env: dict | None = None) -> str:
    log(f"$ {' '.join(cmd)}")
    full_env = {**os.environ, **env} if env else None
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=full_env)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        raise RuntimeError(f"`{' '.join(cmd)}` failed:\n{tail}")
    return proc.stdout


# -- each ecosystem's substitution -------------------------------------------------


def _cargo(v: Variant, folder: Path, log) -> None:
    manifest = str(folder / "Cargo.toml")
    meta = json.loads(
        _tool(
            log, ["cargo", "metadata", "--format-version", "1", "--manifest-path", manifest], folder
        )
    )
    by_id = {p["id"]: p for p in meta["packages"]}
    root = by_id[meta["resolve"]["root"]]
    node = next(n for n in meta["resolve"]["nodes"] if n["id"] == root["id"])
    resolved = {d["name"]: by_id[d["pkg"]] for d in node["deps"]}
    kinds = {d["name"].replace("-", "_"): d["kind"] for d in root["dependencies"]}
    crate = v.name
    if crate.replace("-", "_") not in resolved:
        raise RuntimeError(f"drivers/rust/Cargo.toml has no dependency {crate!r}")
    flag = {"build": ["--build"], "dev": ["--dev"]}

    def cargo_add(name: str, *what: str) -> None:
        kind = kinds.get(name.replace("-", "_"))
        _tool(
            log, ["cargo", "add", "--manifest-path", manifest, *flag.get(kind, []), *what], folder
        )

    if v.kind == "version":
        this = resolved[crate.replace("-", "_")]
        repository = this.get("repository")
        family = [
            p["name"] for p in resolved.values() if repository and p.get("repository") == repository
        ]
        family = family or [this["name"]]
        for name in sorted(set(family)):
            cargo_add(name, f"{name}@={v.source}")
        return
    checkout = json.loads(
        _tool(
            log,
            [
                "cargo",
                "metadata",
                "--no-deps",
                "--format-version",
                "1",
                "--manifest-path",
                str(v.directory / "Cargo.toml"),
            ],
            folder,
        )
    )
    members = {p["name"]: Path(p["manifest_path"]).parent for p in checkout["packages"]}
    if crate not in members:
        raise RuntimeError(f"{v.directory} has no crate {crate!r} (it has {', '.join(members)})")
    for name, path in sorted(members.items()):
        if name.replace("-", "_") in resolved:
            cargo_add(name, "--path", str(path))


def _go(v: Variant, folder: Path, log) -> None:
    module = package(v)
    if v.kind == "version":
        version = v.source if v.source.startswith("v") else f"v{v.source}"
        _tool(log, ["go", "get", f"{module}@{version}"], folder)
        return
    _tool(log, ["go", "mod", "edit", f"-replace={module}={v.directory}"], folder)
    _tool(log, ["go", "mod", "tidy"], folder)


POM = "http://maven.apache.org/POM/4.0.0"


def _maven(v: Variant, folder: Path, log) -> None:
    group, artifact = package(v).split(":")
    version = v.source
    if v.kind == "checkout":
        _tool(log, ["mvn", "-q", "-B", "install", "-DskipTests", "-f", str(v.directory)], folder)
        project = ET.parse(v.directory / "pom.xml").getroot()
        found = project.findtext(f"{{{POM}}}version") or project.findtext(
            f"{{{POM}}}parent/{{{POM}}}version"
        )
        if not found:
            raise RuntimeError(f"{v.directory}/pom.xml names no version")
        version = found.strip()
    ET.register_namespace("", POM)
    tree = ET.parse(folder / "pom.xml")
    ns = {"m": POM}
    project = tree.getroot()
    deps = project.findall(".//m:dependency", ns)
    target = next(
        (
            d
            for d in deps
            if d.findtext("m:groupId", namespaces=ns) == group
            and d.findtext("m:artifactId", namespaces=ns) == artifact
        ),
        None,
    )
    if target is None or target.find("m:version", ns) is None:
        raise RuntimeError(f"drivers/java/pom.xml has no versioned dependency {group}:{artifact}")
    current = target.find("m:version", ns).text.strip()
    prop = re.fullmatch(r"\$\{(.+)\}", current)
    if prop:
        node = project.find(f"m:properties/m:{prop[1]}", ns)
        if node is None:
            raise RuntimeError(f"drivers/java/pom.xml has no property {prop[1]}")
        node.text = version
    else:  # the artifacts of the group released with it: the same literal version
        for d in deps:
            same_group = d.findtext("m:groupId", namespaces=ns) == group
            if same_group and (d.findtext("m:version", namespaces=ns) or "").strip() == current:
                d.find("m:version", ns).text = version
    log(f"{group}:{artifact} {current} -> {version} in {folder / 'pom.xml'}")
    tree.write(folder / "pom.xml", xml_declaration=True, encoding="UTF-8")


SUBSTITUTE = {"rust": _cargo, "go": _go, "java": _maven, "cpp": lambda v, folder, log: None}
