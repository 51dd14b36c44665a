// Suite `readbytes` (docs/protocol.md; after ../shared/seeds/003): a file consumed one byte
// at a time. A strategy (the cell's library) is a byte source; a case is a consumer that
// takes one byte per step from it and never sees a buffer. The consumers are written once
// here, as templates, so that every strategy runs the same loop with its source inlined.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "../common.h"
#include "../timing.h"

namespace wb::readbytes {

// The data of docs/workloads.md §8 (Shop, ids 0 .. 2,999,999) and each case's value per pass.
inline constexpr uint64_t kFileSize = 12'886'336;
inline constexpr uint64_t kCountValue = kFileSize;
inline constexpr uint64_t kSumValue = 1'457'733'664;
inline constexpr uint64_t kVarintValue = 4'499'998'500'000;

// Every own buffer (fread, dlsym_fread).
inline constexpr size_t kBufferSize = size_t{64} << 10;

enum class Case { count, sum, varint };

// What a consumer got from one pass: the case's value and the bytes it read.
struct Tally {
  uint64_t value = 0, bytes = 0;
};

// A byte source S has `bool next(uint8_t& byte)`: the next byte, or false at the end.

// `count`: the number of bytes. Each byte is taken into a register by an empty asm
// statement, as in every language that has one: the count does not depend on the bytes,
// and an optimiser that sees through the source (mmap, null) would otherwise drop their
// loads, and a cold pass would read no page at all.
struct Count {
  template <typename S>
  static Tally run(S& s) {
    uint64_t n = 0;
    uint8_t b;
    while (s.next(b)) {
      asm volatile("" : : "r"(b));
      ++n;
    }
    return {n, n};
  }
};

// `sum`: the bytes (0..255) plus their count.
struct Sum {
  template <typename S>
  static Tally run(S& s) {
    uint64_t sum = 0, n = 0;
    uint8_t b;
    while (s.next(b)) {
      sum += b;
      ++n;
    }
    return {sum + n, n};
  }
};

[[noreturn]] void badTag(uint64_t offset, uint8_t tag);
[[noreturn]] void overlongVarint(uint64_t offset, uint64_t start);
[[noreturn]] void endInVarint(uint64_t offset, uint64_t start);

// `varint`: protobuf's `repeated int32 id = 1` unpacked: tag 0x08, then a varint of at most
// 10 bytes, low groups first; the sum of the ids (wrapping). Errors name the byte offset.
struct Varint {
  static constexpr uint8_t kTag = 0x08;  // field 1, wire type 0
  static constexpr int kMaxBytes = 10;

  template <typename S>
  static Tally run(S& s) {
    uint64_t total = 0, offset = 0;
    uint8_t b;
    while (s.next(b)) {
      if (b != kTag) badTag(offset, b);
      ++offset;
      const uint64_t start = offset;
      uint64_t value = 0;
      for (int shift = 0;; shift += 7) {
        if (offset - start == kMaxBytes) overlongVarint(offset, start);
        if (!s.next(b)) endInVarint(offset, start);
        ++offset;
        value |= uint64_t{b & 0x7fu} << shift;
        if ((b & 0x80) == 0) break;
      }
      total += value;
    }
    return {total, offset};
  }
};

// One pass: its value, bytes and the time from just before the open to just after the close.
struct Pass {
  uint64_t value = 0, bytes = 0, ns = 0;
};

// A cell, type-erased once: each virtual call runs a whole pass with the source inlined into
// the consumer.
class ReadCell {
 public:
  virtual ~ReadCell() = default;
  virtual Pass pass() = 0;
};

// A strategy L: `L(path)` is made once per process, before timing (null reads the file,
// dlsym_fread looks fread up); `L::Source(const L&)` opens the file, is the byte source, and
// `close()` closes (and unmaps) it. A source's destructor releases what close() did not
// (after an error), so a failing pass leaks nothing.
template <typename L, typename Consumer>
class CellOf final : public ReadCell {
 public:
  explicit CellOf(const std::string& path) : lib_(path) {}
  Pass pass() override {
    auto t0 = Clock::now();
    typename L::Source source(lib_);
    Tally t = Consumer::run(source);
    source.close();
    auto t1 = Clock::now();
    return {t.value, t.bytes, nanosSince(t0, t1)};
  }

 private:
  L lib_;
};

template <typename L>
std::unique_ptr<ReadCell> makeCell(Case kase, const std::string& path) {
  switch (kase) {
    case Case::count:
      return std::make_unique<CellOf<L, Count>>(path);
    case Case::sum:
      return std::make_unique<CellOf<L, Sum>>(path);
    case Case::varint:
      return std::make_unique<CellOf<L, Varint>>(path);
  }
  return nullptr;
}

// The sources' common failures, naming the file: exit 1.
[[noreturn]] void cannotOpen(const std::string& path);
[[noreturn]] void readError(const std::string& path, const char* what);

// Each strategy's factory, one file each.
using Factory = std::unique_ptr<ReadCell> (*)(Case, const std::string& path);
std::unique_ptr<ReadCell> makeNull(Case, const std::string&);
std::unique_ptr<ReadCell> makeFread(Case, const std::string&);
std::unique_ptr<ReadCell> makeMmap(Case, const std::string&);
std::unique_ptr<ReadCell> makeFgetc(Case, const std::string&);
std::unique_ptr<ReadCell> makeFgetcUnlocked(Case, const std::string&);
std::unique_ptr<ReadCell> makeGetcUnlocked(Case, const std::string&);
std::unique_ptr<ReadCell> makeDlsymFread(Case, const std::string&);
std::unique_ptr<ReadCell> makeIstreambufIterator(Case, const std::string&);
std::unique_ptr<ReadCell> makeIfstreamGet(Case, const std::string&);

}  // namespace wb::readbytes
