// The timing loop every suite shares (docs/protocol.md, `run`).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "registry.h"

namespace wb {

using Clock = std::chrono::steady_clock;

inline uint64_t nanosSince(Clock::time_point t0, Clock::time_point t1) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
}

// Runs the warm-up (if any) and the timed samples of `run` on a suite's sampler, and
// returns each sample's wall time: a monotonic clock around iterate(), nothing else.
//   s.reset()        untimed, before the warm-up and before every sample (the rpc
//                    generator back to its initial state, memcpy's destination scrambled)
//   s.iterate(n)     n iterations: the only timed code
//   s.done(sample)   untimed, after the warm-up (false) and after every sample (true): the
//                    sample's checks and totals
// A template, so that a sampler's calls are direct (rpc's iterate is one virtual call per
// sample into the cell's loop).
template <typename Sampler>
std::vector<uint64_t> measure(const Run& run, Sampler& s) {
  std::vector<uint64_t> ns;
  if (run.warmup > 0) {
    s.reset();
    s.iterate(run.warmup);
    s.done(false);
  }
  for (uint64_t i = 0; i < run.samples; ++i) {
    s.reset();
    auto t0 = Clock::now();
    s.iterate(run.iters);
    auto t1 = Clock::now();
    ns.push_back(nanosSince(t0, t1));
    s.done(true);
  }
  return ns;
}

}  // namespace wb
