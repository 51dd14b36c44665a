// libbson (BSON): the plain structs are the native form (populate copies the records, like
// null). serialize builds the document with bson_append_* (the JSON's keys in its order;
// timestamp and bytesDlv as int64, every other integer as int32, strings as UTF-8, http and
// origin as embedded documents, `logs` as {"logs": [...]}, an array keyed "0", "1", ...)
// into a bson_t kept and bson_reinit()ed, which keeps its heap buffer (`reused`), or made
// anew (`fresh`); the bytes are the bson_t's own. deserialize wraps the input with
// bson_init_static (no copy; it checks the length header and the final byte) and walks it
// with bson_iter, which bounds-checks each element as it steps to it (validation `lazy`),
// into the plain structs, the fields found by key in any order (keyed.h): `owned` copies
// the strings, `borrowed` keeps views of them in the input (bson_iter_utf8 points into
// it). An iterator that stops on corrupt bytes (bson_iter_t's err_off) is an error.

#include <bson/bson.h>

#include <cstring>
#include <string>
#include <string_view>

#include "../common.h"
#include "keyed.h"
#include "loops.h"

namespace wb::codec {
namespace {

constexpr const char* kLib = "libbson";

[[noreturn, gnu::cold, gnu::noinline]] void appendFailed() {
  fail("libbson: the document grew past its limit");
}

void check(bool ok) {
  if (!ok) appendFailed();
}

template <size_t N>
void i32(bson_t* b, const char (&k)[N], int32_t v) {
  check(bson_append_int32(b, k, N - 1, v));
}
template <size_t N>
void i64(bson_t* b, const char (&k)[N], int64_t v) {
  check(bson_append_int64(b, k, N - 1, v));
}
template <size_t N>
void utf8(bson_t* b, const char (&k)[N], const std::string& s) {
  check(bson_append_utf8(b, k, N - 1, s.data(), static_cast<int>(s.size())));
}

void appendRecord(bson_t* d, const Log& r) {
  const auto& h = r.http;
  const auto& o = r.origin;
  i64(d, "timestamp", r.timestamp);
  i32(d, "zoneId", static_cast<int32_t>(r.zoneId));
  i32(d, "zonePlan", r.zonePlan);
  bson_t http;
  check(bson_append_document_begin(d, "http", 4, &http));
  i32(&http, "protocol", h.protocol);
  i32(&http, "status", h.status);
  i32(&http, "hostStatus", h.hostStatus);
  i32(&http, "upStatus", h.upStatus);
  i32(&http, "method", h.method);
  utf8(&http, "contentType", h.contentType);
  utf8(&http, "userAgent", h.userAgent);
  utf8(&http, "referer", h.referer);
  utf8(&http, "requestUri", h.requestUri);
  check(bson_append_document_end(d, &http));
  bson_t origin;
  check(bson_append_document_begin(d, "origin", 6, &origin));
  utf8(&origin, "ip", o.ip);
  i32(&origin, "port", o.port);
  utf8(&origin, "hostname", o.hostname);
  i32(&origin, "protocol", o.protocol);
  check(bson_append_document_end(d, &origin));
  i32(d, "country", r.country);
  i32(d, "cacheStatus", r.cacheStatus);
  utf8(d, "serverIp", r.serverIp);
  utf8(d, "serverName", r.serverName);
  utf8(d, "remoteIp", r.remoteIp);
  i64(d, "bytesDlv", static_cast<int64_t>(r.bytesDlv));
  utf8(d, "rayId", r.rayId);
}

[[noreturn, gnu::cold, gnu::noinline]] void corrupt() { fail("libbson: corrupt document"); }

// After the last element of an iterator: false from bson_iter_next is also how it stops on
// corrupt bytes, which it marks in err_off.
void ended(const bson_iter_t& it) {
  if (it.err_off != 0) corrupt();
}

std::string_view keyOf(const bson_iter_t& it) {
  return std::string_view(bson_iter_key(&it), bson_iter_key_len(&it));
}

template <typename S>
void readDocument(bson_iter_t& it, keyed::Level level, LogT<S>& r) {
  keyed::Map m(kLib, level);
  while (bson_iter_next(&it)) {
    int index = m.find(keyOf(it));
    std::string_view key = m.key(index);
    bson_type_t type = bson_iter_type(&it);
    switch (m.kind(index)) {
      case keyed::Kind::integer:
        if (type == BSON_TYPE_INT32) {
          keyed::setInt(kLib, r, level, index, key, keyed::Int::of(bson_iter_int32(&it)));
        } else if (type == BSON_TYPE_INT64) {
          keyed::setInt(kLib, r, level, index, key, keyed::Int::of(bson_iter_int64(&it)));
        } else {
          fail("libbson: field " + std::string(key) + " is not an integer");
        }
        break;
      case keyed::Kind::string: {
        if (type != BSON_TYPE_UTF8) fail("libbson: field " + std::string(key) + " is not a string");
        uint32_t n = 0;
        const char* s = bson_iter_utf8(&it, &n);
        keyed::stringField(kLib, r, level, index, key) = S(std::string_view(s, n));
        break;
      }
      case keyed::Kind::map: {
        bson_iter_t child;
        if (type != BSON_TYPE_DOCUMENT || !bson_iter_recurse(&it, &child)) {
          fail("libbson: field " + std::string(key) + " is not a document");
        }
        readDocument(child, index == 3 ? keyed::kHttp : keyed::kOrigin, r);
        break;
      }
    }
  }
  ended(it);
  m.end();
}

template <bool kBatch>
class Bson {
 public:
  static constexpr bool kBuilds = true, kAccess = false;
  explicit Bson(const Variant& v) : v_(v), doc_(bson_new()) {}
  ~Bson() { bson_destroy(doc_); }
  Bson(const Bson&) = delete;
  Bson& operator=(const Bson&) = delete;

