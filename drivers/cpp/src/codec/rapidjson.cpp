// RapidJSON: the plain structs are the native form (populate copies the records, like
// null); serialize is a Writer into a StringBuffer, both kept and cleared (`reused`) or
// made anew (`fresh`); deserialize parses a Document and reads it into the plain structs
// (owned strings), checking every field's presence, type and range. RapidJSON's parser and
// its values' destructors recurse once per nesting level, so the parse goes through
// DepthLimit, which stops it at limits::kMaxNestingDepth (hostile input cannot overflow the
// stack).

#include <rapidjson/document.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <memory>
#include <string>

#include "../common.h"
#include "../decode_limits.h"
#include "loops.h"

namespace wb::codec {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using Value = rapidjson::Value;

// A document parsed from `size` bytes with the default flags (what Document::Parse does),
// its SAX events passed through to the document while the nesting is at most
// limits::kMaxNestingDepth; deeper, the parse stops with kParseErrorTermination.
class DepthLimit {
 public:
  using Ch = char;
  DepthLimit(const char* data, size_t size) : data_(data), size_(size) {}

  // Document::Populate's generator: runs the parse into `doc`'s handler interface.
  bool operator()(rapidjson::Document& doc) {
    doc_ = &doc;
    rapidjson::MemoryStream ms(data_, size_);
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> is(ms);
    rapidjson::Reader reader;
    result_ = reader.Parse<rapidjson::kParseDefaultFlags>(is, *this);
    return !result_.IsError();
  }
  const rapidjson::ParseResult& result() const { return result_; }
  bool tooDeep() const { return depth_ > limits::kMaxNestingDepth; }

  bool Null() { return doc_->Null(); }
  bool Bool(bool b) { return doc_->Bool(b); }
  bool Int(int i) { return doc_->Int(i); }
  bool Uint(unsigned i) { return doc_->Uint(i); }
  bool Int64(int64_t i) { return doc_->Int64(i); }
  bool Uint64(uint64_t i) { return doc_->Uint64(i); }
  bool Double(double d) { return doc_->Double(d); }
  bool RawNumber(const Ch* s, rapidjson::SizeType n, bool copy) {
    return doc_->RawNumber(s, n, copy);
  }
  bool String(const Ch* s, rapidjson::SizeType n, bool copy) { return doc_->String(s, n, copy); }
  bool Key(const Ch* s, rapidjson::SizeType n, bool copy) { return doc_->Key(s, n, copy); }
  bool StartObject() { return ++depth_ <= limits::kMaxNestingDepth && doc_->StartObject(); }
  bool EndObject(rapidjson::SizeType n) {
    --depth_;
    return doc_->EndObject(n);
  }
  bool StartArray() { return ++depth_ <= limits::kMaxNestingDepth && doc_->StartArray(); }
  bool EndArray(rapidjson::SizeType n) {
    --depth_;
    return doc_->EndArray(n);
  }

 private:
  const char* data_;
  size_t size_;
  rapidjson::Document* doc_ = nullptr;
  rapidjson::ParseResult result_;
  int depth_ = 0;
};

void writeRecord(Writer& w, const Log& r) {
  auto str = [&](const char* key, const std::string& v) {
    w.Key(key);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  };
  auto num = [&](const char* key, unsigned v) {
    w.Key(key);
    w.Uint(v);
  };
  w.StartObject();
  w.Key("timestamp");
  w.Int64(r.timestamp);
  num("zoneId", r.zoneId);
  num("zonePlan", r.zonePlan);
  w.Key("http");
  w.StartObject();
  num("protocol", r.http.protocol);
  num("status", r.http.status);
  num("hostStatus", r.http.hostStatus);
  num("upStatus", r.http.upStatus);
  num("method", r.http.method);
  str("contentType", r.http.contentType);
  str("userAgent", r.http.userAgent);
  str("referer", r.http.referer);
  str("requestUri", r.http.requestUri);
  w.EndObject();
  w.Key("origin");
  w.StartObject();
  str("ip", r.origin.ip);
  num("port", r.origin.port);
  str("hostname", r.origin.hostname);
  num("protocol", r.origin.protocol);
  w.EndObject();
  num("country", r.country);
  num("cacheStatus", r.cacheStatus);
  str("serverIp", r.serverIp);
  str("serverName", r.serverName);
  str("remoteIp", r.remoteIp);
  w.Key("bytesDlv");
  w.Uint64(r.bytesDlv);
  str("rayId", r.rayId);
  w.EndObject();
}

[[noreturn, gnu::cold, gnu::noinline]] void badField(const char* key) {
  fail(std::string("rapidjson: missing or invalid field ") + key);
}

const Value& member(const Value& o, const char* key) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd()) badField(key);
  return it->value;
}

