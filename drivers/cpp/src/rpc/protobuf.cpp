// The rpc suite on Protocol Buffers (C++), doing per iteration the work of the reference
// programs (protobuf-common.h and protobuf-{carsales,catrank,eval}.c++ of the Cap'n Proto
// repository):
//  - reuse: one message object per role, kept and Clear()ed after each use; no-reuse: a fresh
//    message object per use. In bytes mode the serialized strings follow the same rule.
//  - pipe: FileInputStream/FileOutputStream on the fds, a CodedStream per message, each
//    message preceded by its size as a varint (the delimited framing), flushed per message.
//    Bytes counted include the varint (the reference programs count the message only).
//  - compression: none only (the reference's "packed" protobuf is the same as none).
//  - limits (src/decode_limits.h): a size prefix over kMaxFrameBytes is refused, naming it, before
//    anything is parsed; the parser's recursion limit is set explicitly.

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "../common.h"
#include "../decode_limits.h"
#include "carsales.pb.h"
#include "cases.h"
#include "catrank.pb.h"
#include "eval.pb.h"
#include "loops.h"

namespace wb::rpc {
namespace {

namespace pio = google::protobuf::io;
namespace cs = wirebench::carsales;
namespace cr = wirebench::catrank;
namespace ev = wirebench::eval;

// ---- cases -----------------------------------------------------------------------------

uint64_t carValue(const cs::Car& car) {
  cases::CarFacts f;
  f.seats = car.seats();
  f.doors = car.doors();
  f.wheelSum = 0;
  for (const auto& wheel : car.wheel()) {
    f.wheelSum += cases::wheelValue(wheel.diameter(), wheel.snow_tires());
  }
  f.length = car.length();
  f.width = car.width();
  f.height = car.height();
  const cs::Engine& engine = car.engine();
  f.horsepower = engine.horsepower();
  f.usesGas = engine.uses_gas();
  f.usesElectric = engine.uses_electric();
  f.powerWindows = car.has_power_windows();
  f.powerSteering = car.has_power_steering();
  f.cruiseControl = car.has_cruise_control();
  f.navSystem = car.has_nav_system();
  f.cupHolders = car.cup_holders();
  return cases::carValue(f);
}

struct CarSales {
  using Request = cs::ParkingLot;
  using Response = cs::TotalValue;
  using Expectation = uint64_t;

  static void randomCar(cs::Car* car) {
    car->set_make(cases::kMakes[rand(5)]);
    car->set_model(cases::kModels[rand(6)]);
    // rand(9) as documented; the reference protobuf program draws rand(Color_MAX), i.e. 8.
    car->set_color(static_cast<cs::Color>(rand(cases::kColors)));
    car->set_seats(2 + rand(6));
    car->set_doors(2 + rand(3));
    for (int i = 0; i < 4; ++i) {
      cs::Wheel* wheel = car->add_wheel();
      wheel->set_diameter(25 + rand(15));
      wheel->set_air_pressure(static_cast<float>(30 + randDouble(20)));
      wheel->set_snow_tires(rand(16) == 0);
    }
    uint32_t length = 170 + rand(150), width = 48 + rand(36), height = 54 + rand(48);
    car->set_length(length);
    car->set_width(width);
    car->set_height(height);
    car->set_weight(length * width * height / 200);
    cs::Engine* engine = car->mutable_engine();
    engine->set_horsepower(100 * rand(400));
    engine->set_cylinders(4 + 2 * rand(3));
    engine->set_cc(800 + rand(10000));
    engine->set_uses_gas(true);
    engine->set_uses_electric(rand(2) != 0);
    float capacity = static_cast<float>(10.0 + randDouble(30.0));
    car->set_fuel_capacity(capacity);
    car->set_fuel_level(static_cast<float>(randDouble(capacity)));
    car->set_has_power_windows(rand(2) != 0);
    car->set_has_power_steering(rand(2) != 0);
    car->set_has_cruise_control(rand(2) != 0);
    car->set_cup_holders(rand(12));
    car->set_has_nav_system(rand(2) != 0);
  }

