// The queue suite's latency histograms, in the protocol's "counts" form.
//
// Debian bookworm has no HdrHistogram C library (and nothing may be fetched), so this is
// not a port of it but the equivalent docs/protocol.md allows: counters laid out exactly as
// an HdrHistogram of 3 significant digits, lowest value 1, highest 3,600,000,000,000 (sub-
// bucket count 2048, half-count magnitude 10, unit magnitude 0, 32 buckets; the index from
// the highest set bit, as its getBucketIndex, getSubBucketIndex and valueFromIndex), printed
// as [[lowestEquivalentValue, count], ...] for the nonzero counters. Re-recording those
// values into an HdrHistogram of the same layout, as the harness does, loses nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wb::queue {

class Histogram {
 public:
  static constexpr int64_t kHighest = 3'600'000'000'000;  // an hour in ns
  static constexpr int kSubBucketHalfCountMagnitude = 10;
  static constexpr int64_t kSubBucketHalfCount = int64_t{1} << kSubBucketHalfCountMagnitude;
  static constexpr int64_t kSubBucketMask = 2 * kSubBucketHalfCount - 1;  // 2047
  // Buckets to cover kHighest: 2048 << 31 > kHighest.
  static constexpr int kBucketCount = 32;
  static constexpr size_t kCountsLen = (kBucketCount + 1) * kSubBucketHalfCount;  // 33792

  // A counter's index and its count.
  using Counts = std::vector<std::pair<uint32_t, uint64_t>>;

  Histogram() : counts_(kCountsLen) { touched_.reserve(256); }

  // Values beyond the layout's range (never a latency of this suite) count as its ends.
  void record(int64_t v) {
    size_t i = index(v < 0 ? 0 : v > kHighest ? kHighest : v);
    if (counts_[i]++ == 0) touched_.push_back(static_cast<uint32_t>(i));
  }

  // HdrHistogram's counts index of v (0 <= v <= kHighest).
  static size_t index(int64_t v) {
    int bucket = 64 - __builtin_clzll(static_cast<uint64_t>(v | kSubBucketMask)) -
                 (kSubBucketHalfCountMagnitude + 1);
    int64_t sub = v >> bucket;
    return static_cast<size_t>(((bucket + 1) << kSubBucketHalfCountMagnitude) +
                               (sub - kSubBucketHalfCount));
  }
  // The lowest value of the counter at `index` (HdrHistogram's valueFromIndex).
  static int64_t valueAt(size_t index);
  static int64_t lowestEquivalent(int64_t v) { return valueAt(index(v)); }

  uint64_t total() const;
  // The nonzero counters in increasing order.
  Counts nonzero() const;
  // The nonzero counters, and the histogram empty again: as cheap as the counters touched
  // (the per-second histograms are taken at the second's end, in the middle of a run).
  Counts drain();
  // [[v, n], ...]: each nonzero counter's lowest value and its count.
  static std::string json(const Counts& counts);
  std::string countsJson() const { return json(nonzero()); }

 private:
  std::vector<uint64_t> counts_;
  std::vector<uint32_t> touched_;  // the counters that are nonzero, in the order they became so
};

// What a cell records: the latency histogram of every timed write (and in paced the
// service-time one), and the same per second of wall time since the first timed run, for
// the result's `intervals`. record() is called after a write's t1, with t1 placing it in
// its second.
class Recorder {
 public:
  explicit Recorder(bool service) : hasService_(service) {}
  // The first timed run starts now (monotonic ns): second 0 of the intervals.
  void begin(int64_t origin) {
    origin_ = origin;
    boundary_ = origin + kSecond;
  }
  void record(int64_t latency, int64_t t1) {
    if (t1 >= boundary_) nextSecond(t1);
    latency_.record(latency);
    latencyNow_.record(latency);
  }
  void record(int64_t latency, int64_t service, int64_t t1) {
    record(latency, t1);
    service_.record(service);
    serviceNow_.record(service);
  }
  // After the last run: closes the last second.
  void finish();

  const Histogram& latency() const { return latency_; }
  const Histogram& service() const { return service_; }
  bool hasService() const { return hasService_; }
  // {"latency": [{"start_ms": 0, "length_ms": 1000, "counts": [[v, n], ...]}, ...], ...}
  std::string intervalsJson() const;

 private:
  static constexpr int64_t kSecond = 1'000'000'000;
  void nextSecond(int64_t t1);
  void closeSecond();

  bool hasService_ = false;
  Histogram latency_, service_, latencyNow_, serviceNow_;
  int64_t origin_ = 0, boundary_ = INT64_MAX;
  uint64_t second_ = 0;  // the second latencyNow_ holds
  std::vector<Histogram::Counts> latencySeconds_, serviceSeconds_;  // one per second
};

}  // namespace wb::queue
