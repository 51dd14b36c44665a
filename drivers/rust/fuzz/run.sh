#!/bin/sh
# Fuzzes every codec and rpc library of the Rust driver's registry for SECONDS each
# (default 5), one at a time: the targets `codec` and `rpc` are generic over the library,
# named by $WB_FUZZ_LIB, and the libraries are the driver's `list`. Each runs on its
# cached corpus, corpus/<suite>_<lib> (gitignored; created, then grown by each run), plus
# the seeds seeds.py makes from the golden files (with --logs also the large `logs`
# encodings, for long runs). Prints, per target, on stdout:
#     fuzz-executions<TAB>rust<TAB>TARGET<TAB>EXECUTIONS<TAB>SECONDS
# and fails if any target found a crash, timeout or out-of-memory (its input is left in
# artifacts/<suite>/, gitignored). Needs `cargo +nightly` and cargo-fuzz
# (`cargo install cargo-fuzz --locked`). README.md here says more.
#
#     run.sh [SECONDS] [--logs] [TARGET...]     e.g. run.sh 60 --logs codec_sonic_rs
set -eu
seconds=${1:-5}
[ $# -gt 0 ] && shift
logs=
if [ "${1:-}" = --logs ]; then
    logs=--logs
    shift
fi
cd "$(dirname "$0")"
# The release build as it ships (no overflow checks), with AddressSanitizer. Not -a: with
# debug assertions everywhere, flatbuffers 2.1.2's verifier panics on a table offset of
# i32::MIN (`abs()` in deref_soffset, codegened in our crate), where the shipped build
# wraps it into an offset the verifier refuses (regressions/codec_flatbuffers/).
flags="--release"  # -O: without it cargo fuzz adds -Cdebug-assertions
cargo +nightly fuzz build $flags
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo run --quiet --release --manifest-path ../Cargo.toml -- list >"$work/list"
./seeds.py "$work/seeds" "$work/list" $logs
# suite_lib per library of codec and rpc, in the order of `list`.
targets=$(python3 -c '
import json, sys
seen = []
for line in open(sys.argv[1]):
    cell = json.loads(line)
    target = cell["suite"] + "_" + cell["lib"].replace("-", "_")
    if cell["suite"] in ("codec", "rpc") and (cell["suite"], cell["lib"]) not in seen:
        seen.append((cell["suite"], cell["lib"]))
        print(target, cell["suite"], cell["lib"])
' "$work/list")
echo "$targets" | while read -r target suite lib; do
    if [ $# -gt 0 ] && ! echo " $* " | grep -q " $target "; then
        continue
    fi
    mkdir -p "corpus/$target" "$work/seeds/$target"
    echo "fuzz: $target for ${seconds}s" >&2
    start=$(date +%s)
    status=0
    WB_FUZZ_LIB=$lib cargo +nightly fuzz run $flags "$suite" "corpus/$target" \
        "$work/seeds/$target" -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 2>"$work/$target.log" || status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log")
    printf 'fuzz-executions\trust\t%s\t%s\t%s\n' "$target" "${executions:-0}" \
        "$(($(date +%s) - start))"
    if [ "$status" -ne 0 ]; then
        cat "$work/$target.log" >&2
        echo "fuzz: $target FAILED (input in fuzz/artifacts/$suite/)" >&2
        touch "$work/failed"
    fi
done
[ ! -e "$work/failed" ]