  static Expectation setup(Request* request) {
    uint64_t total = 0;
    for (uint32_t n = rand(200); n > 0; --n) {
      cs::Car* car = request->add_car();
      randomCar(car);
      total += carValue(*car);
    }
    return total;
  }

  static void handle(const Request& request, Response* response) {
    uint64_t total = 0;
    for (const auto& car : request.car()) total += carValue(car);
    response->set_amount(total);
  }

  static uint64_t answer(const Response& response) { return response.amount(); }
  static uint64_t term(Expectation e) { return e; }
};

struct CatRank {
  using Request = cr::SearchResultList;
  using Response = cr::SearchResultList;
  using Expectation = int64_t;

  static Expectation setup(Request* request) {
    uint32_t count = rand(1000);
    int64_t good = 0;
    for (uint32_t i = 0; i < count; ++i) {
      cr::SearchResult* result = request->add_result();
      result->set_score(1000 - static_cast<int>(i));
      result->set_url(cases::kUrlPrefix);
      std::string* url = result->mutable_url();
      for (uint32_t n = rand(100); n > 0; --n) url->push_back(static_cast<char>('a' + rand(26)));
      std::string* snippet = result->mutable_snippet();
      snippet->reserve(7 * 22);
      good += cases::appendSnippet(*snippet);
    }
    return good;
  }

  struct Scored {
    double score;
    const cr::SearchResult* result;
  };

  static void handle(const Request& request, Response* response) {
    std::vector<Scored> scored;
    for (const auto& result : request.result()) {
      const std::string& snippet = result.snippet();
      scored.push_back({cases::rescore(result.score(), snippet.c_str()), &result});
    }
    std::sort(scored.begin(), scored.end(),
              [](const Scored& a, const Scored& b) { return a.score > b.score; });
    for (const auto& s : scored) {
      cr::SearchResult* out = response->add_result();
      out->set_score(s.score);
      out->set_url(s.result->url());
      out->set_snippet(s.result->snippet());
    }
  }

  static int64_t answer(const Response& response) {
    return cases::leadingGood(response.result(), [](const auto& r) { return r.score(); });
  }
  static uint64_t term(Expectation e) { return static_cast<uint64_t>(e); }
};

struct Eval {
  using Request = ev::Expression;
  using Response = ev::EvaluationResult;
  using Expectation = int32_t;

  static int32_t make(ev::Expression* exp, uint32_t depth) {
    uint32_t op = rand(cases::kOps);
    exp->set_op(static_cast<ev::Operation>(op));
    int32_t left, right;
    if (rand(8) < depth) {
      left = static_cast<int32_t>(rand(128) + 1);
      exp->set_left_value(left);
    } else {
      left = make(exp->mutable_left_expression(), depth + 1);
    }
    if (rand(8) < depth) {
      right = static_cast<int32_t>(rand(128) + 1);
      exp->set_right_value(right);
    } else {
      right = make(exp->mutable_right_expression(), depth + 1);
    }
    return cases::apply(op, left, right);
  }

  static int32_t evaluate(const ev::Expression& exp) {
    int32_t left, right;
    if (exp.has_left_value()) {
      left = exp.left_value();
    } else if (exp.has_left_expression()) {
      left = evaluate(exp.left_expression());
    } else {
      fail("eval: expression without a left operand");
    }
    if (exp.has_right_value()) {
      right = exp.right_value();
    } else if (exp.has_right_expression()) {
      right = evaluate(exp.right_expression());
    } else {
      fail("eval: expression without a right operand");
    }
    return cases::apply(static_cast<uint32_t>(exp.op()), left, right);
  }

  static Expectation setup(Request* request) { return make(request, 0); }
  static void handle(const Request& request, Response* response) {
    response->set_value(evaluate(request));
  }
  static int32_t answer(const Response& response) { return response.value(); }
  static uint64_t term(Expectation e) { return cases::evalTerm(e); }
};

// ---- resources -------------------------------------------------------------------------

// One use of a message: the kept object (cleared when done) or a fresh one.
template <typename M, bool kReuse>
class Use;
template <typename M>
class Use<M, true> {
 public:
  explicit Use(M& kept) : m_(kept) {}
  M& operator*() { return m_; }
  M* operator->() { return &m_; }
  void done() { m_.Clear(); }

