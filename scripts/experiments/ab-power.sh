#!/usr/bin/env bash
# The runs behind docs/results.md, "A/B in one run": what an A/B run can tell apart on this
# machine, against two separate runs read by `compare`. The cells: the Go driver's rpc
# object and bytes cells (every case, library, compression and reuse); a slowed variant,
# go-serialize-twice.patch, serializes each request of the bytes mode once more (capnp
# and protobuf), and leaves the object mode alone, so every run holds its own controls.
#   1  A/A: the committed driver against the same revision built again in a worktree
#   2  A/B: the slowed variant, at the default 6 processes a side
#   3  A/B: the same, at 18 (a longer budget)
#   4, 5  two separate runs, the committed driver, then the slowed one as committed (a
#      worktree with the patch applied), read by `compare` as two runs are
# Then publishes them as ab-aa, ab-slowed, ab-slowed-long, ab-separate-a, ab-separate-b,
# and `wirebench results` renders the section.
# Usage: [CAPNPROTO_RUST=DIR] scripts/experiments/ab-power.sh [DB]
set -euo pipefail
cd "$(dirname "$0")/../.."
db=$(realpath -m "${1:-results/ab-power.db}")
patch=$PWD/scripts/experiments/go-serialize-twice.patch
cells=(--lang go --suite rpc --mode object,bytes --no-pairs --no-limits --no-report)
wb() { uv run wirebench "$@" --db "$db"; }

if [ -e "$db" ]; then
  echo "ab-power.sh: $db exists; the five runs go into a new store" >&2
  exit 2
fi
wb run "${cells[@]}" --repeat 6 --ab rev=HEAD --fail-on never
wb run "${cells[@]}" --repeat 6 --ab "patch=$patch" --fail-on never
wb run "${cells[@]}" --repeat 18 --ab "patch=$patch" --fail-on never
wb run "${cells[@]}" --repeat 6
tree=$(mktemp -d)/wirebench
git worktree add --detach "$tree" HEAD
git -C "$tree" apply "$patch"
(cd "$tree" && uv run wirebench run "${cells[@]}" --repeat 6 --db "$db")
git worktree remove --force "$tree"

names=(ab-aa ab-slowed ab-slowed-long ab-separate-a ab-separate-b)
# 6 (with CAPNPROTO_RUST=DIR, a checkout of capnproto-rust): a library author's A/B, the
# Rust driver's capnp cells in every rpc mode, the committed crate against the checkout.
if [ -n "${CAPNPROTO_RUST:-}" ]; then
  wb run --lang rust --suite rpc --lib capnp --no-pairs --no-limits --no-report --repeat 6 \
    --ab "rust:capnp=$CAPNPROTO_RUST" --fail-on never
  names+=(ab-capnp-rust)
fi
n=1
for name in "${names[@]}"; do
  wb publish "$n" --as "$name"
  n=$((n + 1))
done
uv run wirebench results
