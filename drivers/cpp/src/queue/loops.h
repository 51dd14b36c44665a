// The queue suite's loops (docs/protocol.md, suite queue), written once over the narrow
// interface a library implements; each library's file instantiates them per clock and
// ordering, so that a run is one virtual call and every call inside it is static.
//
// A library is a class Q constructed from the Plan, with
//   template <class Clock> void start(uint64_t maxBytes)  begin an entry (reads Clock)
//   void writeLong(int64_t v)                               one value into it
//   void writeLongs(int64_t first, uint64_t n)              first, first + 1, ... (bulk)
//   template <auto Ordering> void end()                     publish it
//   void beginRun()     untimed, before every run
//   void pretouch()     untimed, before every run when the cell's pretouch is on
//   bool read(Entry&)   its tailer: the next entry, false when there is none
//   std::string where() const          the last entry read, for messages
//   void finished()     untimed, after a run was checked: release what the tailer is done with
//   QueueStats stats() const
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "../common.h"
#include "clock.h"
#include "histogram.h"

namespace wb::queue {

enum class Case { single, bulk, paced };

// A cell's work, from its parameters and the run's counts.
struct Plan {
  Case kase = Case::single;
  // Writes per run (single, paced) or values in the run's one write (bulk).
  uint64_t iters = 0;
  int64_t period = 0;  // paced: ns between two writes' scheduled starts
  ClockId clock = ClockId::mono;
  std::string ordering;  // release, seqcst or none
  bool pretouch = true;
  std::string dir;  // --work-dir: the queue's directory

  uint64_t entriesPerRun() const { return kase == Case::bulk ? 1 : iters; }
  uint64_t longsPerEntry() const { return kase == Case::bulk ? iters : 1; }
};

// An entry a tailer read back.
struct Entry {
  int64_t timestamp = 0;
  const uint8_t* payload = nullptr;
  uint64_t length = 0;  // bytes
};

// The result's `queue` evidence.
struct QueueStats {
  uint64_t cycleSize = 0, cycles = 0;
};

// How a run is timed. `whole`: t0 before its first write, t1 after its last, no timer read
// among them (a clock read costs about what a single write does). `perWrite`: t0 and t1
// around every write, for the histograms. A bulk run is one write, timed whole either way;
// a paced run is timed per write (its schedule reads the clock anyway).
enum class Timing { whole, perWrite };

// A cell, type-erased once.
class QueueCell {
 public:
  virtual ~QueueCell() = default;
  // Untimed, before every run (warm-up too): the library's preparation and, when the
  // cell's pretouch is on, its pretouch.
  virtual void prepare() = 0;
  // One run, writing the process's next values: returns its time (ns), timed as `timing`
  // says (perWrite: the sum of its writes' service times). With a recorder, each write
  // is recorded after its t1.
  virtual uint64_t run(Recorder* rec, Timing timing) = 0;
  // Untimed, after every run: the tailer reads the run back and checks the count, every
  // value and that timestamps never decrease (Failure at the first difference), then the
  // library releases what it has finished with. Returns the wrapping sum of the values.
  virtual int64_t verify() = 0;
  virtual uint64_t entriesChecked() const = 0;
  virtual QueueStats stats() const = 0;
};

template <class Q, class Clock, auto O>
class CellOf final : public QueueCell {
 public:
  explicit CellOf(const Plan& plan) : plan_(plan), q_(plan) {}

  void prepare() override {
    q_.beginRun();
    if (plan_.pretouch) q_.pretouch();
  }