 private:
  M& m_;
};
template <typename M>
class Use<M, false> {
 public:
  explicit Use(M&) {}
  M& operator*() { return m_; }
  M* operator->() { return &m_; }
  void done() {}

 private:
  M m_;
};

// A serialized-bytes buffer: the kept string (its capacity reused) or a fresh one.
template <bool kReuse>
class StringUse;
template <>
class StringUse<true> {
 public:
  explicit StringUse(std::string& kept) : s_(kept) {}
  std::string& get() { return s_; }

 private:
  std::string& s_;
};
template <>
class StringUse<false> {
 public:
  explicit StringUse(std::string&) {}
  std::string& get() { return s_; }

 private:
  std::string s_;
};

// Writes one delimited message and flushes; returns the bytes written (varint + message).
uint64_t writeDelimited(const google::protobuf::MessageLite& message,
                        pio::FileOutputStream* raw) {
  uint64_t written;
  {
    pio::CodedOutputStream out(raw);
    size_t size = message.ByteSizeLong();
    if (size > 0x7fffffff) fail("protobuf message too large");
    out.WriteVarint32(static_cast<uint32_t>(size));
    uint8_t* direct = out.GetDirectBufferForNBytesAndAdvance(static_cast<int>(size));
    if (direct != nullptr) {
      message.SerializeWithCachedSizesToArray(direct);
    } else {
      message.SerializeWithCachedSizes(&out);
    }
    if (out.HadError()) fail(std::string("write failed: ") + std::strerror(raw->GetErrno()));
    written = pio::CodedOutputStream::VarintSize32(static_cast<uint32_t>(size)) + size;
  }
  if (!raw->Flush()) fail(std::string("write failed: ") + std::strerror(raw->GetErrno()));
  return written;
}

// True at a clean end of file (nothing more to read), without consuming anything.
bool atCleanEnd(pio::FileInputStream* raw) {
  const void* data;
  int size;
  while (raw->Next(&data, &size)) {
    if (size > 0) {
      raw->BackUp(size);
      return false;
    }
  }
  if (raw->GetErrno() != 0) fail(std::string("read failed: ") + std::strerror(raw->GetErrno()));
  return true;
}

// Reads one delimited message into `message`; returns the bytes read (varint + message).
// Fails unless the varint is whole and the message parses and fills exactly its size.
uint64_t readDelimited(pio::FileInputStream* raw, google::protobuf::MessageLite* message) {
  pio::CodedInputStream in(raw);
  in.SetRecursionLimit(limits::kProtobufRecursionLimit);
  uint64_t prefix;  // read whole (a 32-bit read would drop high bits of a longer varint)
  if (!in.ReadVarint64(&prefix)) {
    if (raw->GetErrno() != 0) fail(std::string("read failed: ") + std::strerror(raw->GetErrno()));
    fail("corrupt or truncated protobuf stream: no whole size prefix");
  }
  if (prefix > limits::kMaxFrameBytes) {
    fail("protobuf: message of " + std::to_string(prefix) +
         " bytes refused: over the limit of " + std::to_string(limits::kMaxFrameBytes) +
         " bytes");
  }
  uint32_t size = static_cast<uint32_t>(prefix);
  auto limit = in.PushLimit(static_cast<int>(size));
  if (!message->MergePartialFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    fail("corrupt protobuf message of " + std::to_string(size) + " bytes");
  }
  if (in.BytesUntilLimit() != 0) {
    fail("truncated protobuf message: " + std::to_string(in.BytesUntilLimit()) + " of " +
         std::to_string(size) + " bytes missing");
  }
  in.PopLimit(limit);
  return pio::CodedOutputStream::VarintSize32(size) + size;
}

// A pipe in the delimited framing, counted at the fds. The reading side and the writing
// side are each used by one thread in pipe-async, so they do not share a cache line.
struct Conn {
  Conn(int inFd, int outFd) : in(inFd), out(outFd) {}
  uint64_t bytesRead() const { return in.count; }
  uint64_t bytesWritten() const { return out.count; }

