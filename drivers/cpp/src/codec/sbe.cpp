// SBE (Simple Binary Encoding, schemas/log.sbe.xml; C++ generated at build time by SBE's own
// tool, scripts/sbe-generate.sh, header-only): the plain structs are the native form
// (populate copies the records, like null). serialize sizes the message (the generated
// computeLength) and writes it with the generated encoders into the output buffer (reused
// or fresh): the message header, the fixed block, the var data in schema order (`logs`: the
// group's dimensions, then each entry's block and var data). deserialize decodes with the
// generated flyweight decoders into the plain structs (`owned` copies, `borrowed` views
// into the input: the var data accessors point into it); access folds through the
// flyweights, fields in schema order, var data in order. The generated code checks every
// position against the buffer's length as it reads (validation `lazy`); before that this
// file checks the message header (block length, template, schema id and version) and the
// group's block length, which the flyweights would otherwise trust for the fixed fields,
// and a message must be consumed exactly.

#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "wirebench_codec_sbe/Log.h"
#include "wirebench_codec_sbe/Logs.h"
#include "wirebench_codec_sbe/MessageHeader.h"

#include "../common.h"
#include "loops.h"

namespace wb::codec {
namespace {

namespace sb = ::wirebench::codec::sbe;
using Group = sb::Logs::Records;

constexpr uint64_t kHeader = sb::MessageHeader::encodedLength();

// The fixed block and the var data of one record, on a message (Log) or a group entry.
template <typename E>
void encode(E& e, const Log& r) {
  const auto& h = r.http;
  const auto& o = r.origin;
  e.timestamp(r.timestamp)
      .zoneId(r.zoneId)
      .zonePlan(r.zonePlan)
      .httpProtocol(h.protocol)
      .httpStatus(h.status)
      .httpHostStatus(h.hostStatus)
      .httpUpStatus(h.upStatus)
      .httpMethod(h.method)
      .originPort(o.port)
      .originProtocol(o.protocol)
      .country(r.country)
      .cacheStatus(r.cacheStatus)
      .bytesDlv(r.bytesDlv);
  e.putHttpContentType(h.contentType)
      .putHttpUserAgent(h.userAgent)
      .putHttpReferer(h.referer)
      .putHttpRequestUri(h.requestUri)
      .putOriginIp(o.ip)
      .putOriginHostname(o.hostname)
      .putServerIp(r.serverIp)
      .putServerName(r.serverName)
      .putRemoteIp(r.remoteIp)
      .putRayId(r.rayId);
}

size_t length(const Log& r) {
  return sb::Log::computeLength(r.http.contentType.size(), r.http.userAgent.size(),
                                r.http.referer.size(), r.http.requestUri.size(),
                                r.origin.ip.size(), r.origin.hostname.size(), r.serverIp.size(),
                                r.serverName.size(), r.remoteIp.size(), r.rayId.size());
}

// A record through a flyweight, the fields read in schema order: the var data advance the
// flyweight's position, so each is read once, in order.
template <typename S, typename D>
LogT<S> decode(D& d) {
  LogT<S> r;
  r.timestamp = d.timestamp();
  r.zoneId = d.zoneId();
  r.zonePlan = d.zonePlan();
  r.http.protocol = d.httpProtocol();
  r.http.status = d.httpStatus();
  r.http.hostStatus = d.httpHostStatus();
  r.http.upStatus = d.httpUpStatus();
  r.http.method = d.httpMethod();
  r.origin.port = d.originPort();
  r.origin.protocol = d.originProtocol();
  r.country = d.country();
  r.cacheStatus = d.cacheStatus();
  r.bytesDlv = d.bytesDlv();
  r.http.contentType = S(d.getHttpContentTypeAsStringView());
  r.http.userAgent = S(d.getHttpUserAgentAsStringView());
  r.http.referer = S(d.getHttpRefererAsStringView());
  r.http.requestUri = S(d.getHttpRequestUriAsStringView());
  r.origin.ip = S(d.getOriginIpAsStringView());
  r.origin.hostname = S(d.getOriginHostnameAsStringView());
  r.serverIp = S(d.getServerIpAsStringView());
  r.serverName = S(d.getServerNameAsStringView());
  r.remoteIp = S(d.getRemoteIpAsStringView());
  r.rayId = S(d.getRayIdAsStringView());
  return r;
}

// The fold through a flyweight: no record is built.
template <typename D>
uint64_t foldOf(D& d) {
  uint64_t sum = static_cast<uint64_t>(d.timestamp());
  sum += d.zoneId();
  sum += d.zonePlan();
  sum += d.httpProtocol();
  sum += d.httpStatus();
  sum += d.httpHostStatus();
  sum += d.httpUpStatus();
  sum += d.httpMethod();
  sum += d.originPort();
  sum += d.originProtocol();
  sum += d.country();
  sum += d.cacheStatus();
  sum += d.bytesDlv();
  sum += foldString(d.getHttpContentTypeAsStringView());
  sum += foldString(d.getHttpUserAgentAsStringView());
  sum += foldString(d.getHttpRefererAsStringView());
  sum += foldString(d.getHttpRequestUriAsStringView());
  sum += foldString(d.getOriginIpAsStringView());
  sum += foldString(d.getOriginHostnameAsStringView());
  sum += foldString(d.getServerIpAsStringView());
  sum += foldString(d.getServerNameAsStringView());
  sum += foldString(d.getRemoteIpAsStringView());
  sum += foldString(d.getRayIdAsStringView());
  return sum;
}

[[noreturn, gnu::cold, gnu::noinline]] void corrupt(const char* what) {
  fail(std::string("sbe: ") + what);
}

template <bool kBatch>
class Sbe {
  using Message = std::conditional_t<kBatch, sb::Logs, sb::Log>;

