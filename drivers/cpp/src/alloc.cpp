#include "alloc.h"

#include <cstddef>
#include <cstdlib>
#include <new>

namespace wb::alloc {
namespace {
// Plain variables: counting is on only in the codec suite's single-threaded pass; the rpc
// suite's threads only ever read `on` while it is false.
bool on = false;
Count count;
}  // namespace

void start() {
  count = Count();
  on = true;
}

Count stop() {
  on = false;
  return count;
}

namespace {

// The replacements' work. Every other form of new (arrays, nothrow) calls one of these two in
// libstdc++, and the default deletes free what they malloc.
[[maybe_unused]] void* allocate(std::size_t size, std::size_t align) {
  if (__builtin_expect(on, 0)) {
    ++count.allocs;
    count.bytes += size;
  }
  if (size == 0) size = 1;
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(size)
                : std::aligned_alloc(align, (size + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace
}  // namespace wb::alloc

// Not in the fuzz build (drivers/cpp/fuzz): AddressSanitizer's runtime replaces every form of
// new and delete, and would see these two's malloc'd blocks freed by its own delete.
#ifndef WB_FUZZ
void* operator new(std::size_t size) { return wb::alloc::allocate(size, 0); }
void* operator new(std::size_t size, std::align_val_t align) {
  return wb::alloc::allocate(size, static_cast<std::size_t>(align));
}
#endif  // WB_FUZZ
