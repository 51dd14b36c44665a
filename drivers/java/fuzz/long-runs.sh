#!/bin/sh
# The long runs (fuzz/README.md): each target in Jazzer's fuzzing mode for its @FuzzTest
# maxDuration (60 s), one at a time, from drivers/java; logs in $LOGS (default target/fuzz-logs).
# Usage: fuzz/long-runs.sh [Class#method ...]   (default: every target)
set -u
cd "$(dirname "$0")/.."
LOGS=${LOGS:-target/fuzz-logs}
mkdir -p "$LOGS"
TARGETS=${*:-"RpcFuzzTest#capnp RpcFuzzTest#protobuf RpcFuzzTest#nullLib CodecFuzzTest#nullLib
CodecFuzzTest#jackson CodecFuzzTest#dslJson CodecFuzzTest#protobuf CodecFuzzTest#capnp
CodecFuzzTest#flatbuffers CodecFuzzTest#msgpack CodecFuzzTest#kryo"}
# Coverage feedback from the driver and from every library it decodes with.
export JAZZER_INSTRUMENTATION_INCLUDES='wirebench.**:org.capnproto.**:com.google.protobuf.**:com.fasterxml.**:com.dslplatform.**:com.google.flatbuffers.**:org.msgpack.**:com.esotericsoftware.**'
for t in $TARGETS; do
  log="$LOGS/$(echo "$t" | tr '#' '-').log"
  echo "== $t -> $log"
  JAZZER_FUZZ=1 mvn -B test -Dtest="$t" >"$log" 2>&1
  echo "   exit $?; $(grep -E '^Done [0-9]+ runs' "$log" | tail -1)"
done
