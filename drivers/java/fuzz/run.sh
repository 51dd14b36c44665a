#!/bin/sh
# Fuzzes the Java driver's decoders (fuzz/README.md), one target at a time, each for SECONDS in
# Jazzer's fuzzing mode: every codec and rpc library of the registry, or the TARGETs named
# (codec_jackson, rpc_capnp, ...). `make test-fuzz` runs it for a few seconds, the long runs for
# longer. Each target starts from its seeds (written from the registry by wirebench.fuzz.Targets,
# the golden files' bytes), the named regressions of `mvn test`, and its evolved corpus, cached in
# fuzz/corpus/TARGET (ignored by git; grown by every run). Prints for each target
#   fuzz-executions<TAB>java<TAB>TARGET<TAB>EXECUTIONS<TAB>SECONDS
# (libFuzzer's own counts: runs done and seconds spent). Logs: target/fuzz-logs/TARGET.log. A
# finding's input goes to target/fuzz-findings/; the run goes on with the next target and exits 1.
# Usage: fuzz/run.sh SECONDS [TARGET ...]
set -eu
if [ $# -lt 1 ]; then
  echo "usage: fuzz/run.sh SECONDS [TARGET ...]" >&2
  exit 2
fi
seconds=$1
shift
cd "$(dirname "$0")/.."
mvn -q -B test-compile dependency:build-classpath -Dmdep.outputFile=target/fuzz-classpath >&2
cp="target/test-classes:target/classes:$(cat target/fuzz-classpath)"
rm -rf target/fuzz-seeds
mkdir -p target/fuzz-logs target/fuzz-findings fuzz/corpus
java -cp "$cp" wirebench.fuzz.Targets target/fuzz-seeds >target/fuzz-targets
for want in "$@"; do
  if ! grep -q "^$want " target/fuzz-targets; then
    echo "fuzz/run.sh: no target $want (targets: $(cut -d' ' -f1 target/fuzz-targets | xargs))" >&2
    exit 2
  fi
done
# Coverage from every class but the JDK's, JUnit's and Jazzer's: the driver and the library a
# target feeds, whatever its package.
excludes='java.**:javax.**:jdk.**:sun.**:com.sun.**'
excludes="$excludes:org.junit.**:org.opentest4j.**:org.apiguardian.**"
status=0
while read -r target class method lib; do
  if [ $# -gt 0 ] && ! echo " $* " | grep -q " $target "; then
    continue
  fi
  log="target/fuzz-logs/$target.log"
  mkdir -p "fuzz/corpus/$target"
  start=$(date +%s)
  # The first corpus folder is the one libFuzzer adds to. A hang is an input over 120 s: the
  # first input also pays for loading and instrumenting the library (26 s seen under load).
  if ! WIREBENCH_FUZZ_LIB="$lib" java -Xmx1g -cp "$cp" com.code_intelligence.jazzer.Jazzer \
    --target_class="$class" --target_method="$method" --instrumentation_includes='**' \
    --instrumentation_excludes="$excludes" \
    -max_total_time="$seconds" -timeout=120 -print_final_stats=1 \
    -artifact_prefix="target/fuzz-findings/$target-" \
    "fuzz/corpus/$target" "target/fuzz-seeds/$target" \
    "src/test/resources/$(echo "$class" | tr . /)Inputs/$method" \
    </dev/null >"$log" 2>&1; then
    status=1
    tail -n 40 "$log" >&2
    echo "fuzz/run.sh: $target: a finding or an error (log $log, inputs target/fuzz-findings/)" >&2
  fi
  end=$(date +%s)
  # On a finding there is no "Done" line: the last status line's count and the wall time.
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$log" | tail -n 1)
  if [ -z "$runs" ]; then
    last=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    runs="${last:-0} $((end - start))"
  fi
  printf 'fuzz-executions\tjava\t%s\t%s\t%s\n' "$target" "${runs% *}" "${runs#* }"
done <target/fuzz-targets
exit $status
