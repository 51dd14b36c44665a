// Apache Thrift (schemas/log.thrift, both cases; `thrift --gen cpp` at build time): the native
// form is the generated struct (Log, or Logs and its list). populate assigns the records into
// a kept struct (`reused`: its strings and list keep their memory) or a new one (`fresh`).
// serialize writes the struct with the generated write() through a TBinaryProtocolT
// (packing `unpacked`, the default cell) or a TCompactProtocolT (packing `compact`) over a
// TMemoryBuffer, kept and reset (`reused`, its memory kept) or made anew (`fresh`); the
// bytes are the buffer's own. deserialize points a kept TMemoryBuffer at the input (OBSERVE:
// no copy) and reads a struct with the generated read(), which copies the strings (owned
// only), checks that every required field came, and reads as it goes (validation
// `validated`: the whole input is parsed). Limits: the transport's message size is the
// input's, so that no count or length promises more than the bytes hold, and the protocol's
// string and container limits are the input's size too (Thrift checks them before it
// allocates); nesting is Thrift's recursion limit (64). The message must be consumed exactly.

#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "../common.h"
#include "log_types.h"
#include "loops.h"

namespace wb::codec {
namespace {

namespace th = ::wirebench::thrift_codec;
using apache::thrift::protocol::TBinaryProtocolT;
using apache::thrift::protocol::TCompactProtocolT;
using apache::thrift::transport::TMemoryBuffer;

void fill(th::Log& m, const Log& r) {
  m.timestamp = r.timestamp;
  m.zoneId = static_cast<int32_t>(r.zoneId);
  m.zonePlan = static_cast<int8_t>(r.zonePlan);
  m.http.protocol = static_cast<int8_t>(r.http.protocol);
  m.http.status = static_cast<int16_t>(r.http.status);
  m.http.hostStatus = static_cast<int16_t>(r.http.hostStatus);
  m.http.upStatus = static_cast<int16_t>(r.http.upStatus);
  m.http.method = static_cast<int8_t>(r.http.method);
  m.http.contentType = r.http.contentType;
  m.http.userAgent = r.http.userAgent;
  m.http.referer = r.http.referer;
  m.http.requestUri = r.http.requestUri;
  m.origin.ip = r.origin.ip;
  m.origin.port = r.origin.port;
  m.origin.hostname = r.origin.hostname;
  m.origin.protocol = static_cast<int8_t>(r.origin.protocol);
  m.country = r.country;
  m.cacheStatus = static_cast<int8_t>(r.cacheStatus);
  m.serverIp = r.serverIp;
  m.serverName = r.serverName;
  m.remoteIp = r.remoteIp;
  m.bytesDlv = static_cast<int64_t>(r.bytesDlv);
  m.rayId = r.rayId;
}

void fill(th::Log& m, const Records& rs) { fill(m, rs.front()); }
void fill(th::Logs& m, const Records& rs) {
  m.logs.resize(rs.size());
  for (size_t i = 0; i < rs.size(); ++i) fill(m.logs[i], rs[i]);
}

[[noreturn, gnu::cold, gnu::noinline]] void outOfRange(const char* field) {
  fail(std::string("thrift: field ") + field + " out of range");
}

// A signed Thrift integer into the record's unsigned field.
template <typename T, typename V>
T narrow(V v, const char* field) {
  if (v < 0 || static_cast<std::make_unsigned_t<V>>(v) > std::numeric_limits<T>::max()) {
    outOfRange(field);
  }
  return static_cast<T>(v);
}

// A record read through the struct: its strings are the struct's.
LogView view(const th::Log& m) {
  const th::Http& h = m.http;
  const th::Origin& o = m.origin;
  return LogView{m.timestamp,
                 narrow<uint32_t>(m.zoneId, "zoneId"),
                 narrow<uint8_t>(m.zonePlan, "zonePlan"),
                 {narrow<uint8_t>(h.protocol, "http.protocol"),
                  narrow<uint16_t>(h.status, "http.status"),
                  narrow<uint16_t>(h.hostStatus, "http.hostStatus"),
                  narrow<uint16_t>(h.upStatus, "http.upStatus"),
                  narrow<uint8_t>(h.method, "http.method"), h.contentType, h.userAgent,
                  h.referer, h.requestUri},
                 {o.ip, narrow<uint16_t>(o.port, "origin.port"), o.hostname,
                  narrow<uint8_t>(o.protocol, "origin.protocol")},
                 narrow<uint8_t>(m.country, "country"),
                 narrow<uint8_t>(m.cacheStatus, "cacheStatus"),
                 m.serverIp,
                 m.serverName,
                 m.remoteIp,
                 narrow<uint64_t>(m.bytesDlv, "bytesDlv"),
                 m.rayId};
}

uint64_t foldMessage(const th::Log& m) { return fold(view(m)); }
uint64_t foldMessage(const th::Logs& m) {
  uint64_t sum = 0;
  for (const th::Log& r : m.logs) sum += fold(view(r));
  return sum;
}

Records plain(const th::Log& m) { return {owned(view(m))}; }
Records plain(const th::Logs& m) {
  Records rs;
  rs.reserve(m.logs.size());
  for (const th::Log& r : m.logs) rs.push_back(owned(view(r)));
  return rs;
}

// TCompactProtocolT takes its limits only when it is constructed; this one sets them per
// message, as TBinaryProtocolT can.
class CompactProtocol : public TCompactProtocolT<TMemoryBuffer> {
 public:
  using TCompactProtocolT::TCompactProtocolT;
  void setStringSizeLimit(int32_t n) { string_limit_ = n; }
  void setContainerSizeLimit(int32_t n) { container_limit_ = n; }
};

// A protocol over a memory buffer: the binary protocol, or the compact one.
template <bool kCompact>
using Protocol = std::conditional_t<kCompact, CompactProtocol, TBinaryProtocolT<TMemoryBuffer>>;

template <bool kBatch, bool kCompact>
class ThriftOf {
  using Message = std::conditional_t<kBatch, th::Logs, th::Log>;