const Value& object(const Value& o, const char* key) {
  const Value& v = member(o, key);
  if (!v.IsObject()) badField(key);
  return v;
}

// A JSON object's fields, for readMap.
struct Fields {
  const Value& o;

  Fields map(const char* key) const { return {object(o, key)}; }
  template <typename T>
  T number(const char* key) const {
    const Value& v = member(o, key);
    if constexpr (std::is_signed_v<T>) {
      if (!v.IsInt64()) badField(key);
      return v.GetInt64();
    } else {
      if (!v.IsUint64() || v.GetUint64() > std::numeric_limits<T>::max()) badField(key);
      return static_cast<T>(v.GetUint64());
    }
  }
  template <typename S>
  S string(const char* key) const {
    const Value& v = member(o, key);
    if (!v.IsString()) badField(key);
    return S(v.GetString(), v.GetStringLength());
  }
};

Log readRecord(const Value& o) {
  if (!o.IsObject()) fail("rapidjson: a record is not an object");
  return readMap<std::string>(Fields{o});
}

template <bool kBatch>
class RapidJson {
 public:
  static constexpr bool kBuilds = true, kAccess = false;
  explicit RapidJson(const Variant& v) : v_(v) {}

  void populate(const Records& rs) {
    if (v_.reused) {
      native_ = rs;
    } else {
      native_ = Records(rs);
    }
  }

  Bytes serialize() {
    if (v_.reused && buffer_) {
      buffer_->Clear();
      writer_->Reset(*buffer_);
    } else {
      buffer_ = std::make_unique<rapidjson::StringBuffer>();
      writer_ = std::make_unique<Writer>(*buffer_);
    }
    Writer& w = *writer_;
    if (kBatch) {
      w.StartObject();
      w.Key("logs");
      w.StartArray();
    }
    for (const Log& r : native_) writeRecord(w, r);
    if (kBatch) {
      w.EndArray();
      w.EndObject();
    }
    return {reinterpret_cast<const uint8_t*>(buffer_->GetString()), buffer_->GetSize()};
  }

  uint64_t deserialize(Bytes b) {
    rapidjson::Document doc;
    DepthLimit parse(reinterpret_cast<const char*>(b.data), b.size);
    doc.Populate(parse);
    if (parse.tooDeep()) {
      fail("rapidjson: nested deeper than " + std::to_string(limits::kMaxNestingDepth) +
           " at byte " + std::to_string(parse.result().Offset()));
    }
    if (parse.result().IsError()) {
      fail("rapidjson: parse error " + std::to_string(parse.result().Code()) + " at byte " +
           std::to_string(parse.result().Offset()));
    }
    Records rs;
    if (kBatch) {
      if (!doc.IsObject()) fail("rapidjson: the message is not an object");
      const Value& logs = member(doc, "logs");
      if (!logs.IsArray()) badField("logs");
      rs.reserve(logs.Size());
      for (const Value& r : logs.GetArray()) rs.push_back(readRecord(r));
    } else {
      rs.push_back(readRecord(doc));
    }
    parsed_ = std::move(rs);
    return fold(parsed_);
  }

  Records populated() const { return native_; }
  Records deserialized() const { return parsed_; }

 private:
  Variant v_;
  Records native_, parsed_;
  std::unique_ptr<rapidjson::StringBuffer> buffer_;
  std::unique_ptr<Writer> writer_;
};

}  // namespace

std::unique_ptr<CodecCell> makeRapidjson(const Case& c, const Variant& v) {
  return makeCell<RapidJson>(c, v);
}

std::string rapidjsonVersion() { return RAPIDJSON_VERSION_STRING; }

}  // namespace wb::codec
