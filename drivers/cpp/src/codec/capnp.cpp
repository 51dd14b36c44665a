// Cap'n Proto (schemas/log.capnp and logs.capnp): the native form is the builder.
// populate builds the message in field order in a MallocMessageBuilder whose first segment
// is a reused, zeroed scratch array (`reused`, as the rpc suite's reuse does) or is
// allocated by the builder (`fresh`, first segment of the same size, so that both write
// one segment and the same bytes). serialize writes the standard stream framing into the
// output buffer. deserialize reads with a FlatArrayMessageReader into the plain structs
// (`owned` copies, `borrowed` views into the input); access folds through the reader.
// Reads are bounds-checked as they happen (validation `lazy`); errors throw kj::Exception.
// Limits (src/decode_limits.h): the reader's traversal and nesting limits are set explicitly, and a
// list of more logs than the message has words is refused before anything is built for it.
// packing `packed`: serialize writes the packed framing (writePackedMessage) into the output
// buffer, sized for the worst case; deserialize and access read with a PackedMessageReader
// that unpacks into a kept scratch array of the builder's first segment's size.

#include <capnp/message.h>
#include <capnp/serialize-packed.h>
#include <capnp/serialize.h>
#include <kj/io.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "../common.h"
#include "../decode_limits.h"
#include "log.capnp.h"
#include "logs.capnp.h"
#include "loops.h"

namespace wb::codec {
namespace {

namespace cp = ::wirebench::capnproto::codec;
using capnp::word;

// The reader's limits, stated rather than left to the library's defaults.
capnp::ReaderOptions readerOptions() {
  capnp::ReaderOptions options;
  options.traversalLimitInWords = limits::kCapnpTraversalLimitWords;
  options.nestingLimit = limits::kCapnpNestingLimit;
  return options;
}

capnp::Text::Reader text(const std::string& s) { return capnp::Text::Reader(s.c_str(), s.size()); }

void fill(cp::Log::Builder m, const Log& r) {
  m.setTimestamp(r.timestamp);
  m.setZoneId(r.zoneId);
  m.setZonePlan(static_cast<cp::ZonePlan>(r.zonePlan));
  auto h = m.initHttp();
  h.setProtocol(static_cast<cp::HttpProtocol>(r.http.protocol));
  h.setStatus(r.http.status);
  h.setHostStatus(r.http.hostStatus);
  h.setUpStatus(r.http.upStatus);
  h.setMethod(static_cast<cp::Method>(r.http.method));
  h.setContentType(text(r.http.contentType));
  h.setUserAgent(text(r.http.userAgent));
  h.setReferer(text(r.http.referer));
  h.setRequestUri(text(r.http.requestUri));
  auto o = m.initOrigin();
  o.setIp(text(r.origin.ip));
  o.setPort(r.origin.port);
  o.setHostname(text(r.origin.hostname));
  o.setProtocol(static_cast<cp::OriginProtocol>(r.origin.protocol));
  m.setCountry(static_cast<cp::Country>(r.country));
  m.setCacheStatus(static_cast<cp::CacheStatus>(r.cacheStatus));
  m.setServerIp(text(r.serverIp));
  m.setServerName(text(r.serverName));
  m.setRemoteIp(text(r.remoteIp));
  m.setBytesDlv(r.bytesDlv);
  m.setRayId(text(r.rayId));
}

template <typename S>
S str(capnp::Text::Reader t) {
  return S(std::string_view(t.begin(), t.size()));
}

template <typename S>
LogT<S> read(cp::Log::Reader m) {
  auto h = m.getHttp();
  auto o = m.getOrigin();
  return LogT<S>{m.getTimestamp(),
                 m.getZoneId(),
                 static_cast<uint8_t>(m.getZonePlan()),
                 {static_cast<uint8_t>(h.getProtocol()), h.getStatus(), h.getHostStatus(),
                  h.getUpStatus(), static_cast<uint8_t>(h.getMethod()),
                  str<S>(h.getContentType()), str<S>(h.getUserAgent()), str<S>(h.getReferer()),
                  str<S>(h.getRequestUri())},
                 {str<S>(o.getIp()), o.getPort(), str<S>(o.getHostname()),
                  static_cast<uint8_t>(o.getProtocol())},
                 static_cast<uint8_t>(m.getCountry()),
                 static_cast<uint8_t>(m.getCacheStatus()),
                 str<S>(m.getServerIp()),
                 str<S>(m.getServerName()),
                 str<S>(m.getRemoteIp()),
                 m.getBytesDlv(),
                 str<S>(m.getRayId())};
}

uint64_t foldText(capnp::Text::Reader t) { return foldString(std::string_view(t.begin(), t.size())); }

// The fold read through the reader: no record is built.
uint64_t foldLog(cp::Log::Reader m) {
  auto h = m.getHttp();
  auto o = m.getOrigin();
  return static_cast<uint64_t>(m.getTimestamp()) + m.getZoneId() +
         static_cast<uint64_t>(m.getZonePlan()) + static_cast<uint64_t>(h.getProtocol()) +
         h.getStatus() + h.getHostStatus() + h.getUpStatus() +
         static_cast<uint64_t>(h.getMethod()) + o.getPort() +
         static_cast<uint64_t>(o.getProtocol()) + static_cast<uint64_t>(m.getCountry()) +
         static_cast<uint64_t>(m.getCacheStatus()) + m.getBytesDlv() +
         foldText(h.getContentType()) + foldText(h.getUserAgent()) + foldText(h.getReferer()) +
         foldText(h.getRequestUri()) + foldText(o.getIp()) + foldText(o.getHostname()) +
         foldText(m.getServerIp()) + foldText(m.getServerName()) + foldText(m.getRemoteIp()) +
         foldText(m.getRayId());
}

// Words of the first segment: enough for the whole message of each case.
template <bool kBatch>
constexpr size_t kSegmentWords = kBatch ? 128 * 1024 : 1024;

template <bool kBatch>
class Capnp {
  using Root = std::conditional_t<kBatch, cp::Logs, cp::Log>;

