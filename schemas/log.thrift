// wirebench codec cases "log" and "logs" (docs/workloads.md, codec) for Apache Thrift.
// Both cases live in this one file: Thrift's include makes a module per file in every
// generator, which the drivers would then have to import by two names.
// Fields are numbered in the JSON's order and all `required`, so that every generator
// writes every field (docs/workloads.md, codec: encodings). Thrift has no unsigned
// integers: each field takes the smallest signed type its values fit (enums 0..10 as
// i8, statuses and countries 0..520 as i16, the port 0..65535 and zoneId below 2^31 as
// i32).
namespace cpp wirebench.thrift_codec
namespace go wbthrift
namespace java wirebench.codec.thrift

struct Http {
  1: required i8 protocol
  2: required i16 status
  3: required i16 hostStatus
  4: required i16 upStatus
  5: required i8 method
  6: required string contentType
  7: required string userAgent
  8: required string referer
  9: required string requestUri
}

struct Origin {
  1: required string ip
  2: required i32 port
  3: required string hostname
  4: required i8 protocol
}

struct Log {
  1: required i64 timestamp
  2: required i32 zoneId
  3: required i8 zonePlan
  4: required Http http
  5: required Origin origin
  6: required i16 country
  7: required i8 cacheStatus
  8: required string serverIp
  9: required string serverName
  10: required string remoteIp
  11: required i64 bytesDlv
  12: required string rayId
}

struct Logs {
  1: required list<Log> logs
}
