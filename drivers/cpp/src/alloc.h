// Allocation counting (docs/protocol.md, suite codec: <op>_allocs, <op>_alloc_bytes): the
// global operator new is replaced by one that counts while counting is on. It is off during
// the timed samples, where it costs one predictable branch per allocation. Memory that C
// libraries take with malloc directly (capnp's segments) is not counted.
#pragma once

#include <cstdint>

namespace wb::alloc {

struct Count {
  uint64_t allocs = 0, bytes = 0;
};

void start();  // zeroes the count and turns counting on (one thread at a time)
Count stop();  // turns counting off and returns the count since start()

}  // namespace wb::alloc
