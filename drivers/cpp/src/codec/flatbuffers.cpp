// FlatBuffers (schemas/log.fbs and logs.fbs): the native form is the builder. populate
// builds the finished buffer in a FlatBufferBuilder kept and Clear()ed (`reused`) or made
// anew (`fresh`); serialize copies the finished bytes into the output buffer. deserialize
// runs the Verifier first (`validated`) or not (`unchecked`), then reads into the plain
// structs (`owned` copies, `borrowed` views into the input); access folds through the
// generated accessors, after the Verifier or without it.

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

// The generated code lives in the schemas' namespace wirebench::flatbuffers::codec, where
// this macro of base.h would name wirebench::flatbuffers::voffset_t (see CMakeLists.txt).
#undef FLATBUFFERS_VTABLE_UNDERLYING_TYPE
#define FLATBUFFERS_VTABLE_UNDERLYING_TYPE : ::flatbuffers::voffset_t
#include "log_generated.h"
#include "logs_generated.h"

#include "../common.h"
#include "loops.h"

namespace wb::codec {
namespace {

namespace fb = ::wirebench::flatbuffers::codec;
using ::flatbuffers::FlatBufferBuilder;
using ::flatbuffers::Offset;

Offset<fb::Log> build(FlatBufferBuilder& b, const Log& r) {
  auto s = [&](const std::string& v) { return b.CreateString(v); };
  const auto& h = r.http;
  const auto& o = r.origin;
  // Strings and sub-tables first: a table is built after everything it points to.
  auto contentType = s(h.contentType), userAgent = s(h.userAgent), referer = s(h.referer),
       requestUri = s(h.requestUri);
  auto http = fb::CreateHttp(b, static_cast<fb::HttpProtocol>(h.protocol), h.status,
                             h.hostStatus, h.upStatus, static_cast<fb::Method>(h.method),
                             contentType, userAgent, referer, requestUri);
  auto ip = s(o.ip), hostname = s(o.hostname);
  auto origin =
      fb::CreateOrigin(b, ip, o.port, hostname, static_cast<fb::OriginProtocol>(o.protocol));
  auto serverIp = s(r.serverIp), serverName = s(r.serverName), remoteIp = s(r.remoteIp),
       rayId = s(r.rayId);
  return fb::CreateLog(b, r.timestamp, r.zoneId, static_cast<fb::ZonePlan>(r.zonePlan), http,
                       origin, static_cast<fb::Country>(r.country),
                       static_cast<fb::CacheStatus>(r.cacheStatus), serverIp, serverName,
                       remoteIp, r.bytesDlv, rayId);
}

// An absent string reads as empty.
std::string_view view(const ::flatbuffers::String* s) {
  return s == nullptr ? std::string_view() : std::string_view(s->c_str(), s->size());
}

[[noreturn, gnu::cold, gnu::noinline]] void missing(const char* what) {
  fail(std::string("flatbuffers: missing ") + what);
}

template <typename S>
LogT<S> read(const fb::Log* m) {
  if (m == nullptr) missing("record");
  const fb::Http* h = m->http();
  const fb::Origin* o = m->origin();
  if (h == nullptr) missing("http");
  if (o == nullptr) missing("origin");
  return LogT<S>{m->timestamp(),
                 m->zone_id(),
                 static_cast<uint8_t>(m->zone_plan()),
                 {static_cast<uint8_t>(h->protocol()), h->status(), h->host_status(),
                  h->up_status(), static_cast<uint8_t>(h->method()), S(view(h->content_type())),
                  S(view(h->user_agent())), S(view(h->referer())), S(view(h->request_uri()))},
                 {S(view(o->ip())), o->port(), S(view(o->hostname())),
                  static_cast<uint8_t>(o->protocol())},
                 static_cast<uint8_t>(m->country()),
                 static_cast<uint8_t>(m->cache_status()),
                 S(view(m->server_ip())),
                 S(view(m->server_name())),
                 S(view(m->remote_ip())),
                 m->bytes_dlv(),
                 S(view(m->ray_id()))};
}

// The fold through the accessors: no record is built.
uint64_t foldLog(const fb::Log* m) {
  if (m == nullptr) missing("record");
  const fb::Http* h = m->http();
  const fb::Origin* o = m->origin();
  if (h == nullptr) missing("http");
  if (o == nullptr) missing("origin");
  return static_cast<uint64_t>(m->timestamp()) + m->zone_id() +
         static_cast<uint64_t>(m->zone_plan()) + static_cast<uint64_t>(h->protocol()) +
         h->status() + h->host_status() + h->up_status() + static_cast<uint64_t>(h->method()) +
         o->port() + static_cast<uint64_t>(o->protocol()) + static_cast<uint64_t>(m->country()) +
         static_cast<uint64_t>(m->cache_status()) + m->bytes_dlv() +
         foldString(view(h->content_type())) + foldString(view(h->user_agent())) +
         foldString(view(h->referer())) + foldString(view(h->request_uri())) +
         foldString(view(o->ip())) + foldString(view(o->hostname())) +
         foldString(view(m->server_ip())) + foldString(view(m->server_name())) +
         foldString(view(m->remote_ip())) + foldString(view(m->ray_id()));
}

template <bool kBatch>
class FlatBuffers {
 public:
  static constexpr bool kBuilds = true, kAccess = true;
  explicit FlatBuffers(const Variant& v)
      : v_(v), builder_(std::make_unique<FlatBufferBuilder>()), out_(v.reused) {}

