#!/bin/sh
# Fuzzes every Fuzz target of the driver (fuzz/README.md) for SECONDS each (default 5),
# one after the other with one worker (-parallel 1), seeded with the golden messages and
# testdata/fuzz; stops at the first failure (go test writes the failing input to the
# package's testdata/fuzz/<target>/, where it stays as a regression once fixed).
#
#   scripts/fuzz.sh [SECONDS] [TARGET_REGEXP]
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-5}
only=${2:-.}
for pkg in ./internal/rpc ./internal/codec; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' | grep -E -- "$only" || true); do
		echo "fuzz.sh: $pkg $target ${seconds}s" >&2
		go test -run='^$' -fuzz="^${target}\$" -fuzztime="${seconds}s" -fuzzminimizetime=100x -parallel 1 "$pkg"
	done
done