 public:
  static constexpr bool kBuilds = true, kAccess = true;
  explicit Capnp(const Variant& v) : v_(v), out_(v.reused) {
    if (v.reused) {
      scratch_ = static_cast<word*>(std::calloc(kSegmentWords<kBatch>, sizeof(word)));
      if (scratch_ == nullptr) fail("capnp: out of memory for the scratch space");
    }
    if (v.packed) unpacked_ = kj::heapArray<word>(kSegmentWords<kBatch>);
  }
  ~Capnp() noexcept {  // (clang: CellOf's destructor overrides a noexcept one)
    builder_.reset();  // zeroes what it used of the scratch space, which must outlive it
    std::free(scratch_);
  }
  Capnp(const Capnp&) = delete;
  Capnp& operator=(const Capnp&) = delete;

  void populate(const Records& rs) {
    builder_.reset();  // a builder over the scratch space zeroes it when it goes
    if (v_.reused) {
      builder_.emplace(kj::arrayPtr(scratch_, kSegmentWords<kBatch>));
    } else {
      builder_.emplace(kSegmentWords<kBatch>);
    }
    if constexpr (kBatch) {
      auto list = builder_->template initRoot<cp::Logs>().initLogs(static_cast<unsigned>(rs.size()));
      for (unsigned i = 0; i < rs.size(); ++i) fill(list[i], rs[i]);
    } else {
      fill(builder_->template initRoot<cp::Log>(), rs.front());
    }
  }

