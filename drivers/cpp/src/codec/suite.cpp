// The codec suite's run of one validated cell: each operation the cell measures is timed
// (warm-up, then samples, each followed by its checks), then its allocations are counted
// in an untimed pass of `iters` iterations.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../alloc.h"
#include "../common.h"
#include "../registry.h"
#include "../result.h"
#include "../timing.h"
#include "codec.h"

namespace wb::codec {
namespace {

// The peak resident set of this process's own memory (/proc/self/status VmHWM). Not
// getrusage's ru_maxrss: that keeps the peak of the process it was forked from, before
// exec (the harness's Python, tens of MB).
uint64_t peakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

// The operations a cell measures: the default cell all its library has; a variant only
// those its one differing parameter governs (buffer: populate and serialize; strings:
// deserialize; validation: deserialize and access; packing: all but populate).
std::vector<Op> measured(const Run& run, const CodecLib& lib) {
  auto isDefault = [&](const char* param, const std::vector<std::string>& values) {
    return run.param(param) == values.front();
  };
  bool buffer = !isDefault("buffer", lib.buffers);
  bool strings = !isDefault("strings", lib.strings);
  bool validation = !isDefault("validation", lib.validations);
  bool packing = !isDefault("packing", lib.packings());
  bool all = !buffer && !strings && !validation && !packing;
  std::vector<Op> ops;
  for (Op op : lib.ops) {
    bool governed = op == Op::populate      ? buffer
                    : op == Op::serialize   ? buffer || packing
                    : op == Op::deserialize ? strings || validation || packing
                                            : validation || packing;
    if (all || governed) ops.push_back(op);
  }
  return ops;
}

// One operation's side of the timing loop (timing.h): its digest per sample, checked
// after each sample outside the timed region.
class Sampler {
 public:
  Sampler(CodecCell& cell, Op op) : cell_(cell), op_(op) {}
  void reset() { digest_ = 0; }
  void iterate(uint64_t n) { digest_ = cell_.run(op_, n); }
  void done(bool sample) {
    cell_.check(op_);
    if (sample) digests.push_back(static_cast<int64_t>(digest_));
  }
  std::vector<int64_t> digests;

 private:
  CodecCell& cell_;
  Op op_;
  uint64_t digest_ = 0;
};

void writeFile(const std::string& path, Bytes bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) fail(path + ": cannot open: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data, 1, bytes.size, f) == bytes.size;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) fail(path + ": write failed");
}

}  // namespace

int run(const Run& run) {
  const CodecLib& lib = *findLib(run.lib->name);
  const Case& c = findCase(run.kase);
  auto cell = lib.make(c, variantOf(run.param("buffer"), run.param("strings"),
                                    run.param("validation"), run.param("packing")));
  std::vector<Op> ops = measured(run, lib);

  std::vector<Metric> metrics;
  Json check;
  for (Op op : ops) {
    Sampler s(*cell, op);
    metrics.push_back({opName(op), "ns", run.iters, measure(run, s)});
    if (op != Op::populate) check.list(opName(op), s.digests);
  }

  const Bytes encoding = cell->encoding();
  std::vector<Scalar> scalars = {{"size", "B", static_cast<double>(encoding.size)}};
  // After every timed and counted pass: the process's peak resident memory so far.
  scalars.push_back({"peak_rss", "B", static_cast<double>(peakRssBytes())});
  for (Op op : ops) {
    alloc::start();
    cell->run(op, run.iters);
    alloc::Count n = alloc::stop();
    double iters = static_cast<double>(run.iters);
    scalars.push_back({std::string(opName(op)) + "_allocs", "allocs", n.allocs / iters});
    scalars.push_back({std::string(opName(op)) + "_alloc_bytes", "B", n.bytes / iters});
  }

  for (const auto& [flag, dir] : run.fixtures) {
    if (flag == "out-dir") writeFile(dir + "/" + run.kase + "." + lib.name, encoding);
  }
  Json evidence;
  evidence.raw("check", check.text());
  printResult(run, "local", metrics, evidence, scalars);
  return 0;
}

}  // namespace wb::codec
