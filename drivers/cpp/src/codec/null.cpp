// The codec suite with no serialization library: the plain structs are the native form,
// and the null format (docs/workloads.md, codec: encodings) is written and read by hand:
//   record = timestamp i64, zoneId u32, zonePlan u8, http.protocol u8, http.status u16,
//            http.hostStatus u16, http.upStatus u16, http.method u8, origin.port u16,
//            origin.protocol u8, country u8, cacheStatus u8, bytesDlv u64 (34 bytes,
//            little-endian, unaligned), then ten strings (u32 byte count, bytes):
//            http.contentType, userAgent, referer, requestUri, origin.ip, hostname,
//            serverIp, serverName, remoteIp, rayId
//   log    = record;  logs = u32 record count, then the records
// Reading is lazy (validation `lazy`): every length is bounds-checked as it is read, and a
// message must be consumed exactly.

#include <cstring>
#include <string>
#include <string_view>

#include "../common.h"
#include "loops.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the null format is read and written with memcpy on a little-endian host");

namespace wb::codec {
namespace {

constexpr size_t kFixed = 34;

template <typename T>
uint8_t* put(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
  return p + sizeof v;
}

uint8_t* putString(uint8_t* p, const std::string& s) {
  p = put(p, static_cast<uint32_t>(s.size()));
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

size_t recordSize(const Log& r) {
  return kFixed + 40 + r.http.contentType.size() + r.http.userAgent.size() +
         r.http.referer.size() + r.http.requestUri.size() + r.origin.ip.size() +
         r.origin.hostname.size() + r.serverIp.size() + r.serverName.size() +
         r.remoteIp.size() + r.rayId.size();
}

uint8_t* putRecord(uint8_t* p, const Log& r) {
  const auto& h = r.http;
  const auto& o = r.origin;
  p = put(p, r.timestamp);
  p = put(p, r.zoneId);
  p = put(p, r.zonePlan);
  p = put(p, h.protocol);
  p = put(p, h.status);
  p = put(p, h.hostStatus);
  p = put(p, h.upStatus);
  p = put(p, h.method);
  p = put(p, o.port);
  p = put(p, o.protocol);
  p = put(p, r.country);
  p = put(p, r.cacheStatus);
  p = put(p, r.bytesDlv);
  for (const std::string* s : {&h.contentType, &h.userAgent, &h.referer, &h.requestUri, &o.ip,
                               &o.hostname, &r.serverIp, &r.serverName, &r.remoteIp, &r.rayId}) {
    p = putString(p, *s);
  }
  return p;
}

[[noreturn, gnu::cold, gnu::noinline]] void truncated() { fail("null: truncated message"); }

// A bounds-checked cursor over a message.
class Reader {
 public:
  explicit Reader(Bytes b) : p_(b.data), end_(b.data + b.size) {}
  template <typename T>
  T get() {
    T v;
    if (static_cast<size_t>(end_ - p_) < sizeof v) truncated();
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return v;
  }
  std::string_view string() {
    uint32_t n = get<uint32_t>();
    if (static_cast<size_t>(end_ - p_) < n) truncated();
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  void end() const {
    if (p_ != end_) fail("null: bytes after the message");
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

template <typename S>
LogT<S> readRecord(Reader& in) {
  LogT<S> r;
  auto& h = r.http;
  auto& o = r.origin;
  r.timestamp = in.get<int64_t>();
  r.zoneId = in.get<uint32_t>();
  r.zonePlan = in.get<uint8_t>();
  h.protocol = in.get<uint8_t>();
  h.status = in.get<uint16_t>();
  h.hostStatus = in.get<uint16_t>();
  h.upStatus = in.get<uint16_t>();
  h.method = in.get<uint8_t>();
  o.port = in.get<uint16_t>();
  o.protocol = in.get<uint8_t>();
  r.country = in.get<uint8_t>();
  r.cacheStatus = in.get<uint8_t>();
  r.bytesDlv = in.get<uint64_t>();
  for (S* s : {&h.contentType, &h.userAgent, &h.referer, &h.requestUri, &o.ip, &o.hostname,
               &r.serverIp, &r.serverName, &r.remoteIp, &r.rayId}) {
    *s = S(in.string());
  }
  return r;
}

// The fold read straight from the bytes: no record is built.
uint64_t foldRecord(Reader& in) {
  // One read per statement: the reads advance the cursor, so their order matters.
  uint64_t sum = static_cast<uint64_t>(in.get<int64_t>());
  sum += in.get<uint32_t>();
  sum += in.get<uint8_t>();
  sum += in.get<uint8_t>();
  sum += in.get<uint16_t>();
  sum += in.get<uint16_t>();
  sum += in.get<uint16_t>();
  sum += in.get<uint8_t>();
  sum += in.get<uint16_t>();
  sum += in.get<uint8_t>();
  sum += in.get<uint8_t>();
  sum += in.get<uint8_t>();
  sum += in.get<uint64_t>();
  for (int i = 0; i < 10; ++i) sum += foldString(in.string());
  return sum;
}

template <bool kBatch>
class Null {
 public:
  static constexpr bool kBuilds = true, kAccess = true;
  explicit Null(const Variant& v) : v_(v), out_(v.reused) {}

  // The native form is the plain structs: reused copy-assigns into the kept records (their
  // strings keep their memory), fresh builds new ones.
  void populate(const Records& rs) {
    if (v_.reused) {
      native_ = rs;
    } else {
      native_ = Records(rs);
    }
  }

  Bytes serialize() {
    size_t size = kBatch ? 4 : 0;
    for (const Log& r : native_) size += recordSize(r);
    uint8_t* p = out_.prepare(size);
    if (kBatch) p = put(p, static_cast<uint32_t>(native_.size()));
    for (const Log& r : native_) p = putRecord(p, r);
    return out_.bytes();
  }

  uint64_t deserialize(Bytes b) {
    return v_.borrowed ? read(b, views_) : read(b, owned_);
  }

  uint64_t access(Bytes b) {
    Reader in(b);
    uint64_t sum = 0;
    for (uint32_t n = kBatch ? in.get<uint32_t>() : 1; n > 0; --n) sum += foldRecord(in);
    in.end();
    return sum;
  }

  Records populated() const { return native_; }
  Records deserialized() const { return v_.borrowed ? owned(views_) : owned_; }

 private:
  template <typename S>
  static uint64_t read(Bytes b, std::vector<LogT<S>>& out) {
    Reader in(b);
    uint32_t n = kBatch ? in.get<uint32_t>() : 1;
    std::vector<LogT<S>> rs;
    rs.reserve(std::min<size_t>(n, b.size / kFixed));  // a corrupt count reserves no more
    for (; n > 0; --n) rs.push_back(readRecord<S>(in));
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

std::unique_ptr<CodecCell> makeNull(const Case& c, const Variant& v) {
  return makeCell<Null>(c, v);
}

}  // namespace wb::codec