  // Per write: t0 just before start, t1 just after end, nothing else between them; whole:
  // t0 before the first start, t1 after the last end.
  uint64_t run(Recorder* rec, Timing timing) override {
    uint64_t total = 0;
    const uint64_t n = plan_.iters;
    switch (plan_.kase) {
      case Case::single: {
        uint64_t v = next_;  // a local: the payload stores cannot alias it
        if (timing == Timing::whole) {
          const int64_t t0 = monoNow();
          for (uint64_t i = 0; i < n; ++i) {
            q_.template start<Clock>(8);
            q_.writeLong(static_cast<int64_t>(v++));
            q_.template end<O>();
          }
          total = static_cast<uint64_t>(monoNow() - t0);
          next_ = v;
          break;
        }
        for (uint64_t i = 0; i < n; ++i) {
          int64_t t0 = monoNow();
          q_.template start<Clock>(8);
          q_.writeLong(static_cast<int64_t>(v++));
          q_.template end<O>();
          int64_t t1 = monoNow();
          total += static_cast<uint64_t>(t1 - t0);
          if (rec != nullptr) rec->record(t1 - t0, t1);
        }
        next_ = v;
        break;
      }
      case Case::bulk: {
        int64_t t0 = monoNow();
        q_.template start<Clock>(8 * n);
        q_.writeLongs(static_cast<int64_t>(next_), n);
        q_.template end<O>();
        int64_t t1 = monoNow();
        next_ += n;
        total = static_cast<uint64_t>(t1 - t0);
        if (rec != nullptr) rec->record(t1 - t0, t1);
        break;
      }
      case Case::paced: {
        // Open loop: write i is due at T + i * period whatever happened to the ones before,
        // and its latency counts from then (no coordinated omission).
        uint64_t v = next_;
        const int64_t start = monoNow();
        for (uint64_t i = 0; i < n; ++i) {
          const int64_t due = start + static_cast<int64_t>(i) * plan_.period;
          int64_t t0 = monoNow();
          while (t0 < due) t0 = monoNow();
          q_.template start<Clock>(8);
          q_.writeLong(static_cast<int64_t>(v++));
          q_.template end<O>();
          int64_t t1 = monoNow();
          total += static_cast<uint64_t>(t1 - t0);
          if (rec != nullptr) rec->record(t1 - due, t1 - t0, t1);
        }
        next_ = v;
        break;
      }
    }
    return total;
  }

  int64_t verify() override {
    const uint64_t entries = plan_.entriesPerRun(), longs = plan_.longsPerEntry();
    uint64_t sum = 0;
    Entry e;
    for (uint64_t i = 0; i < entries; ++i) {
      if (!q_.read(e)) {
        fail("the tailer read " + std::to_string(i) + " entries of a run of " +
             std::to_string(entries));
      }
      if (e.length != 8 * longs) {
        fail(q_.where() + ": an entry of " + std::to_string(e.length) + " bytes, " +
             std::to_string(8 * longs) + " were written");
      }
      if (e.timestamp < lastTimestamp_) {
        fail(q_.where() + ": timestamp " + std::to_string(e.timestamp) + " after " +
             std::to_string(lastTimestamp_));
      }
      lastTimestamp_ = e.timestamp;
      for (uint64_t j = 0; j < longs; ++j) {
        uint64_t v;
        std::memcpy(&v, e.payload + 8 * j, 8);
        if (v != checked_) {
          fail(q_.where() + ": value " + std::to_string(j) + " is " +
               std::to_string(static_cast<int64_t>(v)) + ", " +
               std::to_string(static_cast<int64_t>(checked_)) + " was written");
        }
        sum += v;
        ++checked_;
      }
      ++entriesChecked_;
    }
    if (q_.read(e)) fail(q_.where() + ": an entry more than the run wrote");
    q_.finished();
    return static_cast<int64_t>(sum);  // two's complement: the wrapping sum
  }

  uint64_t entriesChecked() const override { return entriesChecked_; }
  QueueStats stats() const override { return q_.stats(); }

 private:
  Plan plan_;
  Q q_;
  uint64_t next_ = 0;     // the next value to write: 0, 1, 2, ... through the process
  uint64_t checked_ = 0;  // the next value the tailer must read
  int64_t lastTimestamp_ = INT64_MIN;
  uint64_t entriesChecked_ = 0;
};

// A library's cell for the plan's clock, at ordering O.
template <class Q, auto O>
std::unique_ptr<QueueCell> makeCell(const Plan& plan) {
#ifdef WB_HAVE_TSC
  if (plan.clock == ClockId::tsc) return std::make_unique<CellOf<Q, TscClock, O>>(plan);
#endif
  return std::make_unique<CellOf<Q, MonoClock, O>>(plan);
}

// The factories, one per library file.
std::unique_ptr<QueueCell> makeNull(const Plan& plan);  // null.cpp
std::unique_ptr<QueueCell> makeWbq(const Plan& plan);   // wbq.cpp

}  // namespace wb::queue
