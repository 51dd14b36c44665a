#include "records.h"

#include <cstdio>
#include <map>

#include "../common.h"
#include "../rng.h"

namespace wb::codec {
namespace {

const uint16_t kStatus[16] = {200, 200, 200, 200, 200, 200, 200, 200,
                              204, 206, 301, 304, 400, 404, 500, 503};
const char* const kContentTypes[8] = {
    "text/html", "text/html; charset=utf-8", "application/json", "text/css",
    "application/javascript", "image/png", "image/jpeg", "text/plain"};
const char kGoserAgent[] =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML,like Gecko) "
    "Chrome/33.0.1750.146 Safari/537.36";
const char* const kUserAgents[8] = {
    kGoserAgent,
    "curl/7.88.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
    "Googlebot/2.1 (+http://www.google.com/bot.html)",
    "python-requests/2.31.0",
    "Go-http-client/1.1",
    ""};
const char* const kColos[8] = {"LAX", "SJC", "AMS", "FRA", "LHR", "NRT", "SIN", "GRU"};

// The one record of case `log`: the reference's values.
Log goser() {
  return Log{25469139677502,
             123456,
             1,
             {2, 200, 503, 520, 1, "text/html", kGoserAgent, "https: //www.cloudflare.com/",
              "/cdn-cgi/trace"},
             {"1.2.3.4", 8000, "www.example.com", 2},
             238,
             3,
             "192.168.1.1",
             "metal.cloudflare.com",
             "10.1.2.3",
             123456,
             "10c73629cce30078-LAX"};
}

std::string letters(uint32_t n) {
  std::string s;
  for (uint32_t i = 0; i < n; ++i) s += static_cast<char>('a' + rand(26));
  return s;
}

std::string ip() {
  std::string s;
  for (int i = 0; i < 4; ++i) s += (i ? "." : "") + std::to_string(rand(256));
  return s;
}

uint64_t u64() {
  uint64_t hi = nextRand();
  return hi << 32 | nextRand();
}

// Record i of the batch; each statement draws in the order docs/workloads.md gives.
Log logRecord(uint64_t i) {
  Log r;
  r.timestamp = static_cast<int64_t>(25469139677502 + 1000 * i + rand(1000));
  uint32_t shift = 1 + rand(31);
  r.zoneId = nextRand() >> shift;
  r.zonePlan = static_cast<uint8_t>(rand(5));
  r.http.protocol = static_cast<uint8_t>(rand(3));
  r.http.status = kStatus[rand(16)];
  r.http.hostStatus = kStatus[rand(16)];
  r.http.upStatus = kStatus[rand(16)];
  r.http.method = static_cast<uint8_t>(rand(11));
  r.http.contentType = kContentTypes[rand(8)];
  r.http.userAgent = kUserAgents[rand(8)];
  r.http.referer = "https://" + letters(1 + rand(12)) + ".com/";
  r.http.referer += letters(rand(40));
  r.http.requestUri = "/" + letters(rand(80));
  r.origin.ip = ip();
  r.origin.port = static_cast<uint16_t>(rand(65536));
  r.origin.hostname = letters(1 + rand(16)) + ".example.com";
  r.origin.protocol = static_cast<uint8_t>(rand(3));
  r.country = static_cast<uint8_t>(rand(256));
  r.cacheStatus = static_cast<uint8_t>(rand(4));
  r.serverIp = ip();
  r.serverName = "metal" + std::to_string(rand(1000)) + ".cloudflare.com";
  r.remoteIp = ip();
  shift = 16 + rand(48);
  r.bytesDlv = u64() >> shift;
  char ray[17];
  std::snprintf(ray, sizeof ray, "%016llx", static_cast<unsigned long long>(u64()));
  r.rayId = std::string(ray) + "-" + kColos[rand(8)];
  return r;
}

template <typename T>
void diffField(std::string& out, const char* name, const T& want, const T& got) {
  if (!out.empty() || want == got) return;
  if constexpr (std::is_same_v<T, std::string>) {
    out = std::string(name) + ": expected \"" + want + "\", got \"" + got + "\"";
  } else {
    out = std::string(name) + ": expected " + std::to_string(want) + ", got " +
          std::to_string(got);
  }
}

void jsonString(std::string& out, const char* key, const std::string& v) {
  // Every string of the workload is printable ASCII without '"' or '\\': nothing to escape.
  out += '"';
  out += key;
  out += "\":\"";
  out += v;
  out += '"';
}

void jsonInt(std::string& out, const char* key, uint64_t v, bool negative = false) {
  out += '"';
  out += key;
  out += "\":";
  if (negative) out += '-';
  out += std::to_string(v);
}

void jsonRecord(std::string& o, const Log& r) {
  const auto& h = r.http;
  bool negative = r.timestamp < 0;
  o += '{';
  jsonInt(o, "timestamp", negative ? 0 - static_cast<uint64_t>(r.timestamp) : r.timestamp,
          negative);
  o += ',';
  jsonInt(o, "zoneId", r.zoneId);
  o += ',';
  jsonInt(o, "zonePlan", r.zonePlan);
  o += ",\"http\":{";
  jsonInt(o, "protocol", h.protocol);
  o += ',';
  jsonInt(o, "status", h.status);
  o += ',';
  jsonInt(o, "hostStatus", h.hostStatus);
  o += ',';
  jsonInt(o, "upStatus", h.upStatus);
  o += ',';
  jsonInt(o, "method", h.method);
  o += ',';
  jsonString(o, "contentType", h.contentType);
  o += ',';
  jsonString(o, "userAgent", h.userAgent);
  o += ',';
  jsonString(o, "referer", h.referer);
  o += ',';
  jsonString(o, "requestUri", h.requestUri);
  o += "},\"origin\":{";
  jsonString(o, "ip", r.origin.ip);
  o += ',';
  jsonInt(o, "port", r.origin.port);
  o += ',';
  jsonString(o, "hostname", r.origin.hostname);
  o += ',';
  jsonInt(o, "protocol", r.origin.protocol);
  o += "},";
  jsonInt(o, "country", r.country);
  o += ',';
  jsonInt(o, "cacheStatus", r.cacheStatus);
  o += ',';
  jsonString(o, "serverIp", r.serverIp);
  o += ',';
  jsonString(o, "serverName", r.serverName);
  o += ',';
  jsonString(o, "remoteIp", r.remoteIp);
  o += ',';
  jsonInt(o, "bytesDlv", r.bytesDlv);
  o += ',';
  jsonString(o, "rayId", r.rayId);
  o += '}';
}

}  // namespace

