// The deterministic generator every rpc client draws from (docs: workloads, section 1).
#pragma once

#include <cstdint>

namespace wb {

struct XorShift128 {
  uint32_t x, y, z, w;

  void reset() {
    x = 0x1d2acd47u;
    y = 0x58ca3e14u;
    z = 0xf563f232u;
    w = 0x0bc76199u;
  }

  uint32_t next() {
    uint32_t t = x ^ (x << 11);
    x = y;
    y = z;
    z = w;
    w = w ^ (w >> 19) ^ t ^ (t >> 8);
    return w;
  }
};

// One process-wide state, like the reference programs: it keeps running across iterations
// and is reset only by the timing loop (start of warm-up and of every sample).
inline XorShift128 rng = {0x1d2acd47u, 0x58ca3e14u, 0xf563f232u, 0x0bc76199u};

inline void resetRng() { rng.reset(); }
inline uint32_t rand(uint32_t n) { return rng.next() % n; }
inline double randDouble(double range) {
  return static_cast<double>(rng.next()) * range / 4294967295.0;
}

}  // namespace wb
