// simdjson: parse only (3.0 has no serializer, so populate and serialize are absent). It
// reads the canonical JSON with the On-Demand API into the plain structs, through one
// parser kept across messages (simdjson's recommended use). `borrowed` strings are views
// into the parser's string buffer, where simdjson writes every string unescaped: they live
// until the next parse, and no string is allocated. Errors throw simdjson_error. On-Demand
// reads what it is asked for and does not look past the message's root value.

#include <simdjson.h>

#include <limits>
#include <string>

#include "../common.h"
#include "loops.h"

namespace wb::codec {
namespace {

using simdjson::ondemand::object;

// An On-Demand object's fields, for readMap (in document order, as On-Demand reads), each
// found with find_field: in order, never searching back from the object's start. (The
// unordered operator[] does search back, and there On-Demand assumes the object it has
// passed was well formed: on hostile JSON that is undefined behaviour, found by fuzzing,
// drivers/cpp/fuzz/README.md.) A key out of the canonical order is refused.
struct Fields {
  object o;

  Fields map(const char* key) { return {o.find_field(key)}; }
  template <typename T>
  T number(const char* key) {
    if constexpr (std::is_signed_v<T>) {
      return int64_t(o.find_field(key));
    } else {
      uint64_t v = o.find_field(key);
      if (v > std::numeric_limits<T>::max()) fail(std::string("simdjson: out of range: ") + key);
      return static_cast<T>(v);
    }
  }
  template <typename S>
  S string(const char* key) {
    return S(std::string_view(o.find_field(key)));
  }
};

template <typename S>
LogT<S> readRecord(object o) {
  return readMap<S>(Fields{o});
}

template <bool kBatch>
class SimdJson {
 public:
  static constexpr bool kBuilds = false, kAccess = false;
  explicit SimdJson(const Variant& v) : v_(v) {}

  // The bytes it parses: the canonical JSON (the bytes rapidjson writes).
  static std::string encode(const Records& rs, bool batch) { return canonicalJson(rs, batch); }

  uint64_t deserialize(Bytes b) {
    return v_.borrowed ? read(b, views_) : read(b, owned_);
  }

  Records deserialized() const { return v_.borrowed ? owned(views_) : owned_; }

 private:
  template <typename S>
  uint64_t read(Bytes b, std::vector<LogT<S>>& out) {
    // The input is followed by Input::kPadding >= SIMDJSON_PADDING zero bytes.
    simdjson::padded_string_view json(reinterpret_cast<const char*>(b.data), b.size,
                                      b.size + Input::kPadding);
    simdjson::ondemand::document doc = parser_.iterate(json);
    std::vector<LogT<S>> rs;
    if (kBatch) {
      for (object r : doc.find_field("logs").get_array()) rs.push_back(readRecord<S>(r));
    } else {
      rs.push_back(readRecord<S>(doc.get_object()));
    }
    out = std::move(rs);
    return fold(out);
  }

  Variant v_;
  simdjson::ondemand::parser parser_;
  Records owned_;
  std::vector<LogView> views_;
};

static_assert(Input::kPadding >= simdjson::SIMDJSON_PADDING);

}  // namespace

std::unique_ptr<CodecCell> makeSimdjson(const Case& c, const Variant& v) {
  return makeCell<SimdJson>(c, v);
}

std::string simdjsonVersion() {
  return std::to_string(simdjson::SIMDJSON_VERSION_MAJOR) + "." +
         std::to_string(simdjson::SIMDJSON_VERSION_MINOR) + "." +
         std::to_string(simdjson::SIMDJSON_VERSION_REVISION);
}

}  // namespace wb::codec