  Bytes serialize() {
    auto segments = builder_->getSegmentsForOutput();
    size_t words = capnp::computeSerializedSizeInWords(segments);
    if (v_.packed) {
      // Packing writes at most a tag and a run count beside a word's 8 bytes.
      size_t bound = words * (sizeof(word) + 2);
      kj::ArrayOutputStream stream(kj::arrayPtr(out_.prepare(bound), bound));
      capnp::writePackedMessage(stream, segments);
      return {out_.bytes().data, stream.getArray().size()};
    }
    size_t size = words * sizeof(word);
    kj::ArrayOutputStream stream(kj::arrayPtr(out_.prepare(size), size));
    capnp::writeMessage(stream, segments);
    return out_.bytes();
  }

  uint64_t deserialize(Bytes b) {
    return withRoot(b, [&](auto root) {
      return v_.borrowed ? copy(root, views_) : copy(root, owned_);
    });
  }

  uint64_t access(Bytes b) {
    return withRoot(b, [](auto root) {
      if constexpr (kBatch) {
        uint64_t sum = 0;
        for (cp::Log::Reader r : root.getLogs()) sum += foldLog(r);
        return sum;
      } else {
        return foldLog(root);
      }
    });
  }

  Records populated() { return plain(builder_->template getRoot<Root>().asReader()); }
  Records deserialized() const { return v_.borrowed ? owned(views_) : owned_; }

 private:
  // fn(the message's root reader), on a reader of `b` (in place, or unpacked into the
  // kept scratch when packed) that lives as long as the call.
  template <typename Fn>
  uint64_t withRoot(Bytes b, Fn&& fn) {
    if (v_.packed) {
      kj::ArrayInputStream in(kj::arrayPtr(b.data, b.size));
      capnp::PackedMessageReader reader(in, readerOptions(), unpacked_.asPtr());
      size_t words = 0;  // read every segment (they are read lazily) before the check below
      for (uint i = 0;; ++i) {
        kj::ArrayPtr<const word> s = static_cast<capnp::MessageReader&>(reader).getSegment(i);
        if (s == nullptr) break;
        words += s.size();
      }
      if (in.tryGetReadBuffer().size() != 0) fail("capnp: bytes after the packed message");
      return withRootOf(reader, words, fn);
    }
    if (b.size % sizeof(word) != 0) fail("capnp: the message is not a whole number of words");
    capnp::FlatArrayMessageReader reader(
        kj::arrayPtr(reinterpret_cast<const word*>(b.data), b.size / sizeof(word)),
        readerOptions());
    return withRootOf(reader, b.size / sizeof(word), fn);
  }

  template <typename Fn>
  static uint64_t withRootOf(capnp::MessageReader& reader, size_t words, Fn&& fn) {
    auto root = reader.getRoot<Root>();
    if constexpr (kBatch) {
      // A zero-sized element costs no bytes: without this a tiny message could make
      // deserialize build millions of records.
      size_t logs = root.getLogs().size();
      if (logs > words) {
        fail("capnp: corrupt message: a list of " + std::to_string(logs) +
             " logs in a message of " + std::to_string(words) + " words");
      }
    }
    return fn(root);
  }

  template <typename S>
  static uint64_t copy(typename Root::Reader root, std::vector<LogT<S>>& out) {
    std::vector<LogT<S>> rs;
    if constexpr (kBatch) {
      auto logs = root.getLogs();
      rs.reserve(logs.size());
      for (cp::Log::Reader r : logs) rs.push_back(read<S>(r));
    } else {
      rs.push_back(read<S>(root));
    }
    out = std::move(rs);
    return fold(out);
  }

  static Records plain(typename Root::Reader root) {
    std::vector<Log> rs;
    copy(root, rs);
    return rs;
  }

  Variant v_;
  word* scratch_ = nullptr;
  std::optional<capnp::MallocMessageBuilder> builder_;
  OutBuffer out_;
  kj::Array<word> unpacked_;  // packed: where reads unpack the message
  Records owned_;
  std::vector<LogView> views_;
};

}  // namespace

std::unique_ptr<CodecCell> makeCapnp(const Case& c, const Variant& v) {
  return makeCell<Capnp>(c, v);
}

}  // namespace wb::codec
