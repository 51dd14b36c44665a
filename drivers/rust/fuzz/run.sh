#!/bin/sh
# Runs every fuzz target of the Rust driver for SECONDS (default 5) on a copy of its
# committed corpus (corpus/<target>, so that the repository is not written), one target
# at a time, and fails at the first crash, timeout or out-of-memory (its input is left in
# fuzz/artifacts/<target>/, gitignored). Needs `cargo +nightly` and cargo-fuzz
# (`cargo install cargo-fuzz --locked`). README.md here says more.
set -eu
seconds=${1:-5}
cd "$(dirname "$0")"
# The release build as it ships (no overflow checks), with AddressSanitizer. Not -a: with
# debug assertions everywhere, flatbuffers 2.1.2's verifier panics on a table offset of
# i32::MIN (`abs()` in deref_soffset, codegened in our crate), where the shipped build
# wraps it into an offset the verifier refuses (regressions/codec_flatbuffers/).
flags="--release"  # -O: without it cargo fuzz adds -Cdebug-assertions
cargo +nightly fuzz build $flags
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in $(cargo +nightly fuzz list); do
    mkdir -p "$work/$target"
    if [ -d "corpus/$target" ]; then
        cp corpus/"$target"/* "$work/$target/"
    fi
    echo "fuzz: $target for ${seconds}s"
    cargo +nightly fuzz run $flags "$target" "$work/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        2>"$work/$target.log" || {
        cat "$work/$target.log" >&2
        echo "fuzz: $target FAILED (input in fuzz/artifacts/$target/)" >&2
        exit 1
    }
    grep -E '^stat::number_of_executed_units|^Done' "$work/$target.log" || true
done