  struct alignas(64) In {
    explicit In(int fd) : stream(fd) {}
    pio::FileInputStream stream;
    uint64_t count = 0;
  } in;
  struct alignas(64) Out {
    explicit Out(int fd) : stream(fd) {}
    pio::FileOutputStream stream;
    uint64_t count = 0;
  } out;
};

// ---- the library's work ----------------------------------------------------------------

template <typename Case, bool kReuse>
class Protobuf {
  using Request = typename Case::Request;
  using Response = typename Case::Response;
  using Expectation = typename Case::Expectation;
  using Req = Use<Request, kReuse>;
  using Resp = Use<Response, kReuse>;

 public:
  using Conn = rpc::Conn;

  Exchange object() {
    Req request(clientRequest_);
    Expectation expected = Case::setup(&*request);
    Resp response(serverResponse_);
    Case::handle(*request, &*response);
    request.done();
    uint64_t answer = Case::term(Case::answer(*response));
    response.done();
    return {Case::term(expected), answer, 0};
  }

  Exchange bytes() {
    Exchange e;
    Req clientRequest(clientRequest_);
    e.expected = Case::term(Case::setup(&*clientRequest));
    StringUse<kReuse> requestBytes(requestBytes_);
    clientRequest->SerializePartialToString(&requestBytes.get());
    e.bytes = requestBytes.get().size();
    clientRequest.done();

    Req serverRequest(serverRequest_);
    if (!serverRequest->ParsePartialFromString(requestBytes.get())) {
      fail("corrupt protobuf request");
    }
    Resp serverResponse(serverResponse_);
    Case::handle(*serverRequest, &*serverResponse);
    serverRequest.done();

    StringUse<kReuse> responseBytes(responseBytes_);
    serverResponse->SerializePartialToString(&responseBytes.get());
    e.bytes += responseBytes.get().size();
    serverResponse.done();

    Resp clientResponse(clientResponse_);
    if (!clientResponse->ParsePartialFromString(responseBytes.get())) {
      fail("corrupt protobuf response");
    }
    e.answer = Case::term(Case::answer(*clientResponse));
    clientResponse.done();
    return e;
  }

  template <typename Expect>
  void send(Conn& conn, Expect&& expect) {
    Req request(clientRequest_);
    expect(Case::term(Case::setup(&*request)));
    conn.out.count += writeDelimited(*request, &conn.out.stream);
    request.done();
  }

  bool receive(Conn& conn, uint64_t& answer, bool endOk) {
    if (endOk && atCleanEnd(&conn.in.stream)) return false;
    Resp response(clientResponse_);
    conn.in.count += readDelimited(&conn.in.stream, &*response);
    answer = Case::term(Case::answer(*response));
    response.done();
    return true;
  }

  bool serveOne(Conn& conn) {
    if (atCleanEnd(&conn.in.stream)) return false;
    Req request(serverRequest_);
    conn.in.count += readDelimited(&conn.in.stream, &*request);
    Resp response(serverResponse_);
    Case::handle(*request, &*response);
    request.done();
    conn.out.count += writeDelimited(*response, &conn.out.stream);
    response.done();
    return true;
  }

 private:
  Request clientRequest_, serverRequest_;
  Response serverResponse_, clientResponse_;
  std::string requestBytes_, responseBytes_;
};

}  // namespace

std::unique_ptr<RpcCell> makeProtobuf(const std::string& kase, const std::string& compression,
                                      bool reuse) {
  if (compression != "none") return nullptr;
  return makeCell<Protobuf, CarSales, CatRank, Eval>(kase, reuse);
}

std::string protobufVersion() {
  constexpr int v = GOOGLE_PROTOBUF_VERSION;
  return std::to_string(v / 1000000) + "." + std::to_string(v / 1000 % 1000) + "." +
         std::to_string(v % 1000);
}

}  // namespace wb::rpc