  void populate(const Records& rs) {
    if (v_.reused) {
      native_ = rs;
    } else {
      native_ = Records(rs);
    }
  }

  Bytes serialize() {
    if (v_.reused) {
      bson_reinit(doc_);
    } else {
      bson_destroy(doc_);
      doc_ = bson_new();
    }
    if constexpr (kBatch) {
      bson_t logs;
      check(bson_append_array_begin(doc_, "logs", 4, &logs));
      char buffer[16];
      for (size_t i = 0; i < native_.size(); ++i) {
        const char* key;
        size_t n = bson_uint32_to_string(static_cast<uint32_t>(i), &key, buffer, sizeof buffer);
        bson_t record;
        check(bson_append_document_begin(&logs, key, static_cast<int>(n), &record));
        appendRecord(&record, native_[i]);
        check(bson_append_document_end(&logs, &record));
      }
      check(bson_append_array_end(doc_, &logs));
    } else {
      appendRecord(doc_, native_.front());
    }
    return {bson_get_data(doc_), doc_->len};
  }

  uint64_t deserialize(Bytes b) {
    return v_.borrowed ? read(b, views_) : read(b, owned_);
  }

  Records populated() const { return native_; }
  Records deserialized() const { return v_.borrowed ? owned(views_) : owned_; }

 private:
  template <typename S>
  static uint64_t read(Bytes b, std::vector<LogT<S>>& out) {
    bson_t doc;
    bson_iter_t it;
    if (!bson_init_static(&doc, b.data, b.size) || !bson_iter_init(&it, &doc)) corrupt();
    std::vector<LogT<S>> rs;
    if constexpr (kBatch) {
      bson_iter_t logs;
      if (!bson_iter_next(&it) || keyOf(it) != "logs" || !BSON_ITER_HOLDS_ARRAY(&it) ||
          !bson_iter_recurse(&it, &logs)) {
        fail("libbson: the message is not {\"logs\": [...]}");
      }
      while (bson_iter_next(&logs)) {
        bson_iter_t record;
        if (!BSON_ITER_HOLDS_DOCUMENT(&logs) || !bson_iter_recurse(&logs, &record)) {
          fail("libbson: a log is not a document");
        }
        readDocument(record, keyed::kRecord, rs.emplace_back());
      }
      ended(logs);
      if (bson_iter_next(&it)) fail("libbson: a field after logs");
      ended(it);
    } else {
      readDocument(it, keyed::kRecord, rs.emplace_back());
    }
    out = std::move(rs);
    return fold(out);
  }

  Variant v_;
  Records native_;
  bson_t* doc_;
  Records owned_;
  std::vector<LogView> views_;
};

}  // namespace

std::unique_ptr<CodecCell> makeBson(const Case& c, const Variant& v) {
  return makeCell<Bson>(c, v);
}

std::string bsonVersion() { return bson_get_version(); }

}  // namespace wb::codec
