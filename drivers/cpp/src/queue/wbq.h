// The wbq queue, docs/queue-format.md version 1: cycle files of a fixed size mapped with
// mmap(MAP_SHARED), entries published by their header word. One appender per queue (an
// flock on DIR/queue.lock), any number of tailers, in any process and any language.
//
// The header word is a uint64_t inside the mapping. C++17 has no std::atomic_ref, so it is
// stored and loaded with the GCC/Clang builtins __atomic_store_n / __atomic_load_n, which
// act on a plain, aligned uint64_t (what atomic_ref<uint64_t> compiles to): `end()` stores
// the final word with __ATOMIC_RELEASE (a plain mov on x86) or __ATOMIC_SEQ_CST (an xchg: the
// full fence the seed says Java pays for), and tailers load it with __ATOMIC_ACQUIRE.
// Timestamps and payloads are plain stores, ordered by those.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "clock.h"

namespace wb::queue::wbq {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "wbq's integers are little-endian and this code stores native ones");

constexpr uint64_t kWorking = uint64_t{1} << 63;
constexpr uint64_t kAbandoned = uint64_t{1} << 62;
constexpr uint64_t kEnd = uint64_t{1} << 61;
constexpr uint64_t kFlags = kWorking | kAbandoned | kEnd;
constexpr uint64_t kLength = 0xffffffff;  // L, bits 0-31
constexpr uint64_t kHeaderSize = 64;      // the file header; the first entry is here
constexpr uint64_t kEntryHeader = 16;     // header word, timestamp
constexpr uint32_t kVersion = 1;
constexpr uint64_t kDefaultCycleSize = uint64_t{64} << 20;
constexpr uint64_t kMinCycleSize = uint64_t{64} << 10;
constexpr uint64_t kPage = 4096;

inline uint64_t pad8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }
// The largest payload an entry can have in an empty file of `size` bytes (the room rule:
// 64 + 16 + roundup8(L) + 8 <= size), and what a header word's L can say.
inline uint64_t capacity(uint64_t size) {
  uint64_t room = size - kHeaderSize - kEntryHeader - 8;
  return room < kLength ? room : kLength;
}

// Stores first, first + 1, ..., first + n - 1 from p on and returns p + n (the bulk case),
// four values an iteration in two 16-byte stores: what LLVM makes of Rust's loop at
// opt-level 3. Written with GCC's vector extension because GCC 12 at -O2 (the stock build)
// vectorises no loop whose count is known only at run time (its "very cheap" cost model;
// -fopt-info-vec-all says so): the plain loop stays one store a long. Unsigned arithmetic:
// the values wrap as the protocol's sums do.
inline int64_t* storeSequence(int64_t* p, int64_t first, uint64_t n) {
  typedef uint64_t Pair __attribute__((vector_size(16)));
  const uint64_t f = static_cast<uint64_t>(first);
  Pair lo = {f, f + 1}, hi = {f + 2, f + 3};
  const Pair step = {4, 4};
  const uint64_t whole = n / 4 * 4;
  for (uint64_t i = 0; i < whole; i += 4) {
    std::memcpy(p + i, &lo, sizeof lo);  // unaligned: an entry's payload is 8-aligned
    std::memcpy(p + i + 2, &hi, sizeof hi);
    lo += step;
    hi += step;
  }
  for (uint64_t i = whole; i < n; ++i) p[i] = static_cast<int64_t>(f + i);
  return p + n;
}

// "00000012.wbq"
std::string cycleName(uint64_t cycle);
// The cycle numbers of DIR's cycle files, in increasing order.
std::vector<uint64_t> cycles(const std::string& dir);
// Why `size` cannot be a cycle file size, or "".
std::string badCycleSize(uint64_t size);

enum class Ordering { release, seqcst };

// One cycle file, mapped. Moves, never copies; unmaps when destroyed.
struct Mapping {
  uint8_t* base = nullptr;
  uint64_t size = 0;
  uint64_t cycle = 0;
  uint64_t touched = 0;  // pretouch: every page from here on is still to be touched
  std::string path;

  Mapping() = default;
  Mapping(Mapping&& o) noexcept { *this = std::move(o); }
  Mapping& operator=(Mapping&& o) noexcept;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() { unmap(); }
  void unmap();
  explicit operator bool() const { return base != nullptr; }
};

// The appender: one per queue across processes, used by one thread.
//
//   start<Clock>(maxBytes); writeLong(v)...; end<Ordering>();
//
// The write path is inline (here), so that a benchmark loop instantiated per clock and
// ordering has no call in it but the clock's; what is rare (rolling to the next cycle
// file, an over-long write) is out of line.
class Appender {
 public:
  // Opens the queue in `dir` for appending, creating the directory and its first cycle
  // file if need be: takes the lock (refused, naming the holder's pid, if another appender
  // has it), deletes *.wbq.tmp, finds the append position and turns a dead appender's
  // WORKING entry into ABANDONED. A clock or cycle size left unset is the existing queue's
  // (for a new queue mono and 64 MiB); a set one that differs from the queue's is refused.
  explicit Appender(const std::string& dir, std::optional<ClockId> clock = {},
                    std::optional<uint64_t> cycleSize = {});
  ~Appender();
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;

