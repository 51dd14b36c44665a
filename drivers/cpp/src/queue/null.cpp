// The queue suite's library `null`, the floor: the same loop as wbq's, storing each write's
// timestamp and values into a heap array allocated and touched (zeroed) before the first
// run, with no header word and nothing published (ordering `none`: plain stores). A run
// starts again at the array's beginning; its tailer reads the array back.
//
// The array holds one run: per entry its timestamp, then its values (single and paced: one
// value an entry, iters entries; bulk: one entry of iters values).

#include <memory>
#include <string>
#include <vector>

#include "../common.h"
#include "loops.h"
#include "wbq.h"

namespace wb::queue {
namespace {

enum class NullOrdering { none };

class NullBench {
 public:
  explicit NullBench(const Plan& plan)
      : stride_(1 + plan.longsPerEntry()), slots_(plan.entriesPerRun() * stride_) {}

  template <class Clock>
  void start(uint64_t maxBytes) {
    *cursor_++ = Clock::now();
    limit_ = cursor_ + maxBytes / 8;
  }
  // The same bounds check as wbq's writeLong: a write never goes past what start reserved.
  void writeLong(int64_t v) {
    if (__builtin_expect(cursor_ >= limit_, 0)) fail("null: writeLong past the entry's end");
    *cursor_++ = v;
  }
  // As wbq's: the room checked once for all n, then storeSequence's 16-byte stores.
  void writeLongs(int64_t first, uint64_t n) {
    if (__builtin_expect(n > static_cast<uint64_t>(limit_ - cursor_), 0)) {
      fail("null: writeLongs past the entry's end");
    }
    cursor_ = wbq::storeSequence(cursor_, first, n);
  }
  template <NullOrdering>
  void end() {}

  void beginRun() {
    cursor_ = slots_.data();
    read_ = cursor_;
  }
  void pretouch() {}  // the array was touched when it was made

  bool read(Entry& e) {
    if (read_ == cursor_) return false;
    last_ = read_;
    e.timestamp = read_[0];
    e.payload = reinterpret_cast<const uint8_t*>(read_ + 1);
    e.length = 8 * (stride_ - 1);
    read_ += stride_;
    return true;
  }
  std::string where() const { return "null array slot " + std::to_string(last_ - slots_.data()); }
  void finished() {}
  QueueStats stats() const { return {}; }

 private:
  uint64_t stride_;
  std::vector<int64_t> slots_;
  int64_t* cursor_ = nullptr;
  int64_t* limit_ = nullptr;
  const int64_t* read_ = nullptr;
  const int64_t* last_ = nullptr;  // the last entry read
};

}  // namespace

std::unique_ptr<QueueCell> makeNull(const Plan& plan) {
  return makeCell<NullBench, NullOrdering::none>(plan);
}

}  // namespace wb::queue
