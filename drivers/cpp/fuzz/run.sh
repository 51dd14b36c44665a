#!/bin/sh
# The fuzz runner (README.md): run.sh SECONDS [TARGET...]
# Fuzzes each target (default: every one the registries have) for SECONDS seconds with the
# fuzz build's wirebench-fuzz (WB_FUZZ_BUILD, default ../build-fuzz), one after the other,
# and prints for each, on stdout:
#   fuzz-executions<TAB>cpp<TAB>TARGET<TAB>EXECUTIONS<TAB>SECONDS
# Inputs: the evolved corpus cache/<target> (created if absent; new inputs are added to
# it), fresh seeds (wirebench-fuzz-seeds) and the named regressions regressions/<target>.
# libFuzzer's log and any crash input go to $WB_FUZZ_BUILD/fuzz-scratch/<target>; a failed
# target's log is printed on stderr and the exit status is 1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${WB_FUZZ_BUILD:-$(dirname "$here")/build-fuzz}
if [ $# -lt 1 ]; then
  echo "usage: $0 SECONDS [TARGET...]" >&2
  exit 2
fi
seconds=$1
shift
for exe in wirebench-fuzz wirebench-fuzz-seeds; do
  if [ ! -x "$build/$exe" ]; then
    echo "$0: no $build/$exe: build the fuzz build first (README.md)" >&2
    exit 2
  fi
done
targets=${*:-$("$build/wirebench-fuzz-seeds" --targets | cut -f1)}
seeds=$build/fuzz-seeds
# Leaks inside libraries that are known and not ours (lsan.supp).
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
for target in $targets; do
  rm -rf "${seeds:?}/$target"
done
"$build/wirebench-fuzz-seeds" "$seeds" $targets

status=0
for target in $targets; do
  scratch=$build/fuzz-scratch/$target
  rm -rf "$scratch"
  mkdir -p "$scratch" "$here/cache/$target" "$seeds/$target"
  # The corpus directories: libFuzzer adds new inputs to the first.
  set -- "$here/cache/$target" "$seeds/$target"
  if [ -d "$here/regressions/$target" ]; then
    set -- "$@" "$here/regressions/$target"
  fi
  start=$(date +%s.%N)
  if "$build/wirebench-fuzz" "--target=$target" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$scratch/" "$@" \
    >"$scratch/log" 2>&1 &&
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/log") &&
    [ -n "$executions" ]; then
    end=$(date +%s.%N)
    printf 'fuzz-executions\tcpp\t%s\t%s\t%s\n' "$target" "$executions" \
      "$(echo "$start $end" | awk '{printf "%.1f", $2 - $1}')"
  else
    echo "$0: $target failed; its log ($scratch/log) ends:" >&2
    tail -n 40 "$scratch/log" >&2
    status=1
  fi
done
exit $status
