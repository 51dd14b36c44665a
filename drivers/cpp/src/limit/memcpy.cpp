// Suite `limit`, case `memcpy`: how fast this machine copies a block, the ceiling for any
// serializer that must touch every byte once. The buffers are allocated and touched before
// timing; each iteration copies one block from `src` to `dst`.

#include "memcpy.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace wb::limit {
namespace {

class Memcpy final : public Copier {
 public:
  explicit Memcpy(size_t block) : block_(block) {
    src_ = static_cast<unsigned char*>(std::malloc(block));
    dst_ = static_cast<unsigned char*>(std::malloc(block));
    if (src_ == nullptr || dst_ == nullptr) throw std::bad_alloc();
    for (size_t i = 0; i < block; ++i) {
      src_[i] = static_cast<unsigned char>(i * 131 + (i >> 12));
    }
    std::memset(dst_, 0, block);
  }
  ~Memcpy() override {
    std::free(src_);
    std::free(dst_);
  }
  Memcpy(const Memcpy&) = delete;
  Memcpy& operator=(const Memcpy&) = delete;

  void scramble() override { std::memset(dst_, 0xa5, block_); }

  void copy(uint64_t iters) override {
    for (; iters > 0; --iters) {
      std::memcpy(dst_, src_, block_);
      // Keeps the compiler from merging or dropping the repeated, otherwise identical copies.
      asm volatile("" : : "r"(dst_) : "memory");
    }
  }

  bool verify() const override { return std::memcmp(dst_, src_, block_) == 0; }

 private:
  size_t block_;
  unsigned char* src_;
  unsigned char* dst_;
};

}  // namespace

std::unique_ptr<Copier> makeMemcpy(size_t block) { return std::make_unique<Memcpy>(block); }

}  // namespace wb::limit
