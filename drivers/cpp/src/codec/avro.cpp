// Apache Avro C (avro-c): binary encoding of schemas/log.avsc or logs.avsc, read from the
// repository's schemas/ when the first cell is made (the path is compiled in,
// CMakeLists.txt), without a container file. The native form is a generic value
// (avro_generic_class_from_schema): populate sets its fields by index (the schema's field
// order, checked against the JSON's keys when the schema is loaded) in a value kept and
// avro_value_reset() (`reused`: the batch's array and the strings keep their memory) or
// made anew (`fresh`). serialize sizes the value (avro_value_sizeof) and writes it with
// avro_value_write through an avro_writer_memory over the output buffer (reused or fresh).
// deserialize reads with avro_value_read through a kept avro_reader_memory over the input
// into a kept generic value, which copies every string (owned only), and folds through it.
// Everything is read as it is parsed (validation `validated`), a message must be consumed
// exactly. Limit: avro-c 1.11.1 allocates a string's length as the bytes say before it
// reads them, so its allocator (avro_set_allocator) refuses a block over kMaxFrameBytes
// (src/decode_limits.h) and the read fails cleanly (ENOMEM).

#include <avro.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "../common.h"
#include "../decode_limits.h"
#include "keyed.h"
#include "loops.h"

#ifndef WB_SCHEMAS_DIR
#error "WB_SCHEMAS_DIR: the repository's schemas/ (CMakeLists.txt)"
#endif

