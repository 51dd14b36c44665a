// The clocks of the queue suite: the monotonic clock every write is timed with (t0, t1),
// and the two an entry's timestamp can come from, numbered as wbq's file header numbers
// them (docs/queue-format.md).
#pragma once

#include <time.h>

#include <cstdint>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define WB_HAVE_TSC 1
#endif

namespace wb::queue {

// CLOCK_MONOTONIC in nanoseconds: the same clock as std::chrono::steady_clock on Linux,
// read directly (through the vDSO) so that a read is nothing but the read.
inline int64_t monoNow() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

enum class ClockId : uint32_t { mono = 1, tsc = 2 };

inline const char* clockName(ClockId c) { return c == ClockId::tsc ? "tsc" : "mono"; }

// An entry's timestamp source, as a type: the loops and the appender are instantiated per
// clock, so that a write's clock read is inlined and not a branch.
struct MonoClock {
  static constexpr ClockId kId = ClockId::mono;
  static int64_t now() { return monoNow(); }
};

#ifdef WB_HAVE_TSC
struct TscClock {
  static constexpr ClockId kId = ClockId::tsc;
  static int64_t now() { return static_cast<int64_t>(__rdtsc()); }
};
#endif

// The values of --clock this build can read, in `list` order.
inline const std::vector<std::string>& clockNames() {
#ifdef WB_HAVE_TSC
  static const std::vector<std::string> v = {"mono", "tsc"};
#else
  static const std::vector<std::string> v = {"mono"};
#endif
  return v;
}

}  // namespace wb::queue