 public:
  static constexpr bool kBuilds = true, kAccess = true;
  explicit Sbe(const Variant& v) : v_(v), out_(v.reused) {}

  void populate(const Records& rs) {
    if (v_.reused) {
      native_ = rs;
    } else {
      native_ = Records(rs);
    }
  }

  Bytes serialize() {
    // A record's length (computeLength) is its block and var data: Log's whole body, or
    // one group entry after Logs's (empty) block and the group's dimensions.
    size_t size = kHeader + (kBatch ? Message::sbeBlockLength() + Group::sbeHeaderSize() : 0);
    for (const Log& r : native_) size += length(r);
    char* data = reinterpret_cast<char*>(out_.prepare(size));
    Message m;
    m.wrapAndApplyHeader(data, 0, size);
    if constexpr (kBatch) {
      Group& g = m.recordsCount(static_cast<uint16_t>(native_.size()));
      for (const Log& r : native_) encode(g.next(), r);
    } else {
      encode(m, native_.front());
    }
    if (kHeader + m.encodedLength() != size) fail("sbe: the message has the wrong length");
    return out_.bytes();
  }

  uint64_t deserialize(Bytes b) {
    return v_.borrowed ? read(b, views_) : read(b, owned_);
  }

  uint64_t access(Bytes b) {
    return withMessage(b, [](auto& m) {
      if constexpr (kBatch) {
        uint64_t sum = 0;
        Group& g = m.records();
        while (g.hasNext()) sum += foldOf(g.next());
        return sum;
      } else {
        return foldOf(m);
      }
    });
  }

  Records populated() const { return native_; }
  Records deserialized() const { return v_.borrowed ? owned(views_) : owned_; }

 private:
  // fn(the message's decoder) on `b`, after the header checks; then the message must have
  // been read to its end.
  template <typename Fn>
  static uint64_t withMessage(Bytes b, Fn&& fn) {
    char* data = const_cast<char*>(reinterpret_cast<const char*>(b.data));  // only read
    sb::MessageHeader header(data, 0, b.size, sb::MessageHeader::sbeSchemaVersion());
    if (header.blockLength() != Message::sbeBlockLength() ||
        header.templateId() != Message::sbeTemplateId() ||
        header.schemaId() != Message::sbeSchemaId() ||
        header.version() != Message::sbeSchemaVersion()) {
      corrupt("the message header is not the schema's");
    }
    Message m;
    m.wrapForDecode(data, kHeader, header.blockLength(), header.version(), b.size);
    if constexpr (kBatch) {
      sb::GroupSizeEncoding dimensions(data, m.sbePosition(), b.size, header.version());
      if (dimensions.blockLength() != Group::sbeBlockLength()) {
        corrupt("the group's block length is not the schema's");
      }
    }
    uint64_t result = fn(m);
    if (m.sbePosition() != b.size) corrupt("bytes after the message");
    return result;
  }

  template <typename S>
  static uint64_t read(Bytes b, std::vector<LogT<S>>& out) {
    std::vector<LogT<S>> rs;
    withMessage(b, [&](auto& m) {
      if constexpr (kBatch) {
        Group& g = m.records();
        rs.reserve(g.count());
        while (g.hasNext()) rs.push_back(decode<S>(g.next()));
      } else {
        rs.push_back(decode<S>(m));
      }
      return uint64_t{0};
    });
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

std::unique_ptr<CodecCell> makeSbe(const Case& c, const Variant& v) {
  return makeCell<Sbe>(c, v);
}

std::string sbeVersion() { return WB_SBE_VERSION; }

}  // namespace wb::codec
