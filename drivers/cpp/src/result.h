// Results of protocol 2 (docs/protocol.md): the driver's identity, named metrics, the
// suite's evidence and the provenance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "json.h"
#include "registry.h"

namespace wb {

inline constexpr int kProtocol = 2;
inline constexpr const char kLang[] = "cpp";
inline constexpr const char kDriver[] = "wirebench-cpp";

// The toolchain, from the compiler's macros: "g++" or "clang++".
const char* toolchain();
// "g++ 12.2.0", for the provenance.
std::string compilerVersion();

// A metric of the samples form: one total per timed sample of `iters` iterations.
struct Metric {
  std::string name, unit;
  uint64_t iters = 0;
  std::vector<uint64_t> samples;
};

// A metric of the scalar form: one value per process (a size, allocations per iteration).
struct Scalar {
  std::string name, unit;
  double value = 0;
};

// A metric in another form (the queue suite's histograms), as its JSON object.
struct RawMetric {
  std::string name, json;
};

// The fields every result starts with: protocol, identity, the cell and the role.
Json resultHeader(const Run& run, const std::string& role);

// A local or client result: the header, the warm-up, the metrics, the suite's evidence
// (rpc's check and responses_checked) and the provenance. Only a verified run prints one.
void printResult(const Run& run, const std::string& role, const std::vector<Metric>& metrics,
                 const Json& evidence, const std::vector<Scalar>& scalars = {},
                 const std::vector<RawMetric>& others = {});

// A server's result: the header, the suite's counts, and the provenance.
void printServer(const Run& run, const Json& counts);

}  // namespace wb