namespace wb::codec {
namespace {

[[noreturn, gnu::cold, gnu::noinline]] void avroFailed(const char* what) {
  fail(std::string("avro-c: ") + what + ": " + avro_strerror());
}

void check(int rval, const char* what) {
  if (rval != 0) avroFailed(what);
}

void* guardedAllocator(void*, void* ptr, size_t, size_t nsize) {
  if (nsize == 0) {
    std::free(ptr);
    return nullptr;
  }
  if (nsize > limits::kMaxFrameBytes) return nullptr;
  return std::realloc(ptr, nsize);
}

// The field names of a record schema are the keys of keyed.h's level, in order.
void checkFields(avro_schema_t record, keyed::Level level) {
  int n = 0;
  const keyed::Field* fields = keyed::fieldsOf(level, n);
  if (!is_avro_record(record) || avro_schema_record_size(record) != static_cast<size_t>(n)) {
    fail("avro-c: the schema's records are not the workload's");
  }
  for (int i = 0; i < n; ++i) {
    const char* name = avro_schema_record_field_name(record, i);
    if (name == nullptr || fields[i].key != name) {
      fail("avro-c: schema field " + std::to_string(i) + " is not " + std::string(fields[i].key));
    }
  }
  if (level == keyed::kRecord) {
    checkFields(avro_schema_record_field_get_by_index(record, 3), keyed::kHttp);
    checkFields(avro_schema_record_field_get_by_index(record, 4), keyed::kOrigin);
  }
}

// The schema of a case and its generic class, loaded once (and kept for the process).
avro_value_iface_t* classOf(bool batch) {
  static avro_value_iface_t* classes[2] = {nullptr, nullptr};
  avro_value_iface_t*& cls = classes[batch];
  if (cls != nullptr) return cls;
  static const bool allocator = [] {
    avro_set_allocator(&guardedAllocator, nullptr);
    return true;
  }();
  (void)allocator;
  std::string path = std::string(WB_SCHEMAS_DIR) + (batch ? "/logs.avsc" : "/log.avsc");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path + ": cannot open");
  std::string json((std::istreambuf_iterator<char>(in)), {});
  avro_schema_t schema;
  check(avro_schema_from_json_length(json.data(), json.size(), &schema), path.c_str());
  avro_schema_t log = schema;
  if (batch) {
    if (!is_avro_record(schema) || avro_schema_record_size(schema) != 1) {
      fail(path + ": not a record of one field");
    }
    avro_schema_t array = avro_schema_record_field_get_by_index(schema, 0);
    if (!is_avro_array(array)) fail(path + ": its field is not an array");
    log = avro_schema_array_items(array);
  }
  checkFields(log, keyed::kRecord);
  cls = avro_generic_class_from_schema(schema);
  if (cls == nullptr) avroFailed("avro_generic_class_from_schema");
  return cls;
}

avro_value_t field(avro_value_t& v, size_t index) {
  avro_value_t f;
  check(avro_value_get_by_index(&v, index, &f, nullptr), "get_by_index");
  return f;
}

void setInt(avro_value_t& v, size_t index, int32_t x) {
  avro_value_t f = field(v, index);
  check(avro_value_set_int(&f, x), "set_int");
}
void setLong(avro_value_t& v, size_t index, int64_t x) {
  avro_value_t f = field(v, index);
  check(avro_value_set_long(&f, x), "set_long");
}
void setString(avro_value_t& v, size_t index, const std::string& s) {
  avro_value_t f = field(v, index);
  check(avro_value_set_string_len(&f, s.c_str(), s.size() + 1), "set_string_len");  // its NUL
}

void fill(avro_value_t& m, const Log& r) {
  setLong(m, 0, r.timestamp);
  setInt(m, 1, static_cast<int32_t>(r.zoneId));
  setInt(m, 2, r.zonePlan);
  avro_value_t h = field(m, 3);
  setInt(h, 0, r.http.protocol);
  setInt(h, 1, r.http.status);
  setInt(h, 2, r.http.hostStatus);
  setInt(h, 3, r.http.upStatus);
  setInt(h, 4, r.http.method);
  setString(h, 5, r.http.contentType);
  setString(h, 6, r.http.userAgent);
  setString(h, 7, r.http.referer);
  setString(h, 8, r.http.requestUri);
  avro_value_t o = field(m, 4);
  setString(o, 0, r.origin.ip);
  setInt(o, 1, r.origin.port);
  setString(o, 2, r.origin.hostname);
  setInt(o, 3, r.origin.protocol);
  setInt(m, 5, r.country);
  setInt(m, 6, r.cacheStatus);
  setString(m, 7, r.serverIp);
  setString(m, 8, r.serverName);
  setString(m, 9, r.remoteIp);
  setLong(m, 10, static_cast<int64_t>(r.bytesDlv));
  setString(m, 11, r.rayId);
}

[[noreturn, gnu::cold, gnu::noinline]] void outOfRange(std::string_view key) {
  fail("avro-c: field " + std::string(key) + " out of range");
}

template <typename T>
T getInt(avro_value_t& v, size_t index, std::string_view key) {
  avro_value_t f = field(v, index);
  int32_t x = 0;
  check(avro_value_get_int(&f, &x), "get_int");
  if (x < 0 || static_cast<uint32_t>(x) > std::numeric_limits<T>::max()) outOfRange(key);
  return static_cast<T>(x);
}
int64_t getLong(avro_value_t& v, size_t index) {
  avro_value_t f = field(v, index);
  int64_t x = 0;
  check(avro_value_get_long(&f, &x), "get_long");
  return x;
}
std::string_view getString(avro_value_t& v, size_t index) {
  avro_value_t f = field(v, index);
  const char* s = nullptr;
  size_t size = 0;  // with the NUL
  check(avro_value_get_string(&f, &s, &size), "get_string");
  return size == 0 ? std::string_view() : std::string_view(s, size - 1);
}

// A record read through the generic value: its strings are the value's.
LogView view(avro_value_t& m) {
  avro_value_t h = field(m, 3);
  avro_value_t o = field(m, 4);
  LogView r;
  r.timestamp = getLong(m, 0);
  r.zoneId = getInt<uint32_t>(m, 1, "zoneId");
  r.zonePlan = getInt<uint8_t>(m, 2, "zonePlan");
  r.http.protocol = getInt<uint8_t>(h, 0, "http.protocol");
  r.http.status = getInt<uint16_t>(h, 1, "http.status");
  r.http.hostStatus = getInt<uint16_t>(h, 2, "http.hostStatus");
  r.http.upStatus = getInt<uint16_t>(h, 3, "http.upStatus");
  r.http.method = getInt<uint8_t>(h, 4, "http.method");
  r.http.contentType = getString(h, 5);
  r.http.userAgent = getString(h, 6);
  r.http.referer = getString(h, 7);
  r.http.requestUri = getString(h, 8);
  r.origin.ip = getString(o, 0);
  r.origin.port = getInt<uint16_t>(o, 1, "origin.port");
  r.origin.hostname = getString(o, 2);
  r.origin.protocol = getInt<uint8_t>(o, 3, "origin.protocol");
  r.country = getInt<uint8_t>(m, 5, "country");
  r.cacheStatus = getInt<uint8_t>(m, 6, "cacheStatus");
  r.serverIp = getString(m, 7);
  r.serverName = getString(m, 8);
  r.remoteIp = getString(m, 9);
  int64_t bytesDlv = getLong(m, 10);
  if (bytesDlv < 0) outOfRange("bytesDlv");
  r.bytesDlv = static_cast<uint64_t>(bytesDlv);
  r.rayId = getString(m, 11);
  return r;
}

// fn(each record of the message's value).
template <bool kBatch, typename Fn>
void forEachLog(avro_value_t& root, Fn&& fn) {
  if constexpr (kBatch) {
    avro_value_t logs = field(root, 0);
    size_t n = 0;
    check(avro_value_get_size(&logs, &n), "get_size");
    for (size_t i = 0; i < n; ++i) {
      avro_value_t r = field(logs, i);
      fn(r);
    }
  } else {
    fn(root);
  }
}

// A generic value of the case's schema, owned.
class Value {
 public:
  explicit Value(bool batch) { check(avro_generic_value_new(classOf(batch), &v_), "value_new"); }
  ~Value() { avro_value_decref(&v_); }
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;
  avro_value_t& get() { return v_; }

