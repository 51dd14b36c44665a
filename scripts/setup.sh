#!/usr/bin/env bash
# Installs what wirebench needs on a bare Debian bookworm machine, and nothing that is
# already there: the C++ and D toolchains and libraries, a JDK and Maven from Debian, uv
# from PyPI, the Python environment from uv.lock. Go and Rust are base toolchains
# (Debian's are too old); the Go, Rust and Java libraries come with each driver's build.
# Safe to run again; it is the first step of `make bench` and `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(cmake ninja-build g++ pkg-config capnproto libcapnp-dev protobuf-compiler
              libprotobuf-dev libgtest-dev flatbuffers-compiler libflatbuffers-dev
              libmsgpack-cxx-dev rapidjson-dev libsimdjson-dev nlohmann-json3-dev libjsoncpp-dev
              libcbor-dev libavro-dev libbson-dev libthrift-dev
              thrift-compiler  # Thrift's code generator, for every driver's Thrift code
              valgrind  # valgrind: `wirebench run --measure instructions`
              clang gdc ldc  # the readbytes suite's other compilers (C++ and D)
              lld  # ld.lld: the native drivers' links and their layout variants (wirebench/drivers.py)
              libclang-rt-14-dev  # libFuzzer and the sanitizers: the C++ fuzz targets
              chromium chromium-driver  # the HTML report's test opens it in headless Chromium
              postgresql)  # `--db postgresql://...`: the store's tests start a real server
# A JDK and Maven only where the machine has none (it may have its own, not Debian's).
command -v javac >/dev/null 2>&1 || APT_PACKAGES+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || APT_PACKAGES+=(maven)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Rust comes from rustup (a base toolchain here); clippy and rustfmt are its components.
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust with rustup" >&2
  exit 1
fi
if command -v rustup >/dev/null 2>&1; then
  rustup component add clippy rustfmt >/dev/null 2>&1 || true
fi

# The Go driver's go.mod pins its code generators as tools, which needs Go 1.24.
if ! command -v go >/dev/null 2>&1; then
  echo "setup: go not found; install Go 1.24 or later from go.dev" >&2
  exit 1
fi
go_minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if [ "${go_minor:-0}" -lt 24 ]; then
  echo "setup: $(go env GOVERSION) is too old; the Go driver needs Go 1.24 or later" >&2
  exit 1
fi

if ! command -v uv >/dev/null 2>&1; then
  echo "setup: installing uv"
  python3 -m pip install --quiet uv
fi
uv sync --quiet