  void populate(const Records& rs) {
    if (v_.reused) {
      builder_->Clear();
      offsets_.clear();
    } else {
      builder_ = std::make_unique<FlatBufferBuilder>();
      offsets_ = std::vector<Offset<fb::Log>>();
    }
    FlatBufferBuilder& b = *builder_;
    if constexpr (kBatch) {
      for (const Log& r : rs) offsets_.push_back(build(b, r));
      b.Finish(fb::CreateLogs(b, b.CreateVector(offsets_)));
    } else {
      b.Finish(build(b, rs.front()));
    }
  }

  Bytes serialize() {
    size_t size = builder_->GetSize();
    std::memcpy(out_.prepare(size), builder_->GetBufferPointer(), size);
    return out_.bytes();
  }

  uint64_t deserialize(Bytes b) {
    verify(b);
    return v_.borrowed ? copy(b, views_) : copy(b, owned_);
  }

  uint64_t access(Bytes b) {
    verify(b);
    if constexpr (kBatch) {
      uint64_t sum = 0;
      for (const fb::Log* r : *logs(b)) sum += foldLog(r);
      return sum;
    } else {
      return foldLog(fb::GetLog(b.data));
    }
  }

  Records populated() const {
    const uint8_t* p = builder_->GetBufferPointer();
    std::vector<Log> rs;
    copy({p, builder_->GetSize()}, rs);
    return rs;
  }
  Records deserialized() const { return v_.borrowed ? owned(views_) : owned_; }

 private:
  void verify(Bytes b) const {
    if (!v_.checked) return;
    ::flatbuffers::Verifier verifier(b.data, b.size);
    bool ok = kBatch ? fb::VerifyLogsBuffer(verifier) : fb::VerifyLogBuffer(verifier);
    if (!ok) fail("flatbuffers: the Verifier refuses the buffer");
  }

  static const ::flatbuffers::Vector<Offset<fb::Log>>* logs(Bytes b) {
    const auto* logs = fb::GetLogs(b.data)->logs();
    if (logs == nullptr) missing("logs");
    return logs;
  }

  template <typename S>
  static uint64_t copy(Bytes b, std::vector<LogT<S>>& out) {
    std::vector<LogT<S>> rs;
    if constexpr (kBatch) {
      const auto* list = logs(b);
      rs.reserve(list->size());
      for (const fb::Log* r : *list) rs.push_back(read<S>(r));
    } else {
      rs.push_back(read<S>(fb::GetLog(b.data)));
    }
    out = std::move(rs);
    return fold(out);
  }

  Variant v_;
  std::unique_ptr<FlatBufferBuilder> builder_;
  std::vector<Offset<fb::Log>> offsets_;  // the batch's records, kept with the builder
  OutBuffer out_;
  Records owned_;
  std::vector<LogView> views_;
};

}  // namespace

std::unique_ptr<CodecCell> makeFlatbuffers(const Case& c, const Variant& v) {
  return makeCell<FlatBuffers>(c, v);
}

std::string flatbuffersVersion() {
  return std::to_string(FLATBUFFERS_VERSION_MAJOR) + "." +
         std::to_string(FLATBUFFERS_VERSION_MINOR) + "." +
         std::to_string(FLATBUFFERS_VERSION_REVISION);
}

}  // namespace wb::codec
