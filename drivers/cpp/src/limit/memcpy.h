// The limit suite's library interface and its one library, memcpy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace wb::limit {

// A library of the limit suite: copies blocks of one size between two buffers allocated
// and touched before timing.
class Copier {
 public:
  virtual ~Copier() = default;
  virtual void scramble() = 0;  // makes the target differ, so that verify() proves the copies
  virtual void copy(uint64_t iters) = 0;  // the timed work
  virtual bool verify() const = 0;
};

// memcpy(3) from libc (memcpy.cpp).
std::unique_ptr<Copier> makeMemcpy(size_t block);

}  // namespace wb::limit
