// The rpc suite on Cap'n Proto, doing per iteration the work of the reference programs
// (capnproto-common.h and capnproto-{carsales,catrank,eval}.c++ of the Cap'n Proto
// repository):
//  - reuse: builders are MallocMessageBuilders whose first segment is a reused, zeroed
//    128 Ki-word scratch array, and readers get a scratch array too; no-reuse uses default
//    MallocMessageBuilders and readers without scratch.
//  - bytes: messages go through a reused 1 MiB byte buffer (in both reuse modes, as in the
//    reference), read back with FlatArrayMessageReader or PackedMessageReader.
//  - pipe: kj fd streams, writeMessage/writePackedMessage, InputStreamMessageReader or
//    PackedMessageReader over a BufferedInputStreamWrapper. Bytes are counted at the fd
//    (every byte written plus every byte read), which equals the reference's
//    client + server throughput.
//  - limits (src/decode_limits.h): a frame's segment table is read first and a frame over
//    kMaxFrameBytes refused, naming its length, before anything is allocated for it; every
//    reader has the traversal and nesting limits set explicitly (readerOptions()); a list
//    longer than its message has words is refused before the server builds anything for it.

#include <capnp/message.h>
#include <capnp/serialize-packed.h>
#include <capnp/serialize.h>
#include <kj/io.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "../common.h"
#include "../decode_limits.h"
#include "carsales.capnp.h"
#include "cases.h"
#include "catrank.capnp.h"
#include "eval.capnp.h"
#include "loops.h"

namespace wb::rpc {
namespace {

using capnp::word;
using kj::byte;

// Every reader's limits, stated rather than left to the library's defaults.
capnp::ReaderOptions readerOptions() {
  capnp::ReaderOptions options;
  options.traversalLimitInWords = limits::kCapnpTraversalLimitWords;
  options.nestingLimit = limits::kCapnpNestingLimit;
  return options;
}

// A list read from a message cannot have more elements than the message has words (a
// zero-sized element costs no bytes, so without this a tiny frame could make the server
// allocate for millions of elements).
void checkListSize(size_t size, size_t words, const char* what) {
  if (size > words) {
    fail(std::string("capnp: corrupt message: a list of ") + std::to_string(size) + " " + what +
         " in a message of " + std::to_string(words) + " words");
  }
}

// Messages this process built (object and bytes modes) have no such bound to check.
constexpr size_t kOwnMessage = SIZE_MAX;

// ---- cases -----------------------------------------------------------------------------

namespace cs = wirebench::capnproto::carsales;
namespace cr = wirebench::capnproto::catrank;
namespace ev = wirebench::capnproto::eval;

template <typename CarReaderOrBuilder>
uint64_t carValue(CarReaderOrBuilder car) {
  cases::CarFacts f;
  f.seats = car.getSeats();
  f.doors = car.getDoors();
  f.wheelSum = 0;
  for (auto wheel : car.getWheels()) {
    f.wheelSum += cases::wheelValue(wheel.getDiameter(), wheel.getSnowTires());
  }
  f.length = car.getLength();
  f.width = car.getWidth();
  f.height = car.getHeight();
  auto engine = car.getEngine();
  f.horsepower = engine.getHorsepower();
  f.usesGas = engine.getUsesGas();
  f.usesElectric = engine.getUsesElectric();
  f.powerWindows = car.getHasPowerWindows();
  f.powerSteering = car.getHasPowerSteering();
  f.cruiseControl = car.getHasCruiseControl();
  f.navSystem = car.getHasNavSystem();
  f.cupHolders = car.getCupHolders();
  return cases::carValue(f);
}

struct CarSales {
  using Request = cs::ParkingLot;
  using Response = cs::TotalValue;
  using Expectation = uint64_t;

