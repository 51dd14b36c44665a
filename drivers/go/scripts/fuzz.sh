#!/bin/sh
# Fuzzes every codec and rpc library of the driver's registry for SECONDS each (default
# 5), one after the other with one worker (fuzz/README.md). The targets FuzzCodec
# (internal/codec) and FuzzRPC (internal/rpc) are generic over the library, named by
# WIREBENCH_FUZZ_TARGET (codec_<lib>, rpc_<lib>; a "-" in a name is "_"), and the
# libraries are the driver's `list`. Each target runs on the seeds it makes from the
# golden files and the registry, the named regressions in testdata/fuzz, and its own
# cached corpus, fuzz/corpus/<target>/ (ignored by git; reused and grown by every run).
# Prints, per target, on stdout (the fuzzer's own output goes to stderr):
#     fuzz-executions<TAB>go<TAB>TARGET<TAB>EXECUTIONS<TAB>SECONDS
# and stops at the first failure: go test writes the failing input to the package's
# testdata/fuzz/<Fuzz>/; once fixed, rename it for what it found and keep it there.
#
#   scripts/fuzz.sh [SECONDS] [TARGET_REGEXP]     e.g. scripts/fuzz.sh 60 codec_msgpack
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-5}
only=${2:-.}
corpus=$PWD/fuzz/corpus
list=$(go run ./cmd/wirebench-go list)
targets=$(echo "$list" |
	sed -nE 's/^\{"suite": "(codec|rpc)", "case": "[^"]*", "lib": "([^"]*)".*/\1_\2/p' | tr - _ | awk '!seen[$0]++')
if [ -z "$targets" ]; then
	echo "fuzz.sh: no codec or rpc library in the driver's list" >&2
	exit 1
fi
for target in $targets; do
	echo "$target" | grep -Eq -- "$only" || continue
	case $target in
	codec_*) pkg=./internal/codec fuzz=FuzzCodec ;;
	*) pkg=./internal/rpc fuzz=FuzzRPC ;;
	esac
	echo "fuzz.sh: $target ${seconds}s" >&2
	log=$(mktemp)
	status=0
	# -fuzzminimizetime=100x: a new input is minimized in at most 100 runs, not for a
	# minute of the budget. -test.fuzzcachedir after -args wins over go test's own.
	WIREBENCH_FUZZ_TARGET=$target go test -run='^$' -fuzz="^$fuzz\$" -fuzztime="${seconds}s" \
		-fuzzminimizetime=100x -parallel 1 "$pkg" -args -test.fuzzcachedir="$corpus/$target" >"$log" 2>&1 || status=$?
	cat "$log" >&2
	# The fuzzer's last report: "fuzz: elapsed: 1m2s, execs: 36495 (2/sec), ...".
	last=$(grep '^fuzz: elapsed: .*, execs: ' "$log" | tail -n 1)
	execs=$(echo "$last" | sed -nE 's/.*, execs: ([0-9]+).*/\1/p')
	elapsed=$(echo "$last" | sed -nE 's/^fuzz: elapsed: ([0-9hms]+),.*/\1/p' |
		awk '{ s = 0; if (match($0, /[0-9]+h/)) s += 3600 * substr($0, RSTART, RLENGTH - 1)
			if (match($0, /[0-9]+m/)) s += 60 * substr($0, RSTART, RLENGTH - 1)
			if (match($0, /[0-9]+s/)) s += substr($0, RSTART, RLENGTH - 1); print s }')
	printf 'fuzz-executions\tgo\t%s\t%s\t%s\n' "$target" "${execs:-0}" "${elapsed:-0}"
	# Go 1.26's fuzz coordinator can report its own -fuzztime deadline as a failure
	# ("context deadline exceeded", no input written: go.dev/issue/75804, fixed in Go
	# 1.27). That one is no finding; any other failure, or a written input, is.
	if [ "$status" -ne 0 ]; then
		if grep -q 'context deadline exceeded' "$log" && ! grep -q -e 'Failing input written' -e 'panic:' "$log"; then
			echo "fuzz.sh: $target: the fuzz coordinator's deadline race (go.dev/issue/75804), no input found" >&2
		else
			rm -f "$log"
			exit "$status"
		fi
	fi
	rm -f "$log"
done
