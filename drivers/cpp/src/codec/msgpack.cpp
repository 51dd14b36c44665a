// msgpack-cxx: the plain structs are the native form (populate copies the records, like
// null); serialize packs maps with the JSON key names through a packer into an sbuffer,
// kept and cleared (`reused`) or made anew (`fresh`); msgpack-cxx packs every integer and
// string in its shortest form, as Python's msgpack.packb does. deserialize unpacks into
// msgpack objects (in a zone) and converts them to the plain structs: `owned` copies each
// string out of the zone; `borrowed` asks unpack to reference the strings in the input
// (its reference function) and keeps views of them.

#include <climits>  // before msgpack.hpp, which uses CHAR_MIN (clang does not pull it in)
#include <msgpack.hpp>

#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "../common.h"
#include "../decode_limits.h"
#include "loops.h"

namespace wb::codec {
namespace {

using Packer = msgpack::packer<msgpack::sbuffer>;

template <size_t N>
void key(Packer& pk, const char (&k)[N]) {
  pk.pack_str(N - 1);
  pk.pack_str_body(k, N - 1);
}

void str(Packer& pk, const std::string& s) {
  pk.pack_str(static_cast<uint32_t>(s.size()));
  pk.pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
}

void packRecord(Packer& pk, const Log& r) {
  const auto& h = r.http;
  const auto& o = r.origin;
  pk.pack_map(12);
  key(pk, "timestamp");
  pk.pack(r.timestamp);
  key(pk, "zoneId");
  pk.pack(r.zoneId);
  key(pk, "zonePlan");
  pk.pack(r.zonePlan);
  key(pk, "http");
  pk.pack_map(9);
  key(pk, "protocol");
  pk.pack(h.protocol);
  key(pk, "status");
  pk.pack(h.status);
  key(pk, "hostStatus");
  pk.pack(h.hostStatus);
  key(pk, "upStatus");
  pk.pack(h.upStatus);
  key(pk, "method");
  pk.pack(h.method);
  key(pk, "contentType");
  str(pk, h.contentType);
  key(pk, "userAgent");
  str(pk, h.userAgent);
  key(pk, "referer");
  str(pk, h.referer);
  key(pk, "requestUri");
  str(pk, h.requestUri);
  key(pk, "origin");
  pk.pack_map(4);
  key(pk, "ip");
  str(pk, o.ip);
  key(pk, "port");
  pk.pack(o.port);
  key(pk, "hostname");
  str(pk, o.hostname);
  key(pk, "protocol");
  pk.pack(o.protocol);
  key(pk, "country");
  pk.pack(r.country);
  key(pk, "cacheStatus");
  pk.pack(r.cacheStatus);
  key(pk, "serverIp");
  str(pk, r.serverIp);
  key(pk, "serverName");
  str(pk, r.serverName);
  key(pk, "remoteIp");
  str(pk, r.remoteIp);
  key(pk, "bytesDlv");
  pk.pack(r.bytesDlv);
  key(pk, "rayId");
  str(pk, r.rayId);
}

[[noreturn, gnu::cold, gnu::noinline]] void badField(std::string_view key) {
  fail("msgpack-cxx: missing or invalid field " + std::string(key));
}

// The fields of a map, found by key; keys in the expected order are found at once.
class Map {
 public:
  Map(const msgpack::object& o, std::string_view name) {
    if (o.type != msgpack::type::MAP) badField(name);
    kv_ = o.via.map.ptr;
    n_ = o.via.map.size;
  }
  const msgpack::object& get(std::string_view key) {
    for (uint32_t k = 0; k < n_; ++k, ++next_) {
      if (next_ >= n_) next_ = 0;
      const msgpack::object& name = kv_[next_].key;
      if (name.type == msgpack::type::STR && name.via.str.size == key.size() &&
          std::memcmp(name.via.str.ptr, key.data(), key.size()) == 0) {
        return kv_[next_++].val;
      }
    }
    badField(key);
  }
  Map map(std::string_view key) { return Map(get(key), key); }
  template <typename T>
  T number(std::string_view key) {
    const msgpack::object& v = get(key);
    if constexpr (std::is_signed_v<T>) {
      if (v.type == msgpack::type::POSITIVE_INTEGER &&
          v.via.u64 <= uint64_t{std::numeric_limits<int64_t>::max()}) {
        return static_cast<int64_t>(v.via.u64);
      }
      if (v.type != msgpack::type::NEGATIVE_INTEGER) badField(key);
      return v.via.i64;
    } else {
      if (v.type != msgpack::type::POSITIVE_INTEGER || v.via.u64 > std::numeric_limits<T>::max()) {
        badField(key);
      }
      return static_cast<T>(v.via.u64);
    }
  }
  template <typename S>
  S string(std::string_view key) {
    const msgpack::object& v = get(key);
    if (v.type != msgpack::type::STR) badField(key);
    return S(std::string_view(v.via.str.ptr, v.via.str.size));
  }

