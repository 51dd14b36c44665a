// The deterministic generator every rpc client draws from (docs/workloads.md).
#pragma once

#include <cstdint>

namespace wb {

// One process-wide state, like the reference programs: it keeps running across iterations
// and is reset only by the timing loop (start of warm-up and of every sample).
//
// Four separate words, not a struct: GCC's -O2 SLP vectorizer merges a struct's four
// stores into one 16-byte store, and the next draw's 4-byte loads from it then miss
// store-to-load forwarding (measured: catrank 1.5x slower than the reference programs,
// whose fastRand also keeps four separate statics).
namespace rng_state {
inline uint32_t x = 0x1d2acd47u, y = 0x58ca3e14u, z = 0xf563f232u, w = 0x0bc76199u;
}  // namespace rng_state

inline void resetRng() {
  using namespace rng_state;
  x = 0x1d2acd47u;
  y = 0x58ca3e14u;
  z = 0xf563f232u;
  w = 0x0bc76199u;
}

[[gnu::always_inline]] inline uint32_t nextRand() {
  using namespace rng_state;
  uint32_t t = x ^ (x << 11);
  x = y;
  y = z;
  z = w;
  w = w ^ (w >> 19) ^ t ^ (t >> 8);
  return w;
}

[[gnu::always_inline]] inline uint32_t rand(uint32_t n) { return nextRand() % n; }
[[gnu::always_inline]] inline double randDouble(double range) {
  return static_cast<double>(nextRand()) * range / 4294967295.0;
}

}  // namespace wb
