// The codec workload in plain structs (docs/workloads.md, codec): the records of the cases
// `log` and `logs`, their fold, and the comparison the checks use. Every library converts
// from and to these; wirebench/codec_records.py is the same in Python.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb::codec {

// A record with strings of type S: std::string (owned) or std::string_view (borrowed:
// pointing into the bytes it was decoded from). Enums are held as their numbers.
template <typename S>
struct HttpT {
  uint8_t protocol = 0;
  uint16_t status = 0, hostStatus = 0, upStatus = 0;
  uint8_t method = 0;
  S contentType, userAgent, referer, requestUri;
};

template <typename S>
struct OriginT {
  S ip;
  uint16_t port = 0;
  S hostname;
  uint8_t protocol = 0;
};

template <typename S>
struct LogT {
  int64_t timestamp = 0;
  uint32_t zoneId = 0;
  uint8_t zonePlan = 0;
  HttpT<S> http;
  OriginT<S> origin;
  uint8_t country = 0, cacheStatus = 0;
  S serverIp, serverName, remoteIp;
  uint64_t bytesDlv = 0;
  S rayId;
};

using Log = LogT<std::string>;
using LogView = LogT<std::string_view>;
using Records = std::vector<Log>;

// The records of a case ("log": one, "logs": the batch of 1000), built fresh.
Records records(const std::string& kase);

// The fold of docs/workloads.md: a wrapping sum of the integers and, per string, its length
// and first and last byte.
inline uint64_t foldString(std::string_view s) {
  if (s.empty()) return 0;
  return s.size() + static_cast<unsigned char>(s.front()) + static_cast<unsigned char>(s.back());
}

template <typename S>
uint64_t fold(const LogT<S>& r) {
  const auto& h = r.http;
  const auto& o = r.origin;
  return static_cast<uint64_t>(r.timestamp) + r.zoneId + r.zonePlan + h.protocol + h.status +
         h.hostStatus + h.upStatus + h.method + o.port + o.protocol + r.country + r.cacheStatus +
         r.bytesDlv + foldString(h.contentType) + foldString(h.userAgent) +
         foldString(h.referer) + foldString(h.requestUri) + foldString(o.ip) +
         foldString(o.hostname) + foldString(r.serverIp) + foldString(r.serverName) +
         foldString(r.remoteIp) + foldString(r.rayId);
}

template <typename S>
uint64_t fold(const std::vector<LogT<S>>& rs) {
  uint64_t sum = 0;
  for (const auto& r : rs) sum += fold(r);
  return sum;
}

// An owned copy of a record of either kind.
template <typename S>
Log owned(const LogT<S>& r) {
  auto s = [](const S& v) { return std::string(v); };
  const auto& h = r.http;
  const auto& o = r.origin;
  return Log{r.timestamp,
             r.zoneId,
             r.zonePlan,
             {h.protocol, h.status, h.hostStatus, h.upStatus, h.method, s(h.contentType),
              s(h.userAgent), s(h.referer), s(h.requestUri)},
             {s(o.ip), o.port, s(o.hostname), o.protocol},
             r.country,
             r.cacheStatus,
             s(r.serverIp),
             s(r.serverName),
             s(r.remoteIp),
             r.bytesDlv,
             s(r.rayId)};
}

template <typename S>
Records owned(const std::vector<LogT<S>>& rs) {
  Records out;
  out.reserve(rs.size());
  for (const auto& r : rs) out.push_back(owned(r));
  return out;
}

// The first field in which `got` differs from `want` ("http.referer: ..."), or "" if none.
std::string difference(const Log& want, const Log& got);
// The first difference of two record lists ("record 17: http.referer: ..."), or "".
std::string difference(const Records& want, const Records& got);

// The canonical JSON of docs/workloads.md (codec: encodings): one record, or
// {"logs":[...]} for a batch. testdata/codec/{log,logs}.json hold it.
std::string canonicalJson(const Records& rs, bool batch);

}  // namespace wb::codec
