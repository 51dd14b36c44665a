#include "result.h"

#include <cstdio>

namespace wb {

const char* toolchain() {
#if defined(__clang__)
  return "clang++";
#elif defined(__GNUC__)
  return "g++";
#else
  return "unknown";
#endif
}

std::string compilerVersion() {
#if defined(__clang__)
  // __clang_version__ is "14.0.6 " (a trailing space, or a vendor's suffix).
  return "clang++ " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) +
         "." + std::to_string(__clang_patchlevel__);
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

Json resultHeader(const Run& run, const std::string& role) {
  Json j;
  j.num("protocol", kProtocol)
      .str("lang", kLang)
      .str("toolchain", toolchain())
      .str("driver", kDriver)
      .str("suite", run.suite->name)
      .str("case", run.kase)
      .str("lib", run.lib->name)
      .pairs("params", run.params)
      .str("role", role);
  return j;
}

void printResult(const Run& run, const std::string& role, const std::vector<Metric>& metrics,
                 const Json& evidence, const std::vector<Scalar>& scalars,
                 const std::vector<RawMetric>& others) {
  Json m;
  for (const Metric& metric : metrics) {
    Json one;
    one.str("unit", metric.unit).num("iters", metric.iters).list("samples", metric.samples);
    m.raw(metric.name, one.text());
  }
  for (const Scalar& scalar : scalars) {
    char value[32];
    std::snprintf(value, sizeof value, "%.10g", scalar.value);
    Json one;
    one.str("unit", scalar.unit).raw("value", value);
    m.raw(scalar.name, one.text());
  }
  for (const RawMetric& other : others) m.raw(other.name, other.json);
  Json j = resultHeader(run, role);
  j.num("warmup", run.warmup)
      .boolean("verified", true)
      .raw("metrics", m.text())
      .append(evidence)
      .pairs("versions", run.versions());
  printLine(j.text());
}

void printServer(const Run& run, const Json& counts) {
  Json j = resultHeader(run, "server");
  j.append(counts).boolean("verified", true).pairs("versions", run.versions());
  printLine(j.text());
}

}  // namespace wb