Records records(const std::string& kase) {
  if (kase == "log") return {goser()};
  // The size axis: the first records of the generator (docs/workloads.md).
  static const std::map<std::string, uint64_t> sizes = {
      {"logs1", 1}, {"logs10", 10}, {"logs100", 100}, {"logs", 1000}, {"logs10000", 10000}};
  auto n = sizes.find(kase);
  if (n == sizes.end()) fail("unknown codec case " + kase);
  resetRng();  // a fresh generator
  Records rs;
  for (uint64_t i = 0; i < n->second; ++i) rs.push_back(logRecord(i));
  return rs;
}

std::string difference(const Log& w, const Log& g) {
  std::string d;
  diffField(d, "timestamp", w.timestamp, g.timestamp);
  diffField(d, "zoneId", w.zoneId, g.zoneId);
  diffField(d, "zonePlan", w.zonePlan, g.zonePlan);
  diffField(d, "http.protocol", w.http.protocol, g.http.protocol);
  diffField(d, "http.status", w.http.status, g.http.status);
  diffField(d, "http.hostStatus", w.http.hostStatus, g.http.hostStatus);
  diffField(d, "http.upStatus", w.http.upStatus, g.http.upStatus);
  diffField(d, "http.method", w.http.method, g.http.method);
  diffField(d, "http.contentType", w.http.contentType, g.http.contentType);
  diffField(d, "http.userAgent", w.http.userAgent, g.http.userAgent);
  diffField(d, "http.referer", w.http.referer, g.http.referer);
  diffField(d, "http.requestUri", w.http.requestUri, g.http.requestUri);
  diffField(d, "origin.ip", w.origin.ip, g.origin.ip);
  diffField(d, "origin.port", w.origin.port, g.origin.port);
  diffField(d, "origin.hostname", w.origin.hostname, g.origin.hostname);
  diffField(d, "origin.protocol", w.origin.protocol, g.origin.protocol);
  diffField(d, "country", w.country, g.country);
  diffField(d, "cacheStatus", w.cacheStatus, g.cacheStatus);
  diffField(d, "serverIp", w.serverIp, g.serverIp);
  diffField(d, "serverName", w.serverName, g.serverName);
  diffField(d, "remoteIp", w.remoteIp, g.remoteIp);
  diffField(d, "bytesDlv", w.bytesDlv, g.bytesDlv);
  diffField(d, "rayId", w.rayId, g.rayId);
  return d;
}

std::string difference(const Records& want, const Records& got) {
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    std::string d = difference(want[i], got[i]);
    if (!d.empty()) return "record " + std::to_string(i) + ": " + d;
  }
  if (want.size() != got.size()) {
    return std::to_string(got.size()) + " records, expected " + std::to_string(want.size());
  }
  return "";
}

std::string canonicalJson(const Records& rs, bool batch) {
  std::string o;
  if (batch) o += "{\"logs\":[";
  for (size_t i = 0; i < rs.size(); ++i) {
    if (i) o += ',';
    jsonRecord(o, rs[i]);
  }
  if (batch) o += "]}";
  return o;
}

}  // namespace wb::codec
