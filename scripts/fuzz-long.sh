#!/usr/bin/env bash
# Fuzzes every target of every driver for SECONDS each (default 600), one after the other,
# and records how far each got: results/fuzz-executions.tsv holds a first line naming the
# revision, host and budget, then one line per target,
#   fuzz-executions<TAB>LANG<TAB>TARGET<TAB>EXECUTIONS<TAB>SECONDS
# as each language's runner prints it (docs/robustness.md). Copied to
# docs/data/fuzz-executions.tsv, it is the table `wirebench results` publishes. A driver's
# failure (a finding) does not stop the others; the exit status is 1 if any failed.
# `make fuzz-long` runs it.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
out=results/fuzz-executions.tsv
mkdir -p results
dirty=no
git diff --quiet HEAD 2>/dev/null || dirty=yes
printf '# revision=%s dirty=%s host=%s seconds=%s started=%s\n' "$(git rev-parse --short=12 HEAD)" \
  "$dirty" "$(hostname)" "$seconds" "$(date -u +%Y-%m-%dT%H:%MZ)" >"$out"
status=0
for runner in drivers/cpp/fuzz/run.sh drivers/go/scripts/fuzz.sh drivers/rust/fuzz/run.sh \
              drivers/java/fuzz/run.sh; do
  echo "fuzz-long: $runner $seconds" >&2
  "$runner" "$seconds" | grep --line-buffered '^fuzz-executions' | tee -a "$out" || status=1
done
echo "fuzz-long: $(grep -c ^fuzz "$out") targets; fewest executions first:" >&2
grep ^fuzz "$out" | sort -t "$(printf '\t')" -k4,4n | head -5 >&2
exit $status