 public:
  static constexpr bool kBuilds = true, kAccess = false;
  explicit ThriftOf(const Variant& v)
      : v_(v),
        native_(std::make_unique<Message>()),
        out_(std::make_shared<TMemoryBuffer>()),
        outProtocol_(std::make_unique<Protocol<kCompact>>(out_)),
        in_(std::make_shared<TMemoryBuffer>()),
        inProtocol_(std::make_unique<Protocol<kCompact>>(in_)) {}

  void populate(const Records& rs) {
    if (!v_.reused) native_ = std::make_unique<Message>();
    fill(*native_, rs);
  }

  Bytes serialize() {
    if (v_.reused) {
      out_->resetBuffer();
    } else {
      out_ = std::make_shared<TMemoryBuffer>();
      outProtocol_ = std::make_unique<Protocol<kCompact>>(out_);
    }
    native_->write(outProtocol_.get());
    uint8_t* data;
    uint32_t size;
    out_->getBuffer(&data, &size);
    return {data, size};
  }

  uint64_t deserialize(Bytes b) {
    if (b.size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      fail("thrift: the message is too large");
    }
    const auto size = static_cast<int32_t>(b.size);
    in_->resetBuffer(const_cast<uint8_t*>(b.data), static_cast<uint32_t>(size),
                     TMemoryBuffer::OBSERVE);
    in_->readEnd();                      // the message size counted afresh ...
    in_->updateKnownMessageSize(size);   // ... as the input's
    inProtocol_->setStringSizeLimit(std::max(size, 1));
    inProtocol_->setContainerSizeLimit(std::max(size, 1));
    parsed_.read(inProtocol_.get());
    if (in_->available_read() != 0) fail("thrift: bytes after the message");
    return foldMessage(parsed_);
  }

  Records populated() const { return plain(*native_); }
  Records deserialized() const { return plain(parsed_); }

 private:
  Variant v_;
  std::unique_ptr<Message> native_;
  std::shared_ptr<TMemoryBuffer> out_;
  std::unique_ptr<Protocol<kCompact>> outProtocol_;
  std::shared_ptr<TMemoryBuffer> in_;
  std::unique_ptr<Protocol<kCompact>> inProtocol_;
  Message parsed_;
};

template <bool kBatch>
using Binary = ThriftOf<kBatch, false>;
template <bool kBatch>
using Compact = ThriftOf<kBatch, true>;

}  // namespace

std::unique_ptr<CodecCell> makeThrift(const Case& c, const Variant& v) {
  return v.compact ? makeCell<Compact>(c, v) : makeCell<Binary>(c, v);
}

std::string thriftVersion() { return PACKAGE_VERSION; }

}  // namespace wb::codec
