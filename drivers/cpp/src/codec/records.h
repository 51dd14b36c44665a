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

// The records of a case ("log": one; "logs": the batch of 1000; logs1 to logs10000: the
// size axis, the generator's first records), built fresh.
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

// A record read from a map-shaped encoding (a JSON object, a MessagePack map), field by
// field in the canonical order (which On-Demand parsing needs). `M` is a library's view of
// one map: `M map(key)` (a nested map), `number<T>(key)`, `string<S>(key)`; each throws or
// fails on a missing or mistyped field.
template <typename S, typename M>
LogT<S> readMap(M o) {
  LogT<S> r;
  r.timestamp = o.template number<int64_t>("timestamp");
  r.zoneId = o.template number<uint32_t>("zoneId");
  r.zonePlan = o.template number<uint8_t>("zonePlan");
  M h = o.map("http");
  r.http.protocol = h.template number<uint8_t>("protocol");
  r.http.status = h.template number<uint16_t>("status");
  r.http.hostStatus = h.template number<uint16_t>("hostStatus");
  r.http.upStatus = h.template number<uint16_t>("upStatus");
  r.http.method = h.template number<uint8_t>("method");
  r.http.contentType = h.template string<S>("contentType");
  r.http.userAgent = h.template string<S>("userAgent");
  r.http.referer = h.template string<S>("referer");
  r.http.requestUri = h.template string<S>("requestUri");
  M g = o.map("origin");
  r.origin.ip = g.template string<S>("ip");
  r.origin.port = g.template number<uint16_t>("port");
  r.origin.hostname = g.template string<S>("hostname");
  r.origin.protocol = g.template number<uint8_t>("protocol");
  r.country = o.template number<uint8_t>("country");
  r.cacheStatus = o.template number<uint8_t>("cacheStatus");
  r.serverIp = o.template string<S>("serverIp");
  r.serverName = o.template string<S>("serverName");
  r.remoteIp = o.template string<S>("remoteIp");
  r.bytesDlv = o.template number<uint64_t>("bytesDlv");
  r.rayId = o.template string<S>("rayId");
  return r;
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