 private:
  const msgpack::object_kv* kv_;
  uint32_t n_, next_ = 0;
};

template <typename S>
LogT<S> readRecord(const msgpack::object& obj) {
  return readMap<S>(Map(obj, "record"));
}

// unpack's reference function for `borrowed`: strings stay in the input.
bool referenceStrings(msgpack::type::object_type type, std::size_t, void*) {
  return type == msgpack::type::STR;
}

template <bool kBatch>
class Msgpack {
 public:
  static constexpr bool kBuilds = true, kAccess = false;
  explicit Msgpack(const Variant& v) : v_(v), buffer_(std::make_unique<msgpack::sbuffer>()) {}

  void populate(const Records& rs) {
    if (v_.reused) {
      native_ = rs;
    } else {
      native_ = Records(rs);
    }
  }

  Bytes serialize() {
    if (v_.reused) {
      buffer_->clear();
    } else {
      buffer_ = std::make_unique<msgpack::sbuffer>();
    }
    Packer pk(*buffer_);
    if (kBatch) {
      pk.pack_map(1);
      key(pk, "logs");
      pk.pack_array(static_cast<uint32_t>(native_.size()));
    }
    for (const Log& r : native_) packRecord(pk, r);
    return {reinterpret_cast<const uint8_t*>(buffer_->data()), buffer_->size()};
  }

  uint64_t deserialize(Bytes b) {
    return v_.borrowed ? read(b, views_, &referenceStrings) : read(b, owned_, nullptr);
  }

  Records populated() const { return native_; }
  Records deserialized() const { return v_.borrowed ? owned(views_) : owned_; }

 private:
  template <typename S>
  uint64_t read(Bytes b, std::vector<LogT<S>>& out, msgpack::unpack_reference_func ref) {
    std::size_t offset = 0;
    // unpack allocates an array's or map's elements when it reads their count, so no count
    // may exceed the bytes that could hold them (each element takes at least one byte);
    // nesting as deep as limits::kMaxNestingDepth.
    const msgpack::unpack_limit limit(b.size, b.size / 2, b.size, b.size, b.size,
                                      limits::kMaxNestingDepth);
    handle_ = msgpack::unpack(reinterpret_cast<const char*>(b.data), b.size, offset, ref,
                              nullptr, limit);
    if (offset != b.size) fail("msgpack-cxx: bytes after the message");
    const msgpack::object& root = handle_.get();
    std::vector<LogT<S>> rs;
    if (kBatch) {
      const msgpack::object& logs = Map(root, "message").get("logs");
      if (logs.type != msgpack::type::ARRAY) badField("logs");
      rs.reserve(logs.via.array.size);
      for (uint32_t i = 0; i < logs.via.array.size; ++i) {
        rs.push_back(readRecord<S>(logs.via.array.ptr[i]));
      }
    } else {
      rs.push_back(readRecord<S>(root));
    }
    out = std::move(rs);
    return fold(out);
  }

  Variant v_;
  Records native_;
  std::unique_ptr<msgpack::sbuffer> buffer_;
  msgpack::object_handle handle_;  // the last unpacked message (its zone)
  Records owned_;
  std::vector<LogView> views_;
};

}  // namespace

std::unique_ptr<CodecCell> makeMsgpack(const Case& c, const Variant& v) {
  return makeCell<Msgpack>(c, v);
}

std::string msgpackVersion() { return msgpack_version(); }

}  // namespace wb::codec
