#include "histogram.h"

#include <algorithm>

namespace wb::queue {

int64_t Histogram::valueAt(size_t index) {
  int bucket = static_cast<int>(index >> kSubBucketHalfCountMagnitude) - 1;
  int64_t sub = static_cast<int64_t>(index & (kSubBucketHalfCount - 1)) + kSubBucketHalfCount;
  if (bucket < 0) {
    sub -= kSubBucketHalfCount;
    bucket = 0;
  }
  return sub << bucket;
}

uint64_t Histogram::total() const {
  uint64_t n = 0;
  for (uint64_t c : counts_) n += c;
  return n;
}

Histogram::Counts Histogram::nonzero() const {
  std::vector<uint32_t> at = touched_;
  std::sort(at.begin(), at.end());
  Counts v;
  for (uint32_t i : at) v.emplace_back(i, counts_[i]);
  return v;
}

Histogram::Counts Histogram::drain() {
  Counts v = nonzero();
  for (uint32_t i : touched_) counts_[i] = 0;
  touched_.clear();
  return v;
}

std::string Histogram::json(const Counts& counts) {
  std::string s = "[";
  for (const auto& [i, n] : counts) {
    if (s.size() > 1) s += ", ";
    s += "[" + std::to_string(valueAt(i)) + ", " + std::to_string(n) + "]";
  }
  return s + "]";
}

void Recorder::closeSecond() {
  latencySeconds_.push_back(latencyNow_.drain());
  if (hasService_) serviceSeconds_.push_back(serviceNow_.drain());
}

void Recorder::nextSecond(int64_t t1) {
  // Every second up to t1's, empty ones included, so that the log has no gaps.
  uint64_t second = static_cast<uint64_t>((t1 - origin_) / kSecond);
  while (second_ < second) {
    closeSecond();
    ++second_;
  }
  boundary_ = origin_ + static_cast<int64_t>(second_ + 1) * kSecond;
}

void Recorder::finish() {
  closeSecond();
  boundary_ = INT64_MAX;
}

std::string Recorder::intervalsJson() const {
  auto list = [](const std::vector<Histogram::Counts>& seconds) {
    std::string s = "[";
    for (size_t i = 0; i < seconds.size(); ++i) {
      s += (i ? ", " : "") + std::string("{\"start_ms\": ") + std::to_string(i * 1000) +
           ", \"length_ms\": 1000, \"counts\": " + Histogram::json(seconds[i]) + "}";
    }
    return s + "]";
  };
  std::string s = "{\"latency\": " + list(latencySeconds_);
  if (hasService_) s += ", \"service\": " + list(serviceSeconds_);
  return s + "}";
}

}  // namespace wb::queue