 private:
  avro_value_t v_;
};

template <bool kBatch>
class Avro {
 public:
  static constexpr bool kBuilds = true, kAccess = false;
  explicit Avro(const Variant& v)
      : v_(v),
        native_(std::make_unique<Value>(kBatch)),
        parsed_(kBatch),
        out_(v.reused),
        writer_(avro_writer_memory(nullptr, 0)),
        reader_(avro_reader_memory(nullptr, 0)) {
    if (writer_ == nullptr || reader_ == nullptr) avroFailed("memory reader and writer");
  }
  ~Avro() {
    avro_writer_free(writer_);
    avro_reader_free(reader_);
  }
  Avro(const Avro&) = delete;
  Avro& operator=(const Avro&) = delete;

  void populate(const Records& rs) {
    if (v_.reused) {
      check(avro_value_reset(&native_->get()), "reset");
    } else {
      native_ = std::make_unique<Value>(kBatch);
    }
    avro_value_t& root = native_->get();
    if constexpr (kBatch) {
      avro_value_t logs = field(root, 0);
      for (const Log& r : rs) {
        avro_value_t item;
        check(avro_value_append(&logs, &item, nullptr), "append");
        fill(item, r);
      }
    } else {
      fill(root, rs.front());
    }
  }

  Bytes serialize() {
    size_t size = 0;
    check(avro_value_sizeof(&native_->get(), &size), "sizeof");
    uint8_t* data = out_.prepare(size);
    avro_writer_memory_set_dest(writer_, reinterpret_cast<const char*>(data),
                                static_cast<int64_t>(size));
    check(avro_value_write(writer_, &native_->get()), "write");
    if (avro_writer_tell(writer_) != static_cast<int64_t>(size)) fail("avro-c: size changed");
    return out_.bytes();
  }

  uint64_t deserialize(Bytes b) {
    avro_reader_memory_set_source(reader_, reinterpret_cast<const char*>(b.data),
                                  static_cast<int64_t>(b.size));
    check(avro_value_read(reader_, &parsed_.get()), "read");
    char extra;
    if (avro_read(reader_, &extra, 1) == 0) fail("avro-c: bytes after the message");
    uint64_t sum = 0;
    forEachLog<kBatch>(parsed_.get(), [&](avro_value_t& r) { sum += fold(view(r)); });
    return sum;
  }

  Records populated() { return plain(native_->get()); }
  Records deserialized() { return plain(parsed_.get()); }

 private:
  static Records plain(avro_value_t& root) {
    Records rs;
    forEachLog<kBatch>(root, [&](avro_value_t& r) { rs.push_back(owned(view(r))); });
    return rs;
  }

  Variant v_;
  std::unique_ptr<Value> native_;
  Value parsed_;
  OutBuffer out_;
  avro_writer_t writer_;
  avro_reader_t reader_;
};

}  // namespace

std::unique_ptr<CodecCell> makeAvro(const Case& c, const Variant& v) {
  return makeCell<Avro>(c, v);
}

std::string avroVersion() { return WB_AVRO_VERSION; }

}  // namespace wb::codec
