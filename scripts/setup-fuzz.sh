#!/usr/bin/env bash
# What `make test-fuzz` needs beyond scripts/setup.sh, and nothing that is already there:
# Rust's nightly toolchain and cargo-fuzz (cargo fuzz builds with -Zsanitizer, nightly only).
# clang and libFuzzer for the C++ targets come from setup.sh; Go's and Java's fuzzers come
# with their toolchains and the Maven build.
set -euo pipefail
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "setup-fuzz: installing Rust nightly"
  rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "setup-fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz --locked --quiet
fi