  static void randomCar(cs::Car::Builder car) {
    car.setMake(cases::kMakes[rand(5)]);
    car.setModel(cases::kModels[rand(6)]);
    car.setColor(static_cast<cs::Color>(rand(cases::kColors)));
    car.setSeats(static_cast<uint8_t>(2 + rand(6)));
    car.setDoors(static_cast<uint8_t>(2 + rand(3)));
    for (auto wheel : car.initWheels(4)) {
      wheel.setDiameter(static_cast<uint16_t>(25 + rand(15)));
      wheel.setAirPressure(static_cast<float>(30 + randDouble(20)));
      wheel.setSnowTires(rand(16) == 0);
    }
    uint32_t length = 170 + rand(150), width = 48 + rand(36), height = 54 + rand(48);
    car.setLength(static_cast<uint16_t>(length));
    car.setWidth(static_cast<uint16_t>(width));
    car.setHeight(static_cast<uint16_t>(height));
    car.setWeight(length * width * height / 200);
    auto engine = car.initEngine();
    engine.setHorsepower(static_cast<uint16_t>(100 * rand(400)));
    engine.setCylinders(static_cast<uint8_t>(4 + 2 * rand(3)));
    engine.setCc(800 + rand(10000));
    engine.setUsesGas(true);
    engine.setUsesElectric(rand(2) != 0);
    float capacity = static_cast<float>(10.0 + randDouble(30.0));
    car.setFuelCapacity(capacity);
    car.setFuelLevel(static_cast<float>(randDouble(capacity)));
    car.setHasPowerWindows(rand(2) != 0);
    car.setHasPowerSteering(rand(2) != 0);
    car.setHasCruiseControl(rand(2) != 0);
    car.setCupHolders(static_cast<uint8_t>(rand(12)));
    car.setHasNavSystem(rand(2) != 0);
  }

  static Expectation setup(Request::Builder request) {
    uint64_t total = 0;
    for (auto car : request.initCars(rand(200))) {
      randomCar(car);
      total += carValue(car);
    }
    return total;
  }

  static void handle(Request::Reader request, Response::Builder response, size_t words) {
    auto cars = request.getCars();
    checkListSize(cars.size(), words, "cars");
    uint64_t total = 0;
    for (auto car : cars) total += carValue(car);
    response.setAmount(total);
  }

  static uint64_t answer(Response::Reader response) { return response.getAmount(); }
  static uint64_t term(Expectation e) { return e; }
};

struct CatRank {
  using Request = cr::SearchResultList;
  using Response = cr::SearchResultList;
  using Expectation = int64_t;

  static Expectation setup(Request::Builder request) {
    static std::string snippet;  // reused across requests, as in the reference
    uint32_t count = rand(1000);
    int64_t good = 0;
    auto list = request.initResults(count);
    for (uint32_t i = 0; i < count; ++i) {
      auto result = list[i];
      result.setScore(1000 - static_cast<int>(i));
      uint32_t letters = rand(100);
      auto url = result.initUrl(static_cast<unsigned>(cases::kUrlPrefixLen + letters));
      char* p = url.begin();
      std::memcpy(p, cases::kUrlPrefix, cases::kUrlPrefixLen);
      p += cases::kUrlPrefixLen;
      for (uint32_t j = 0; j < letters; ++j) *p++ = static_cast<char>('a' + rand(26));
      snippet.clear();
      good += cases::appendSnippet(snippet);
      result.setSnippet(capnp::Text::Reader(snippet.data(), snippet.size()));
    }
    return good;
  }

  struct Scored {
    double score;
    cr::SearchResult::Reader result;
  };

  static void handle(Request::Reader request, Response::Builder response, size_t words) {
    auto results = request.getResults();
    checkListSize(results.size(), words, "results");
    std::vector<Scored> scored;
    for (auto result : results) {
      auto snippet = result.getSnippet();
      scored.push_back({cases::rescore(result.getScore(), snippet.cStr()),
                        result});
    }
    std::sort(scored.begin(), scored.end(),
              [](const Scored& a, const Scored& b) { return a.score > b.score; });
    auto list = response.initResults(static_cast<unsigned>(scored.size()));
    unsigned i = 0;
    for (auto& s : scored) {
      auto out = list[i++];
      out.setScore(s.score);
      out.setUrl(s.result.getUrl());
      out.setSnippet(s.result.getSnippet());
    }
  }

  static int64_t answer(Response::Reader response) {
    return cases::leadingGood(response.getResults(), [](auto r) { return r.getScore(); });
  }
  static uint64_t term(Expectation e) { return static_cast<uint64_t>(e); }
};

struct Eval {
  using Request = ev::Expression;
  using Response = ev::EvaluationResult;
  using Expectation = int32_t;

  static int32_t make(ev::Expression::Builder exp, uint32_t depth) {
    uint32_t op = rand(cases::kOps);
    exp.setOp(static_cast<ev::Operation>(op));
    int32_t left, right;
    if (rand(8) < depth) {
      left = static_cast<int32_t>(rand(128) + 1);
      exp.getLeft().setValue(left);
    } else {
      left = make(exp.getLeft().initExpression(), depth + 1);
    }
    if (rand(8) < depth) {
      right = static_cast<int32_t>(rand(128) + 1);
      exp.getRight().setValue(right);
    } else {
      right = make(exp.getRight().initExpression(), depth + 1);
    }
    return cases::apply(op, left, right);
  }

