// Protocol Buffers (proto3, schemas/log.proto and logs.proto): the native form is the
// generated message. Message reuse as protobuf's own performance advice has it: `reused`
// keeps one message and Clear()s it before populating (cleared sub-messages and strings
// keep their memory), and the parse side always reuses its message (ParseFromArray clears
// it first); `fresh` populates a new message every time. serialize sizes the message and
// writes it with the cached sizes into the output buffer (reused or fresh). Limits
// (src/decode_limits.h): ParseFromArray parses with protobuf's default recursion limit, which the
// constructor requires to be kProtobufRecursionLimit.

#include <memory>
#include <string>
#include <type_traits>

#include <google/protobuf/io/coded_stream.h>

#include "../common.h"
#include "../decode_limits.h"
#include "log.pb.h"
#include "logs.pb.h"
#include "loops.h"

namespace wb::codec {
namespace {

namespace pb = ::wirebench::codec;

void fill(pb::Log& m, const Log& r) {
  m.set_timestamp(r.timestamp);
  m.set_zone_id(r.zoneId);
  m.set_zone_plan(static_cast<pb::ZonePlan>(r.zonePlan));
  pb::Http& h = *m.mutable_http();
  h.set_protocol(static_cast<pb::HttpProtocol>(r.http.protocol));
  h.set_status(r.http.status);
  h.set_host_status(r.http.hostStatus);
  h.set_up_status(r.http.upStatus);
  h.set_method(static_cast<pb::Method>(r.http.method));
  h.set_content_type(r.http.contentType);
  h.set_user_agent(r.http.userAgent);
  h.set_referer(r.http.referer);
  h.set_request_uri(r.http.requestUri);
  pb::Origin& o = *m.mutable_origin();
  o.set_ip(r.origin.ip);
  o.set_port(r.origin.port);
  o.set_hostname(r.origin.hostname);
  o.set_protocol(static_cast<pb::OriginProtocol>(r.origin.protocol));
  m.set_country(static_cast<pb::Country>(r.country));
  m.set_cache_status(static_cast<pb::CacheStatus>(r.cacheStatus));
  m.set_server_ip(r.serverIp);
  m.set_server_name(r.serverName);
  m.set_remote_ip(r.remoteIp);
  m.set_bytes_dlv(r.bytesDlv);
  m.set_ray_id(r.rayId);
}

void fill(pb::Log& m, const Records& rs) { fill(m, rs.front()); }
void fill(pb::Logs& m, const Records& rs) {
  for (const Log& r : rs) fill(*m.add_logs(), r);
}

// A record read through the message: its strings are the message's. Protobuf has no
// 16-bit integers, so the u16 fields are uint32 on the wire and narrowed here.
LogView view(const pb::Log& m) {
  const pb::Http& h = m.http();
  const pb::Origin& o = m.origin();
  return LogView{m.timestamp(),
                 m.zone_id(),
                 static_cast<uint8_t>(m.zone_plan()),
                 {static_cast<uint8_t>(h.protocol()), static_cast<uint16_t>(h.status()),
                  static_cast<uint16_t>(h.host_status()), static_cast<uint16_t>(h.up_status()),
                  static_cast<uint8_t>(h.method()), h.content_type(), h.user_agent(),
                  h.referer(), h.request_uri()},
                 {o.ip(), static_cast<uint16_t>(o.port()), o.hostname(),
                  static_cast<uint8_t>(o.protocol())},
                 static_cast<uint8_t>(m.country()),
                 static_cast<uint8_t>(m.cache_status()),
                 m.server_ip(),
                 m.server_name(),
                 m.remote_ip(),
                 m.bytes_dlv(),
                 m.ray_id()};
}

uint64_t foldMessage(const pb::Log& m) { return fold(view(m)); }
uint64_t foldMessage(const pb::Logs& m) {
  uint64_t sum = 0;
  for (const pb::Log& r : m.logs()) sum += fold(view(r));
  return sum;
}

Records plain(const pb::Log& m) { return {owned(view(m))}; }
Records plain(const pb::Logs& m) {
  Records rs;
  for (const pb::Log& r : m.logs()) rs.push_back(owned(view(r)));
  return rs;
}

template <bool kBatch>
class Protobuf {
  using Message = std::conditional_t<kBatch, pb::Logs, pb::Log>;

 public:
  static constexpr bool kBuilds = true, kAccess = false;
  explicit Protobuf(const Variant& v)
      : v_(v), native_(std::make_unique<Message>()), out_(v.reused) {
    int limit = google::protobuf::io::CodedInputStream::GetDefaultRecursionLimit();
    if (limit != limits::kProtobufRecursionLimit) {
      fail("protobuf: the library's recursion limit is " + std::to_string(limit) + ", not " +
           std::to_string(limits::kProtobufRecursionLimit));
    }
  }

  void populate(const Records& rs) {
    if (v_.reused) {
      native_->Clear();
    } else {
      native_ = std::make_unique<Message>();
    }
    fill(*native_, rs);
  }

  Bytes serialize() {
    size_t size = native_->ByteSizeLong();
    native_->SerializeWithCachedSizesToArray(out_.prepare(size));
    return out_.bytes();
  }

  uint64_t deserialize(Bytes b) {
    if (!parsed_.ParseFromArray(b.data, static_cast<int>(b.size))) {
      fail("protobuf: cannot parse the message");
    }
    return foldMessage(parsed_);
  }

  Records populated() const { return plain(*native_); }
  Records deserialized() const { return plain(parsed_); }

 private:
  Variant v_;
  std::unique_ptr<Message> native_;
  Message parsed_;
  OutBuffer out_;
};

}  // namespace

std::unique_ptr<CodecCell> makeProtobuf(const Case& c, const Variant& v) {
  return makeCell<Protobuf>(c, v);
}

}  // namespace wb::codec
