// nlohmann-json: the native form is the library's own value, nlohmann::ordered_json (it
// keeps keys in insertion order, which the canonical JSON needs; plain json sorts them).
// populate builds the value from the records, serialize is dump() (always a new string:
// no reused buffer), deserialize parses into a value and folds it, reading every field by
// key (the records are made from it only for the checks).

#include <nlohmann/json.hpp>

#include <string>

#include "../common.h"
#include "loops.h"

namespace wb::codec {
namespace {

using nlohmann::ordered_json;

ordered_json toJson(const Log& r) {
  const auto& h = r.http;
  const auto& o = r.origin;
  return ordered_json{{"timestamp", r.timestamp},
                      {"zoneId", r.zoneId},
                      {"zonePlan", r.zonePlan},
                      {"http",
                       {{"protocol", h.protocol},
                        {"status", h.status},
                        {"hostStatus", h.hostStatus},
                        {"upStatus", h.upStatus},
                        {"method", h.method},
                        {"contentType", h.contentType},
                        {"userAgent", h.userAgent},
                        {"referer", h.referer},
                        {"requestUri", h.requestUri}}},
                      {"origin",
                       {{"ip", o.ip},
                        {"port", o.port},
                        {"hostname", o.hostname},
                        {"protocol", o.protocol}}},
                      {"country", r.country},
                      {"cacheStatus", r.cacheStatus},
                      {"serverIp", r.serverIp},
                      {"serverName", r.serverName},
                      {"remoteIp", r.remoteIp},
                      {"bytesDlv", r.bytesDlv},
                      {"rayId", r.rayId}};
}

// A view of a record in the value, for readMap: its strings are the value's; at() and
// get() throw on a missing field or a wrong type, and a number must fit its field.
struct Fields {
  const ordered_json& o;

  Fields map(const char* key) const { return {o.at(key)}; }
  template <typename T>
  T number(const char* key) const {
    const ordered_json& v = o.at(key);
    if constexpr (std::is_signed_v<T>) {
      // An integer only: get<int64_t>() of a float out of range is undefined behaviour
      // (found by fuzzing, drivers/cpp/fuzz/README.md).
      if (!v.is_number_integer() ||
          (v.is_number_unsigned() &&
           v.get<uint64_t>() > uint64_t{std::numeric_limits<int64_t>::max()})) {
        fail(std::string("nlohmann-json: invalid field ") + key);
      }
      return v.get<int64_t>();
    } else {
      if (!v.is_number_unsigned() || v.get<uint64_t>() > std::numeric_limits<T>::max()) {
        fail(std::string("nlohmann-json: invalid field ") + key);
      }
      return static_cast<T>(v.get<uint64_t>());
    }
  }
  template <typename S>
  S string(const char* key) const {
    return S(o.at(key).get_ref<const std::string&>());
  }
};

LogView view(const ordered_json& o) { return readMap<std::string_view>(Fields{o}); }

template <bool kBatch>
class Nlohmann {
 public:
  static constexpr bool kBuilds = true, kAccess = false;
  explicit Nlohmann(const Variant&) {}

  void populate(const Records& rs) {
    if (kBatch) {
      ordered_json logs = ordered_json::array();
      for (const Log& r : rs) logs.push_back(toJson(r));
      native_ = ordered_json{{"logs", std::move(logs)}};
    } else {
      native_ = toJson(rs.front());
    }
  }

  Bytes serialize() {
    out_ = native_.dump();
    return {reinterpret_cast<const uint8_t*>(out_.data()), out_.size()};
  }

  uint64_t deserialize(Bytes b) {
    parsed_ = ordered_json::parse(b.data, b.data + b.size);
    if (!kBatch) return fold(view(parsed_));
    uint64_t sum = 0;
    for (const ordered_json& r : logs(parsed_)) sum += fold(view(r));
    return sum;
  }

  Records populated() const { return plain(native_); }
  Records deserialized() const { return plain(parsed_); }

 private:
  static const ordered_json& logs(const ordered_json& v) {
    const ordered_json& logs = v.at("logs");
    if (!logs.is_array()) fail("nlohmann-json: logs is not an array");
    return logs;
  }

  static Records plain(const ordered_json& v) {
    Records rs;
    if (kBatch) {
      for (const ordered_json& r : logs(v)) rs.push_back(owned(view(r)));
    } else {
      rs.push_back(owned(view(v)));
    }
    return rs;
  }

  ordered_json native_, parsed_;
  std::string out_;
};

}  // namespace

std::unique_ptr<CodecCell> makeNlohmann(const Case& c, const Variant& v) {
  return makeCell<Nlohmann>(c, v);
}

std::string nlohmannVersion() {
  return std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
         std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
         std::to_string(NLOHMANN_JSON_VERSION_PATCH);
}

}  // namespace wb::codec
