// jsoncpp: parse only. Its objects keep their keys sorted (a std::map), so it cannot write
// the canonical JSON, whose keys are in the record's order; it reads it. The native form is
// the library's own value, ::Json::Value: deserialize parses into a new value with one
// CharReader kept across messages, in strict mode (no comments, a single root value, no
// trailing bytes, no duplicate keys) with its recursion bounded at limits::kMaxNestingDepth,
// then folds it reading every field by key (the records are made from it only for the
// checks). Numbers must be JSON integers within their field's range.

#include <json/json.h>

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "../common.h"
#include "../decode_limits.h"
#include "loops.h"

namespace wb::codec {
namespace {

[[noreturn, gnu::cold, gnu::noinline]] void badField(const char* key) {
  fail(std::string("jsoncpp: missing or invalid field ") + key);
}

// A JSON object's fields, for readMap; strings are views into the value.
struct Fields {
  const ::Json::Value& o;

  const ::Json::Value& member(const char* key) const {
    const ::Json::Value* v = o.find(key, key + std::strlen(key));
    if (v == nullptr) badField(key);
    return *v;
  }
  Fields map(const char* key) const {
    const ::Json::Value& v = member(key);
    if (!v.isObject()) badField(key);
    return {v};
  }
  template <typename T>
  T number(const char* key) const {
    const ::Json::Value& v = member(key);
    // isInt64() and isUInt64() also accept a float with an integral value.
    if (v.type() != ::Json::intValue && v.type() != ::Json::uintValue) badField(key);
    if constexpr (std::is_signed_v<T>) {
      if (!v.isInt64()) badField(key);
      return v.asInt64();
    } else {
      if (!v.isUInt64() || v.asUInt64() > std::numeric_limits<T>::max()) badField(key);
      return static_cast<T>(v.asUInt64());
    }
  }
  template <typename S>
  S string(const char* key) const {
    const ::Json::Value& v = member(key);
    const char *begin = nullptr, *end = nullptr;
    if (!v.isString() || !v.getString(&begin, &end)) badField(key);
    return S(begin, static_cast<size_t>(end - begin));
  }
};

LogView view(const ::Json::Value& o) {
  if (!o.isObject()) fail("jsoncpp: a record is not an object");
  return readMap<std::string_view>(Fields{o});
}

std::unique_ptr<::Json::CharReader> strictReader() {
  ::Json::CharReaderBuilder builder;
  ::Json::CharReaderBuilder::strictMode(&builder.settings_);
  builder["stackLimit"] = limits::kMaxNestingDepth;
  return std::unique_ptr<::Json::CharReader>(builder.newCharReader());
}

template <bool kBatch>
class JsonCpp {
 public:
  static constexpr bool kBuilds = false, kAccess = false;
  explicit JsonCpp(const Variant&) : reader_(strictReader()) {}

  // The bytes it parses: the canonical JSON (the bytes rapidjson writes).
  static std::string encode(const Records& rs, bool batch) { return canonicalJson(rs, batch); }

  uint64_t deserialize(Bytes b) {
    const char* begin = reinterpret_cast<const char*>(b.data);
    ::Json::String errors;
    parsed_ = ::Json::Value();
    try {
      if (!reader_->parse(begin, begin + b.size, &parsed_, &errors)) fail("jsoncpp: " + errors);
    } catch (const ::Json::Exception& e) {  // the stack limit
      fail(std::string("jsoncpp: ") + e.what());
    }
    if (!kBatch) return fold(view(parsed_));
    uint64_t sum = 0;
    for (const ::Json::Value& r : logs(parsed_)) sum += fold(view(r));
    return sum;
  }

  Records deserialized() const {
    Records rs;
    if (kBatch) {
      for (const ::Json::Value& r : logs(parsed_)) rs.push_back(owned(view(r)));
    } else {
      rs.push_back(owned(view(parsed_)));
    }
    return rs;
  }

 private:
  static const ::Json::Value& logs(const ::Json::Value& v) {
    if (!v.isObject()) fail("jsoncpp: the message is not an object");
    const ::Json::Value& logs = Fields{v}.member("logs");
    if (!logs.isArray()) badField("logs");
    return logs;
  }

  std::unique_ptr<::Json::CharReader> reader_;
  ::Json::Value parsed_;
};

}  // namespace

std::unique_ptr<CodecCell> makeJsoncpp(const Case& c, const Variant& v) {
  return makeCell<JsonCpp>(c, v);
}

std::string jsoncppVersion() { return JSONCPP_VERSION_STRING; }

}  // namespace wb::codec