  static int32_t evaluate(ev::Expression::Reader exp) {
    int32_t left = 0, right = 0;
    auto l = exp.getLeft();
    switch (l.which()) {
      case ev::Expression::Left::VALUE: left = l.getValue(); break;
      case ev::Expression::Left::EXPRESSION: left = evaluate(l.getExpression()); break;
    }
    auto r = exp.getRight();
    switch (r.which()) {
      case ev::Expression::Right::VALUE: right = r.getValue(); break;
      case ev::Expression::Right::EXPRESSION: right = evaluate(r.getExpression()); break;
    }
    auto op = static_cast<uint32_t>(exp.getOp());
    if (op >= cases::kOps) fail("eval: unknown operation " + std::to_string(op));
    return cases::apply(op, left, right);
  }

  static Expectation setup(Request::Builder request) { return make(request, 0); }
  static void handle(Request::Reader request, Response::Builder response, size_t) {
    response.setValue(evaluate(request));
  }
  static int32_t answer(Response::Reader response) { return response.getValue(); }
  static uint64_t term(Expectation e) { return cases::evalTerm(e); }
};

// ---- resources -------------------------------------------------------------------------

constexpr size_t kScratchWords = 128 * 1024;

// Zeroed memory for a builder's first segment (MallocMessageBuilder requires zeros and
// re-zeroes what it used) or for a reader's segments. calloc, like the reference's static
// arrays, leaves untouched pages unmapped.
class Scratch {
 public:
  Scratch() : words_(static_cast<word*>(std::calloc(kScratchWords, sizeof(word)))) {
    if (words_ == nullptr) throw std::bad_alloc();
  }
  ~Scratch() { std::free(words_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  kj::ArrayPtr<word> words() { return kj::arrayPtr(words_, kScratchWords); }
  kj::ArrayPtr<byte> bytes() {
    return kj::arrayPtr(reinterpret_cast<byte*>(words_), kScratchWords * sizeof(word));
  }

 private:
  word* words_;
};

template <bool kReuse>
struct Builder;
template <>
struct Builder<true> : capnp::MallocMessageBuilder {
  explicit Builder(Scratch& s) : capnp::MallocMessageBuilder(s.words()) {}
};
template <>
struct Builder<false> : capnp::MallocMessageBuilder {
  explicit Builder(Scratch&) {}
};

template <bool kReuse>
kj::ArrayPtr<word> readerScratch(Scratch& s) {
  if constexpr (kReuse) {
    return s.words();
  } else {
    return nullptr;
  }
}

// An fd input stream that counts every byte read and can tell a clean end of file at a
// message boundary (by reading ahead at most one word, which the next read returns first).
class CountingInput : public kj::InputStream {
 public:
  explicit CountingInput(int fd) : inner_(fd) {}

  size_t tryRead(void* buffer, size_t minBytes, size_t maxBytes) override {
    size_t n = 0;
    if (aheadPos_ < aheadLen_) {
      n = std::min(maxBytes, aheadLen_ - aheadPos_);
      std::memcpy(buffer, ahead_ + aheadPos_, n);
      aheadPos_ += n;
      if (n >= minBytes) return n;
    }
    size_t m = inner_.tryRead(static_cast<byte*>(buffer) + n, minBytes - n, maxBytes - n);
    count += m;
    return n + m;
  }

  bool atCleanEnd() {
    if (aheadPos_ < aheadLen_) return false;
    aheadPos_ = 0;
    aheadLen_ = inner_.tryRead(ahead_, 1, sizeof(ahead_));
    count += aheadLen_;
    return aheadLen_ == 0;
  }

  uint64_t count = 0;

 private:
  kj::FdInputStream inner_;
  byte ahead_[sizeof(word)];
  size_t aheadPos_ = 0, aheadLen_ = 0;
};

class CountingOutput : public kj::OutputStream {
 public:
  explicit CountingOutput(int fd) : inner_(fd) {}
  void write(const void* buffer, size_t size) override {
    inner_.write(buffer, size);
    count += size;
  }
  void write(kj::ArrayPtr<const kj::ArrayPtr<const byte>> pieces) override {
    inner_.write(pieces);
    for (auto& piece : pieces) count += piece.size();
  }
  uint64_t count = 0;

 private:
  kj::FdOutputStream inner_;
};

// The stream a message reader reads one frame from: it reads the frame's segment table
// ahead, with the same reads InputStreamMessageReader makes (so that a packed stream, which
// must be read in the sizes it was written in, sees them unchanged), refuses a frame over
// kMaxFrameBytes naming its length, then hands the table and the rest of the frame on.
class FrameCheck : public kj::InputStream {
 public:
  static constexpr size_t kMaxSegments = 512;  // InputStreamMessageReader refuses more

  explicit FrameCheck(kj::InputStream& inner) : inner_(inner) {
    inner_.read(table_, 8);
    uint64_t segments = uint64_t{load(0)} + 1;  // the first word holds the count minus one
    if (segments >= kMaxSegments) {
      fail("capnp: corrupt frame: " + std::to_string(segments) + " segments (at most " +
           std::to_string(kMaxSegments - 1) + ")");
    }
    size_t more = (segments & ~uint64_t{1}) * 4;  // the other sizes and the padding
    if (more > 0) inner_.read(table_ + 8, more);
    tableBytes_ = 8 + more;
    words_ = tableBytes_ / sizeof(word);
    for (uint64_t i = 0; i < segments; ++i) words_ += load(4 + 4 * i);
    if (words_ * sizeof(word) > limits::kMaxFrameBytes) {
      fail("capnp: frame of " + std::to_string(words_ * sizeof(word)) +
           " bytes refused: over the limit of " + std::to_string(limits::kMaxFrameBytes) +
           " bytes");
    }
  }

  uint64_t words() const { return words_; }  // the whole frame's, segment table included

  size_t tryRead(void* buffer, size_t minBytes, size_t maxBytes) override {
    size_t n = 0;
    if (pos_ < tableBytes_) {
      n = std::min(maxBytes, tableBytes_ - pos_);
      std::memcpy(buffer, table_ + pos_, n);
      pos_ += n;
      if (n >= minBytes) return n;
    }
    return n + inner_.tryRead(static_cast<byte*>(buffer) + n, minBytes - n, maxBytes - n);
  }

  void skip(size_t bytes) override {
    size_t n = std::min(bytes, tableBytes_ - pos_);
    pos_ += n;
    if (bytes > n) inner_.skip(bytes - n);
  }

 private:
  uint32_t load(size_t offset) const {
    uint32_t v;
    std::memcpy(&v, table_ + offset, sizeof v);
    return v;  // little-endian on the wire; the driver builds for little-endian hosts only
  }

  kj::InputStream& inner_;
  byte table_[kMaxSegments * 4];
  size_t tableBytes_ = 0, pos_ = 0;
  uint64_t words_ = 0;
};

// The reading side of a pipe: unpacked messages are read straight from the fd stream (as
// the reference does); packed ones through a BufferedInputStreamWrapper.
template <bool kPacked>
struct PipeInput {
  explicit PipeInput(int fd) : raw(fd), buffered(raw) {}
  CountingInput raw;
  kj::BufferedInputStreamWrapper buffered;
  bool atCleanEnd() {
    if constexpr (kPacked) {
      return buffered.tryGetReadBuffer().size() == 0;
    } else {
      return raw.atCleanEnd();
    }
  }
};

// A pipe in the capnp framing (the standard stream framing, or packed), counted at the fds.
template <bool kPacked>
struct Conn {
  Conn(int inFd, int outFd) : in(inFd), out(outFd) {}
  // kj's streams may throw from their destructors; CellOf's holds a Conn and overrides
  // RpcCell's noexcept destructor (clang refuses the looser specification).
  ~Conn() noexcept {}
  uint64_t bytesRead() const { return in.raw.count; }
  uint64_t bytesWritten() const { return out.count; }
  PipeInput<kPacked> in;
  CountingOutput out;
};

template <bool kPacked>
void writeTo(kj::OutputStream& out, capnp::MessageBuilder& builder) {
  if constexpr (kPacked) {
    capnp::writePackedMessage(out, builder);
  } else {
    capnp::writeMessage(out, builder);
  }
}

// Calls fn(reader, words) with a reader of the next message on the pipe and the frame's
// size in words, once FrameCheck has accepted its length. Packed: what PackedMessageReader
// is (an InputStreamMessageReader over a PackedInputStream), with the check between them.
template <bool kPacked, typename Fn>
void readFrom(PipeInput<kPacked>& in, kj::ArrayPtr<word> scratch, Fn&& fn) {
  if constexpr (kPacked) {
    capnp::_::PackedInputStream unpacked(in.buffered);
    FrameCheck frame(unpacked);
    capnp::InputStreamMessageReader reader(frame, readerOptions(), scratch);
    fn(reader, frame.words());
  } else {
    FrameCheck frame(in.raw);
    capnp::InputStreamMessageReader reader(frame, readerOptions(), scratch);
    fn(reader, frame.words());
  }
}

// Calls fn(reader) with a reader of the message serialized in `bytes`.
template <bool kPacked, typename Fn>
void readArray(kj::ArrayPtr<byte> bytes, kj::ArrayPtr<word> scratch, Fn&& fn) {
  if constexpr (kPacked) {
    kj::ArrayInputStream input(bytes);
    capnp::PackedMessageReader reader(input, readerOptions(), scratch);
    fn(reader);
  } else {
    (void)scratch;
    capnp::FlatArrayMessageReader reader(kj::arrayPtr(
        reinterpret_cast<const word*>(bytes.begin()), bytes.size() / sizeof(word)), readerOptions());
    fn(reader);
  }
}

// ---- the library's work ----------------------------------------------------------------

template <typename Case, bool kPacked, bool kReuse>
class Capnp {
  using Request = typename Case::Request;
  using Response = typename Case::Response;
  using Expectation = typename Case::Expectation;
  using B = Builder<kReuse>;

 public:
  using Conn = rpc::Conn<kPacked>;

  Exchange object() {
    B requestMessage(s1_);
    auto request = requestMessage.template initRoot<Request>();
    Expectation expected = Case::setup(request);
    B responseMessage(s2_);
    auto response = responseMessage.template initRoot<Response>();
    Case::handle(request.asReader(), response, kOwnMessage);
    return {Case::term(expected), Case::term(Case::answer(response.asReader())), 0};
  }

  Exchange bytes() {
    // s1..s6 play the reference's six scratch spaces: client request, request bytes, server
    // request, server response, response bytes, client response.
    Exchange e;
    B requestBuilder(s1_);
    e.expected = Case::term(Case::setup(requestBuilder.template initRoot<Request>()));
    kj::ArrayOutputStream requestOut(s2_.bytes());
    writeTo<kPacked>(requestOut, requestBuilder);
    e.bytes = requestOut.getArray().size();

    readArray<kPacked>(requestOut.getArray(), readerScratch<kReuse>(s3_),
                       [&](capnp::MessageReader& requestReader) {
      B responseBuilder(s4_);
      Case::handle(requestReader.getRoot<Request>(),
                   responseBuilder.template initRoot<Response>(), kOwnMessage);
      kj::ArrayOutputStream responseOut(s5_.bytes());
      writeTo<kPacked>(responseOut, responseBuilder);
      e.bytes += responseOut.getArray().size();
      readArray<kPacked>(responseOut.getArray(), readerScratch<kReuse>(s6_),
                         [&](capnp::MessageReader& responseReader) {
        e.answer = Case::term(Case::answer(responseReader.getRoot<Response>()));
      });
    });
    return e;
  }

  template <typename Expect>
  void send(Conn& conn, Expect&& expect) {
    B builder(s1_);
    expect(Case::term(Case::setup(builder.template initRoot<Request>())));
    writeTo<kPacked>(conn.out, builder);
  }

  bool receive(Conn& conn, uint64_t& answer, bool endOk) {
    if (endOk && conn.in.atCleanEnd()) return false;
    readFrom<kPacked>(conn.in, readerScratch<kReuse>(s2_),
                      [&](capnp::MessageReader& reader, uint64_t) {
      answer = Case::term(Case::answer(reader.getRoot<Response>()));
    });
    return true;
  }

  bool serveOne(Conn& conn) {
    if (conn.in.atCleanEnd()) return false;
    B builder(s1_);
    readFrom<kPacked>(conn.in, readerScratch<kReuse>(s2_),
                      [&](capnp::MessageReader& reader, uint64_t words) {
      Case::handle(reader.getRoot<Request>(), builder.template initRoot<Response>(),
                   static_cast<size_t>(words));
      writeTo<kPacked>(conn.out, builder);
    });
    return true;
  }

 private:
  Scratch s1_, s2_, s3_, s4_, s5_, s6_;
};

template <typename Case, bool kReuse>
using Packed = Capnp<Case, true, kReuse>;
template <typename Case, bool kReuse>
using Unpacked = Capnp<Case, false, kReuse>;

}  // namespace

std::unique_ptr<RpcCell> makeCapnp(const std::string& kase, const std::string& compression,
                                  bool reuse) {
  if (compression == "packed") return makeCell<Packed, CarSales, CatRank, Eval>(kase, reuse);
  if (compression == "none") return makeCell<Unpacked, CarSales, CatRank, Eval>(kase, reuse);
  return nullptr;
}

std::string capnpVersion() {
  return std::to_string(CAPNP_VERSION_MAJOR) + "." + std::to_string(CAPNP_VERSION_MINOR) + "." +
         std::to_string(CAPNP_VERSION_MICRO);
}

}  // namespace wb::rpc
