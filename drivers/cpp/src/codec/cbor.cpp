// libcbor (CBOR, RFC 8949): the plain structs are the native form (populate copies the
// records, like null). serialize writes the core deterministic encoding with libcbor's
// encoders (cbor_encode_map_start, cbor_encode_string_start, cbor_encode_uint, ...: definite
// lengths, integers in their shortest form) into the output buffer (reused or fresh), the
// keys in the order docs/workloads.md gives (shorter first, then bytewise), each string's
// bytes copied after its header. deserialize uses libcbor's streaming decoder
// (cbor_stream_decode, one item per call, no allocation: the fast path, where cbor_load
// would build a tree of allocated items first) and reads the items into the plain structs,
// the fields found by key in any order (keyed.h): `owned` copies the strings, `borrowed`
// keeps views of them in the input (the decoder hands out pointers into it). Definite
// lengths only; every item is bounds-checked by the decoder as it is read (validation
// `validated`: the whole input is parsed), a message must be consumed exactly, and nesting
// is the schema's (no recursion on the input's say).

#include <cbor.h>

#include <cstring>
#include <string>
#include <string_view>

#include "../common.h"
#include "keyed.h"
#include "loops.h"

namespace wb::codec {
namespace {

constexpr const char* kLib = "libcbor";

[[noreturn, gnu::cold, gnu::noinline]] void full() { fail("libcbor: output buffer too small"); }

// An encoder over a buffer sized beforehand (bound() below).
class Writer {
 public:
  Writer(uint8_t* p, size_t size) : p_(p), end_(p + size) {}
  void uint(uint64_t v) { advance(cbor_encode_uint(v, p_, room())); }
  void integer(int64_t v) {
    if (v >= 0) {
      uint(static_cast<uint64_t>(v));
    } else {
      advance(cbor_encode_negint(static_cast<uint64_t>(-1 - v), p_, room()));
    }
  }
  void map(size_t n) { advance(cbor_encode_map_start(n, p_, room())); }
  void array(size_t n) { advance(cbor_encode_array_start(n, p_, room())); }
  void string(std::string_view s) {
    advance(cbor_encode_string_start(s.size(), p_, room()));
    if (s.size() > room()) full();
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  template <size_t N>
  void key(const char (&k)[N]) {
    string(std::string_view(k, N - 1));
  }
  uint8_t* position() const { return p_; }

 private:
  size_t room() const { return static_cast<size_t>(end_ - p_); }
  void advance(size_t n) {
    if (n == 0) full();
    p_ += n;
  }
  uint8_t* p_;
  uint8_t* end_;
};

// The keys in the deterministic order (docs/workloads.md, codec: encodings).
void writeRecord(Writer& w, const Log& r) {
  const auto& h = r.http;
  const auto& o = r.origin;
  w.map(12);
  w.key("http");
  w.map(9);
  w.key("method");
  w.uint(h.method);
  w.key("status");
  w.uint(h.status);
  w.key("referer");
  w.string(h.referer);
  w.key("protocol");
  w.uint(h.protocol);
  w.key("upStatus");
  w.uint(h.upStatus);
  w.key("userAgent");
  w.string(h.userAgent);
  w.key("hostStatus");
  w.uint(h.hostStatus);
  w.key("requestUri");
  w.string(h.requestUri);
  w.key("contentType");
  w.string(h.contentType);
  w.key("rayId");
  w.string(r.rayId);
  w.key("origin");
  w.map(4);
  w.key("ip");
  w.string(o.ip);
  w.key("port");
  w.uint(o.port);
  w.key("hostname");
  w.string(o.hostname);
  w.key("protocol");
  w.uint(o.protocol);
  w.key("zoneId");
  w.uint(r.zoneId);
  w.key("country");
  w.uint(r.country);
  w.key("bytesDlv");
  w.uint(r.bytesDlv);
  w.key("remoteIp");
  w.string(r.remoteIp);
  w.key("serverIp");
  w.string(r.serverIp);
  w.key("zonePlan");
  w.uint(r.zonePlan);
  w.key("timestamp");
  w.integer(r.timestamp);
  w.key("serverName");
  w.string(r.serverName);
  w.key("cacheStatus");
  w.uint(r.cacheStatus);
}

// At most the bytes of one record: its keys (under 256 bytes with their headers), 15
// integers of at most 9 bytes, 3 map and 10 string headers of at most 9, and the strings.
size_t bound(const Log& r) {
  return 600 + r.http.contentType.size() + r.http.userAgent.size() + r.http.referer.size() +
         r.http.requestUri.size() + r.origin.ip.size() + r.origin.hostname.size() +
         r.serverIp.size() + r.serverName.size() + r.remoteIp.size() + r.rayId.size();
}

// One item of the input, as the streaming decoder's callbacks report it.
struct Item {
  enum Type : uint8_t { none, uint, negint, string, map, array, other } type = none;
  uint64_t value = 0;  // the integer, or the map's pairs, the array's items
  const uint8_t* data = nullptr;
  size_t size = 0;
};

Item& itemOf(void* context) { return *static_cast<Item*>(context); }
void onUint8(void* c, uint8_t v) { itemOf(c) = {Item::uint, v}; }
void onUint16(void* c, uint16_t v) { itemOf(c) = {Item::uint, v}; }
void onUint32(void* c, uint32_t v) { itemOf(c) = {Item::uint, v}; }
void onUint64(void* c, uint64_t v) { itemOf(c) = {Item::uint, v}; }
void onNegint8(void* c, uint8_t v) { itemOf(c) = {Item::negint, v}; }
void onNegint16(void* c, uint16_t v) { itemOf(c) = {Item::negint, v}; }
void onNegint32(void* c, uint32_t v) { itemOf(c) = {Item::negint, v}; }
void onNegint64(void* c, uint64_t v) { itemOf(c) = {Item::negint, v}; }
void onString(void* c, cbor_data data, size_t size) {
  itemOf(c) = {Item::string, 0, data, size};
}
void onMap(void* c, size_t n) { itemOf(c) = {Item::map, n}; }
void onArray(void* c, size_t n) { itemOf(c) = {Item::array, n}; }
// Anything else (byte strings, indefinite lengths, tags, floats, simple values).
void onOther(void* c) { itemOf(c).type = Item::other; }
void onOtherData(void* c, cbor_data, size_t) { itemOf(c).type = Item::other; }
void onOtherInt(void* c, uint64_t) { itemOf(c).type = Item::other; }
void onOtherFloat(void* c, float) { itemOf(c).type = Item::other; }
void onOtherDouble(void* c, double) { itemOf(c).type = Item::other; }
void onOtherBool(void* c, bool) { itemOf(c).type = Item::other; }

const cbor_callbacks kCallbacks = [] {
  cbor_callbacks cb{};
  cb.uint8 = onUint8;
  cb.uint16 = onUint16;
  cb.uint32 = onUint32;
  cb.uint64 = onUint64;
  cb.negint8 = onNegint8;
  cb.negint16 = onNegint16;
  cb.negint32 = onNegint32;
  cb.negint64 = onNegint64;
  cb.string = onString;
  cb.map_start = onMap;
  cb.array_start = onArray;
  cb.byte_string_start = onOther;
  cb.byte_string = onOtherData;
  cb.string_start = onOther;
  cb.indef_array_start = onOther;
  cb.indef_map_start = onOther;
  cb.tag = onOtherInt;
  cb.float2 = onOtherFloat;
  cb.float4 = onOtherFloat;
  cb.float8 = onOtherDouble;
  cb.undefined = onOther;
  cb.null = onOther;
  cb.boolean = onOtherBool;
  cb.indef_break = onOther;
  return cb;
}();

// The input as a sequence of items, one cbor_stream_decode call each.
class Reader {
 public:
  explicit Reader(Bytes b) : p_(b.data), end_(b.data + b.size) {}
  Item next() {
    Item item;
    cbor_decoder_result r =
        cbor_stream_decode(p_, static_cast<size_t>(end_ - p_), &kCallbacks, &item);
    if (r.status != CBOR_DECODER_FINISHED) {
      fail(r.status == CBOR_DECODER_NEDATA ? "libcbor: truncated message"
                                           : "libcbor: malformed item");
    }
    p_ += r.read;
    return item;
  }
  Item next(Item::Type want, const char* what) {
    Item item = next();
    if (item.type != want) fail(std::string("libcbor: ") + what + " has the wrong type");
    return item;
  }
  void end() const {
    if (p_ != end_) fail("libcbor: bytes after the message");
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

std::string_view text(const Item& item) {
  return std::string_view(reinterpret_cast<const char*>(item.data), item.size);
}

template <typename S>
void readMap(Reader& in, keyed::Level level, LogT<S>& r) {
  uint64_t n = in.next(Item::map, "a record or nested map").value;
  keyed::Map m(kLib, level);
  for (; n > 0; --n) {
    int index = m.find(text(in.next(Item::string, "a key")));
    std::string_view key = m.key(index);
    switch (m.kind(index)) {
      case keyed::Kind::integer: {
        Item v = in.next();
        if (v.type != Item::uint && v.type != Item::negint) {
          fail("libcbor: field " + std::string(key) + " is not an integer");
        }
        keyed::setInt(kLib, r, level, index, key, {v.type == Item::negint, v.value});
        break;
      }
      case keyed::Kind::string:
        keyed::stringField(kLib, r, level, index, key) = S(text(in.next(Item::string, "a string")));
        break;
      case keyed::Kind::map:
        readMap(in, index == 3 ? keyed::kHttp : keyed::kOrigin, r);
        break;
    }
  }
  m.end();
}

template <bool kBatch>
class Cbor {
 public:
  static constexpr bool kBuilds = true, kAccess = false;
  explicit Cbor(const Variant& v) : v_(v), out_(v.reused) {}

  void populate(const Records& rs) {
    if (v_.reused) {
      native_ = rs;
    } else {
      native_ = Records(rs);
    }
  }

  Bytes serialize() {
    size_t size = kBatch ? 16 : 0;
    for (const Log& r : native_) size += bound(r);
    uint8_t* start = out_.prepare(size);
    Writer w(start, size);
    if (kBatch) {
      w.map(1);
      w.key("logs");
      w.array(native_.size());
    }
    for (const Log& r : native_) writeRecord(w, r);
    return {start, static_cast<size_t>(w.position() - start)};
  }

  uint64_t deserialize(Bytes b) {
    return v_.borrowed ? read(b, views_) : read(b, owned_);
  }

  Records populated() const { return native_; }
  Records deserialized() const { return v_.borrowed ? owned(views_) : owned_; }

 private:
  template <typename S>
  static uint64_t read(Bytes b, std::vector<LogT<S>>& out) {
    Reader in(b);
    std::vector<LogT<S>> rs;
    if (kBatch) {
      uint64_t pairs = in.next(Item::map, "the message").value;
      if (pairs != 1 || text(in.next(Item::string, "a key")) != "logs") {
        fail("libcbor: the message is not {\"logs\": [...]}");
      }
      uint64_t n = in.next(Item::array, "logs").value;
      rs.reserve(std::min<uint64_t>(n, b.size / 64));  // a corrupt count reserves no more
      for (; n > 0; --n) readMap(in, keyed::kRecord, rs.emplace_back());
    } else {
      readMap(in, keyed::kRecord, rs.emplace_back());
    }
    in.end();
    out = std::move(rs);
    return fold(out);
  }

  Variant v_;
  Records native_;
  OutBuffer out_;
  Records owned_;
  std::vector<LogView> views_;
};

}  // namespace

std::unique_ptr<CodecCell> makeCbor(const Case& c, const Variant& v) {
  return makeCell<Cbor>(c, v);
}

std::string cborVersion() {
  return std::to_string(CBOR_MAJOR_VERSION) + "." + std::to_string(CBOR_MINOR_VERSION) + "." +
         std::to_string(CBOR_PATCH_VERSION);
}

}  // namespace wb::codec