  // Begins an entry of at most maxBytes payload bytes. Clock must be clock()'s type.
  template <class Clock>
  void start(uint64_t maxBytes) {
    if (__builtin_expect(pos_ + kEntryHeader + pad8(maxBytes) + 8 > cur_.size || maxBytes > kLength,
                         0)) {
      roll(maxBytes);
    }
    uint8_t* p = cur_.base + pos_;
    entry_ = reinterpret_cast<uint64_t*>(p);
    __atomic_store_n(entry_, kWorking | maxBytes, __ATOMIC_RELAXED);
    // Store-store order: no payload byte becomes visible before the entry is marked.
    __atomic_thread_fence(__ATOMIC_RELEASE);
    entry_[1] = static_cast<uint64_t>(Clock::now());
    // int64_t pointers, not bytes: a store through them cannot alias the cursor itself,
    // so a loop of writeLong keeps it in a register.
    cursor_ = reinterpret_cast<int64_t*>(p + kEntryHeader);
    limit_ = cursor_ + maxBytes / 8;
  }

  void writeLong(int64_t v) {
    if (__builtin_expect(cursor_ >= limit_, 0)) overflow();
    *cursor_++ = v;
  }

  // Appends the values first, first + 1, ... (n of them: the bulk case), the room that
  // start reserved checked once for all of them, so that the stores vectorise.
  void writeLongs(int64_t first, uint64_t n) {
    if (__builtin_expect(n > static_cast<uint64_t>(limit_ - cursor_), 0)) overflow();
    cursor_ = storeSequence(cursor_, first, n);
  }

  // Publishes the entry: its final header word, the length written. An entry holds at
  // least one value: a complete entry of 0 bytes would have the header word 0, which says
  // "nothing here yet".
  template <Ordering O>
  void end() {
    uint64_t length = static_cast<uint64_t>(reinterpret_cast<uint8_t*>(cursor_) -
                                            reinterpret_cast<uint8_t*>(entry_ + 2));
    if (__builtin_expect(length == 0, 0)) empty();
    if constexpr (O == Ordering::release) {
      __atomic_store_n(entry_, length, __ATOMIC_RELEASE);
    } else {
      __atomic_store_n(entry_, length, __ATOMIC_SEQ_CST);
    }
    pos_ += kEntryHeader + pad8(length);
  }

  // Creates (and maps) the next cycle file ahead of time and touches every page of it and
  // of the rest of the current one, so that the writes that follow take no page fault and
  // no file creation. Between writes only.
  void pretouch();
  // Unmaps the files rolled past. A roll inside a write keeps the old mapping rather than
  // pay munmap there; call this between writes, and before deleting those files (a deleted
  // file's pages stay allocated while mapped).
  void release();

  const std::string& dir() const { return dir_; }
  ClockId clock() const { return clock_; }
  uint64_t cycleSize() const { return size_; }
  uint64_t cycle() const { return cur_.cycle; }
  uint64_t position() const { return pos_; }
  uint64_t created() const { return created_; }      // cycle files this appender created
  uint64_t recovered() const { return recovered_; }  // WORKING entries made ABANDONED

 private:
  void roll(uint64_t maxBytes);
  [[noreturn]] void overflow() const;
  [[noreturn]] void empty() const;
  Mapping create(uint64_t cycle);
  Mapping openOrCreate(uint64_t cycle);
  // Scans `m` from offset 64: the first free offset, or 0 if the file ends in END.
  uint64_t recover(Mapping& m);

  std::string dir_;
  ClockId clock_ = ClockId::mono;
  uint64_t size_ = kDefaultCycleSize;
  int lockFd_ = -1;
  Mapping cur_, next_;
  std::vector<Mapping> retired_;
  uint64_t pos_ = kHeaderSize;
  uint64_t* entry_ = nullptr;
  int64_t* cursor_ = nullptr;
  int64_t* limit_ = nullptr;
  uint64_t created_ = 0, recovered_ = 0;
};

// A tailer: reads the queue from offset 64 of its lowest cycle file present, entry by
// entry, checking every bound first (a corrupt or truncated file is a Failure naming the
// file and the offset). It never returns a partial entry.
class Tailer {
 public:
  explicit Tailer(const std::string& dir);

  enum class Read {
    entry,       // a complete entry: `e` holds it
    none,        // nothing more yet: a 0 word, or END and no next file, or no file at all
    incomplete,  // a WORKING entry: stays there (a follower reads it again later)
  };
  struct Entry {
    int64_t timestamp = 0;
    const uint8_t* payload = nullptr;  // valid until the tailer leaves the file
    uint64_t length = 0;
    uint64_t offset = 0;  // of its header word in file()
  };
  // The next entry; ABANDONED ones are skipped and counted, END leads to the next file.
  Read next(Entry& e);

  uint64_t abandoned() const { return abandoned_; }
  // Where the tailer is: the file it reads (or the next it waits for) and the offset of the
  // next header word; "" before it has found a file.
  std::string file() const { return started_ ? cycleName(cycle_) : ""; }
  uint64_t cycle() const { return cycle_; }
  uint64_t offset() const { return started_ ? pos_ : 0; }
  // "DIR/00000000.wbq offset 64"
  std::string where() const;
  std::optional<ClockId> clock() const { return clock_; }

 private:
  bool open();

  std::string dir_;
  bool started_ = false;
  uint64_t cycle_ = 0, pos_ = kHeaderSize, abandoned_ = 0;
  Mapping cur_;
  std::optional<ClockId> clock_;
  std::optional<uint64_t> size_;
};

// Deletes the cycle files [from, to) of `dir` (files a tailer has finished with).
void removeCycles(const std::string& dir, uint64_t from, uint64_t to);

}  // namespace wb::queue::wbq
