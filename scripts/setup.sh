#!/usr/bin/env bash
# Installs what wirebench needs on a bare Debian bookworm machine, and nothing that is
# already there: the C++ toolchain and libraries from Debian, uv from PyPI, the Python
# environment from uv.lock. Safe to run again; it is the first step of `make bench` and
# `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(cmake ninja-build g++ pkg-config capnproto libcapnp-dev protobuf-compiler
              libprotobuf-dev libgtest-dev)

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

if ! command -v uv >/dev/null 2>&1; then
  echo "setup: installing uv"
  python3 -m pip install --quiet uv
fi
uv sync --quiet
