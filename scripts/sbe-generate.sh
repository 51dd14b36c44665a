#!/usr/bin/env bash
# Usage: scripts/sbe-generate.sh LANGUAGE OUTPUT_DIR
# Generates the code of schemas/log.sbe.xml for one language (Cpp, Rust, Golang or Java)
# with SBE's own generator, sbe-all from Maven Central, which is fetched once into
# build/tools/. The native drivers' builds call this (CMake, build.rs, Go's gencode);
# the Java driver runs the same jar from its pom.
set -euo pipefail
SBE_VERSION=1.30.0  # the newest sbe-all Maven Central served here with Java 17 (1.31+ refused)
root="$(cd "$(dirname "$0")/.." && pwd)"
language=${1:?usage: sbe-generate.sh LANGUAGE OUTPUT_DIR}
out=${2:?usage: sbe-generate.sh LANGUAGE OUTPUT_DIR}
jar="$root/build/tools/sbe-all-$SBE_VERSION.jar"
if [ ! -f "$jar" ]; then
  mkdir -p "$root/build/tools"
  (cd "$root/build/tools" && mvn -q -B -Dstyle.color=never dependency:copy "-Dartifact=uk.co.real-logic:sbe-all:$SBE_VERSION" \
    "-DoutputDirectory=$root/build/tools" >&2)
fi
mkdir -p "$out"
exec java "-Dsbe.output.dir=$out" "-Dsbe.target.language=$language" \
  -Dsbe.validation.stop.on.error=true -jar "$jar" "$root/schemas/log.sbe.xml"
