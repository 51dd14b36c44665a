// A record read from a map-shaped encoding by a reader that walks the entries in the order
// of the bytes (libcbor's streaming decoder, libbson's iterator): each entry's key names its
// field, whatever the order; every field must come exactly once, integers must fit their
// field, and a nested map (`http`, `origin`) is read by the same rules. The keys are the
// JSON's (docs/workloads.md, codec); the lookup tries the key after the last one found
// first, so keys in the writer's order cost one comparison each.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "../common.h"
#include "records.h"

namespace wb::codec::keyed {

enum Level : uint8_t { kRecord, kHttp, kOrigin };
enum class Kind : uint8_t { integer, string, map };

struct Field {
  std::string_view key;
  Kind kind;
};

inline constexpr Field kRecordFields[] = {
    {"timestamp", Kind::integer},   {"zoneId", Kind::integer},     {"zonePlan", Kind::integer},
    {"http", Kind::map},            {"origin", Kind::map},         {"country", Kind::integer},
    {"cacheStatus", Kind::integer}, {"serverIp", Kind::string},    {"serverName", Kind::string},
    {"remoteIp", Kind::string},     {"bytesDlv", Kind::integer},   {"rayId", Kind::string}};
inline constexpr Field kHttpFields[] = {
    {"protocol", Kind::integer},  {"status", Kind::integer},    {"hostStatus", Kind::integer},
    {"upStatus", Kind::integer},  {"method", Kind::integer},    {"contentType", Kind::string},
    {"userAgent", Kind::string},  {"referer", Kind::string},    {"requestUri", Kind::string}};
inline constexpr Field kOriginFields[] = {{"ip", Kind::string},
                                          {"port", Kind::integer},
                                          {"hostname", Kind::string},
                                          {"protocol", Kind::integer}};

inline const Field* fieldsOf(Level level, int& n) {
  switch (level) {
    case kRecord: n = 12; return kRecordFields;
    case kHttp: n = 9; return kHttpFields;
    case kOrigin: n = 4; return kOriginFields;
  }
  n = 0;
  return nullptr;
}

[[noreturn, gnu::cold, gnu::noinline]] inline void bad(const char* lib, const std::string& what) {
  fail(std::string(lib) + ": " + what);
}

// An integer as the encodings carry it: `negative` means the value -1 - magnitude.
struct Int {
  bool negative = false;
  uint64_t magnitude = 0;
  static Int of(int64_t v) {
    return v < 0 ? Int{true, static_cast<uint64_t>(-1 - v)} : Int{false, static_cast<uint64_t>(v)};
  }
};

// One map being read: the fields of its level found by key, each once.
class Map {
 public:
  Map(const char* lib, Level level) : lib_(lib) { fields_ = fieldsOf(level, n_); }

  // The index of `key` among the level's fields; an unknown or repeated key is an error.
  int find(std::string_view key) {
    for (int k = 0; k < n_; ++k, ++next_) {
      if (next_ >= n_) next_ = 0;
      if (fields_[next_].key == key) {
        if (seen_ & (1u << next_)) bad(lib_, "repeated field " + std::string(key));
        seen_ |= 1u << next_;
        return next_++;
      }
    }
    bad(lib_, "unknown field " + std::string(key));
  }
  Kind kind(int index) const { return fields_[index].kind; }
  std::string_view key(int index) const { return fields_[index].key; }
  // After the last entry: every field was there.
  void end() const {
    if (seen_ != (1u << n_) - 1) {
      for (int k = 0; k < n_; ++k) {
        if (!(seen_ & (1u << k))) bad(lib_, "missing field " + std::string(fields_[k].key));
      }
    }
  }

 private:
  const char* lib_;
  const Field* fields_;
  int n_ = 0, next_ = 0;
  uint32_t seen_ = 0;
};

template <typename T>
T narrow(const char* lib, std::string_view key, Int v) {
  if constexpr (std::is_signed_v<T>) {
    if (v.magnitude > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      bad(lib, "field " + std::string(key) + " out of range");
    }
    return v.negative ? static_cast<T>(-1 - static_cast<T>(v.magnitude))
                      : static_cast<T>(v.magnitude);
  } else {
    if (v.negative || v.magnitude > std::numeric_limits<T>::max()) {
      bad(lib, "field " + std::string(key) + " out of range");
    }
    return static_cast<T>(v.magnitude);
  }
}

// Sets the integer field `index` of `level` in r.
template <typename S>
void setInt(const char* lib, LogT<S>& r, Level level, int index, std::string_view key, Int v) {
  switch (level) {
    case kRecord:
      switch (index) {
        case 0: r.timestamp = narrow<int64_t>(lib, key, v); return;
        case 1: r.zoneId = narrow<uint32_t>(lib, key, v); return;
        case 2: r.zonePlan = narrow<uint8_t>(lib, key, v); return;
        case 5: r.country = narrow<uint8_t>(lib, key, v); return;
        case 6: r.cacheStatus = narrow<uint8_t>(lib, key, v); return;
        case 10: r.bytesDlv = narrow<uint64_t>(lib, key, v); return;
      }
      break;
    case kHttp:
      switch (index) {
        case 0: r.http.protocol = narrow<uint8_t>(lib, key, v); return;
        case 1: r.http.status = narrow<uint16_t>(lib, key, v); return;
        case 2: r.http.hostStatus = narrow<uint16_t>(lib, key, v); return;
        case 3: r.http.upStatus = narrow<uint16_t>(lib, key, v); return;
        case 4: r.http.method = narrow<uint8_t>(lib, key, v); return;
      }
      break;
    case kOrigin:
      switch (index) {
        case 1: r.origin.port = narrow<uint16_t>(lib, key, v); return;
        case 3: r.origin.protocol = narrow<uint8_t>(lib, key, v); return;
      }
      break;
  }
  bad(lib, "field " + std::string(key) + " is not an integer");
}

// The string field `index` of `level` in r.
template <typename S>
S& stringField(const char* lib, LogT<S>& r, Level level, int index, std::string_view key) {
  switch (level) {
    case kRecord:
      switch (index) {
        case 7: return r.serverIp;
        case 8: return r.serverName;
        case 9: return r.remoteIp;
        case 11: return r.rayId;
      }
      break;
    case kHttp:
      switch (index) {
        case 5: return r.http.contentType;
        case 6: return r.http.userAgent;
        case 7: return r.http.referer;
        case 8: return r.http.requestUri;
      }
      break;
    case kOrigin:
      switch (index) {
        case 0: return r.origin.ip;
        case 2: return r.origin.hostname;
      }
      break;
  }
  bad(lib, "field " + std::string(key) + " is not a string");
}

}  // namespace wb::codec::keyed
