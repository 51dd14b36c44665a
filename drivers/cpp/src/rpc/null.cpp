// The rpc suite with no serialization library: hand-written plain structs, the floor the
// libraries are measured against (after the reference's null-*.c++ programs, which only
// have the object mode; the bytes and pipe modes here add a trivial hand-written format).
//
// Memory: reuse allocates every struct, list and string of a message from a reused arena
// (a bump pointer reset per message, as in the reference); no-reuse gives every object its
// own heap allocation, freed when the message is done. Serialized buffers follow the same
// rule (a kept buffer vs a fresh one per message).
//
// The null byte format (all integers and floats little-endian, no padding, no alignment):
//   str      = u32 byte count, then the bytes (no terminator)
//   list(T)  = u32 element count, then the elements
//   bool     = u8, 0 or 1
//   carsales ParkingLot   = list(Car)
//            Car          = make str, model str, color u8 (0..8), seats u8, doors u8,
//                           wheels list(Wheel), length u16, width u16, height u16,
//                           weight u32, engine Engine, fuelCapacity f32, fuelLevel f32,
//                           hasPowerWindows bool, hasPowerSteering bool,
//                           hasCruiseControl bool, cupHolders u8, hasNavSystem bool
//            Wheel        = diameter u16, airPressure f32, snowTires bool
//            Engine       = horsepower u16, cylinders u8, cc u32, usesGas bool,
//                           usesElectric bool
//            TotalValue   = amount u64
//   catrank  SearchResultList = list(SearchResult)
//            SearchResult     = url str, score f64, snippet str
//   eval     Expression       = op u8 (0 add, 1 subtract, 2 multiply, 3 divide, 4 modulus),
//                               kinds u8 (bit 0: left is an Expression, bit 1: right is an
//                               Expression, other bits 0), left, right; an operand is an
//                               i32 value or a nested Expression (pre-order)
//            EvaluationResult = value i32
// A reader accepts a message only if it is exactly consumed and every value is in range.
// On a pipe each message is a u32 little-endian byte count followed by the message; the
// `bytes` mode counts the messages only, the pipe modes count the prefixes too.

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../common.h"
#include "../io.h"
#include "../decode_limits.h"
#include "cases.h"
#include "loops.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the null format is read and written with memcpy on a little-endian host");

namespace wb::rpc {
namespace {

// ---- memory ----------------------------------------------------------------------------

// Reused arena: a bump pointer over one block, reset at the start of each message.
class Arena {
 public:
  static constexpr size_t kBytes = 8u << 20;
  Arena() : base_(static_cast<char*>(std::malloc(kBytes))) {
    if (base_ == nullptr) throw std::bad_alloc();
  }
  ~Arena() { std::free(base_); }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void reset() { pos_ = 0; }
  void* allocate(size_t bytes) {
    size_t need = (bytes + 7) & ~size_t{7};
    if (need > kBytes - pos_) fail("null: arena exhausted");
    void* p = base_ + pos_;
    pos_ += need;
    return p;
  }

 private:
  char* base_;
  size_t pos_ = 0;
};

// Fresh heap allocations, each its own malloc, chained so that they are freed together.
class Heap {
 public:
  Heap() = default;
  ~Heap() {
    while (head_ != nullptr) {
      Node* next = head_->next;
      std::free(head_);
      head_ = next;
    }
  }
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  void* allocate(size_t bytes) {
    void* p = std::malloc(sizeof(Node) + bytes);
    if (p == nullptr) throw std::bad_alloc();
    Node* node = static_cast<Node*>(p);
    node->next = head_;
    head_ = node;
    return node + 1;
  }

 private:
  struct alignas(16) Node {
    Node* next;
  };
  Node* head_ = nullptr;
};

// The memory of one message: the kept arena (reset) or a new heap (freed at scope end).
template <bool kReuse>
class Pool;
template <>
class Pool<true> {
 public:
  explicit Pool(Arena& arena) : arena_(arena) { arena_.reset(); }
  void* allocate(size_t bytes) { return arena_.allocate(bytes); }

 private:
  Arena& arena_;
};
template <>
class Pool<false> {
 public:
  explicit Pool(Arena&) {}
  void* allocate(size_t bytes) { return heap_.allocate(bytes); }

 private:
  Heap heap_;
};

template <typename T, typename P>
T* make(P& pool, size_t count) {
  return static_cast<T*>(pool.allocate(sizeof(T) * count));
}

// A serialized message's buffer: the kept one (grown as needed) or a fresh one.
template <bool kReuse>
class Buffer;
template <>
class Buffer<true> {
 public:
  explicit Buffer(std::vector<uint8_t>& kept) : kept_(kept) {}
  uint8_t* get(size_t n) {
    if (kept_.size() < n) kept_.resize(n);
    return kept_.data();
  }

 private:
  std::vector<uint8_t>& kept_;
};
template <>
class Buffer<false> {
 public:
  explicit Buffer(std::vector<uint8_t>&) {}
  uint8_t* get(size_t n) {
    data_.reset(new uint8_t[n]);
    return data_.get();
  }

 private:
  std::unique_ptr<uint8_t[]> data_;
};

// ---- plain structs ---------------------------------------------------------------------

// Text, NUL-terminated in memory (not on the wire) like Cap'n Proto's and std::string's,
// so that the catrank server can search it with strstr as every other library does.
struct Str {
  const char* data;
  uint32_t size;
};

template <typename T>
struct List {
  T* items;
  uint32_t size;
  T* begin() const { return items; }
  T* end() const { return items + size; }
};

template <typename P>
Str copyStr(P& pool, const char* data, size_t size) {
  char* p = make<char>(pool, size + 1);
  std::memcpy(p, data, size);
  p[size] = '\0';
  return {p, static_cast<uint32_t>(size)};
}

// Holds a snippet while it is drawn (at most 1 + 40 * 7 + 8 bytes).
struct SnippetBuffer {
  char data[512];
  size_t size = 0;
  void push_back(char c) { data[size++] = c; }
  void append(const char* s) {
    size_t n = std::strlen(s);
    std::memcpy(data + size, s, n);
    size += n;
  }
};

// ---- the byte format -------------------------------------------------------------------

class Writer {
 public:
  explicit Writer(uint8_t* p) : p_(p) {}
  template <typename T>
  void put(T v) {
    std::memcpy(p_, &v, sizeof(T));
    p_ += sizeof(T);
  }
  void putBool(bool b) { put<uint8_t>(b ? 1 : 0); }
  void putStr(const Str& s) {
    put<uint32_t>(s.size);
    std::memcpy(p_, s.data, s.size);
    p_ += s.size;
  }
  uint8_t* pos() const { return p_; }

 private:
  uint8_t* p_;
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  template <typename T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  bool getBool() {
    uint8_t b = get<uint8_t>();
    if (b > 1) fail("null: corrupt message: bool byte " + std::to_string(b));
    return b != 0;
  }
  uint8_t getBelow(uint8_t limit, const char* what) {
    uint8_t v = get<uint8_t>();
    if (v >= limit) fail(std::string("null: corrupt message: ") + what + " " + std::to_string(v));
    return v;
  }
  template <typename P>
  Str getStr(P& pool) {
    uint32_t n = get<uint32_t>();
    need(n);
    Str s = copyStr(pool, reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  // An element count, refused if the rest of the message cannot hold that many elements.
  uint32_t getCount(size_t minElementBytes) {
    uint32_t n = get<uint32_t>();
    if (n > static_cast<size_t>(end_ - p_) / minElementBytes) {
      fail("null: corrupt message: list of " + std::to_string(n) + " elements in " +
           std::to_string(end_ - p_) + " bytes");
    }
    return n;
  }
  void finish() const {
    if (p_ != end_) {
      fail("null: corrupt message: " + std::to_string(end_ - p_) + " bytes after the end");
    }
  }

 private:
  void need(size_t n) const {
    if (n > static_cast<size_t>(end_ - p_)) fail("null: truncated message");
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

// ---- carsales --------------------------------------------------------------------------

struct Wheel {
  uint16_t diameter;
  float airPressure;
  bool snowTires;
};
struct Engine {
  uint16_t horsepower;
  uint8_t cylinders;
  uint32_t cc;
  bool usesGas, usesElectric;
};
struct Car {
  Str make, model;
  uint8_t color, seats, doors;
  List<Wheel> wheels;
  uint16_t length, width, height;
  uint32_t weight;
  Engine engine;
  float fuelCapacity, fuelLevel;
  bool hasPowerWindows, hasPowerSteering, hasCruiseControl;
  uint8_t cupHolders;
  bool hasNavSystem;
};
struct ParkingLot {
  List<Car> cars;
};
struct TotalValue {
  uint64_t amount;
};

constexpr size_t kWheelBytes = 2 + 4 + 1;
constexpr size_t kEngineBytes = 2 + 1 + 4 + 1 + 1;
constexpr size_t kCarFixedBytes = 4 + 4 + 3 + 4 + 6 + 4 + kEngineBytes + 8 + 5;

uint64_t carValue(const Car& car) {
  cases::CarFacts f;
  f.seats = car.seats;
  f.doors = car.doors;
  f.wheelSum = 0;
  for (const Wheel& w : car.wheels) f.wheelSum += cases::wheelValue(w.diameter, w.snowTires);
  f.length = car.length;
  f.width = car.width;
  f.height = car.height;
  f.horsepower = car.engine.horsepower;
  f.usesGas = car.engine.usesGas;
  f.usesElectric = car.engine.usesElectric;
  f.powerWindows = car.hasPowerWindows;
  f.powerSteering = car.hasPowerSteering;
  f.cruiseControl = car.hasCruiseControl;
  f.navSystem = car.hasNavSystem;
  f.cupHolders = car.cupHolders;
  return cases::carValue(f);
}

Str staticStr(const char* s) { return {s, static_cast<uint32_t>(std::strlen(s))}; }

struct CarSales {
  using Request = ParkingLot;
  using Response = TotalValue;
  using Expectation = uint64_t;

  template <typename P>
  static void randomCar(Car& car, P& pool) {
    car.make = staticStr(cases::kMakes[rand(5)]);
    car.model = staticStr(cases::kModels[rand(6)]);
    car.color = static_cast<uint8_t>(rand(cases::kColors));
    car.seats = static_cast<uint8_t>(2 + rand(6));
    car.doors = static_cast<uint8_t>(2 + rand(3));
    car.wheels = {make<Wheel>(pool, 4), 4};
    for (Wheel& wheel : car.wheels) {
      wheel.diameter = static_cast<uint16_t>(25 + rand(15));
      wheel.airPressure = static_cast<float>(30 + randDouble(20));
      wheel.snowTires = rand(16) == 0;
    }
    uint32_t length = 170 + rand(150), width = 48 + rand(36), height = 54 + rand(48);
    car.length = static_cast<uint16_t>(length);
    car.width = static_cast<uint16_t>(width);
    car.height = static_cast<uint16_t>(height);
    car.weight = length * width * height / 200;
    car.engine.horsepower = static_cast<uint16_t>(100 * rand(400));
    car.engine.cylinders = static_cast<uint8_t>(4 + 2 * rand(3));
    car.engine.cc = 800 + rand(10000);
    car.engine.usesGas = true;
    car.engine.usesElectric = rand(2) != 0;
    car.fuelCapacity = static_cast<float>(10.0 + randDouble(30.0));
    car.fuelLevel = static_cast<float>(randDouble(car.fuelCapacity));
    car.hasPowerWindows = rand(2) != 0;
    car.hasPowerSteering = rand(2) != 0;
    car.hasCruiseControl = rand(2) != 0;
    car.cupHolders = static_cast<uint8_t>(rand(12));
    car.hasNavSystem = rand(2) != 0;
  }

  template <typename P>
  static Expectation setup(Request& request, P& pool) {
    uint32_t count = rand(200);
    request.cars = {make<Car>(pool, count), count};
    uint64_t total = 0;
    for (Car& car : request.cars) {
      randomCar(car, pool);
      total += carValue(car);
    }
    return total;
  }

  template <typename P>
  static void handle(const Request& request, Response& response, P&) {
    uint64_t total = 0;
    for (const Car& car : request.cars) total += carValue(car);
    response.amount = total;
  }

  static uint64_t answer(const Response& response) { return response.amount; }
  static uint64_t term(Expectation e) { return e; }

  static size_t sizeOf(const Request& r) {
    size_t n = 4;
    for (const Car& car : r.cars) {
      n += kCarFixedBytes + car.make.size + car.model.size + car.wheels.size * kWheelBytes;
    }
    return n;
  }
  static void encode(Writer& w, const Request& r) {
    w.put<uint32_t>(r.cars.size);
    for (const Car& car : r.cars) {
      w.putStr(car.make);
      w.putStr(car.model);
      w.put<uint8_t>(car.color);
      w.put<uint8_t>(car.seats);
      w.put<uint8_t>(car.doors);
      w.put<uint32_t>(car.wheels.size);
      for (const Wheel& wheel : car.wheels) {
        w.put<uint16_t>(wheel.diameter);
        w.put<float>(wheel.airPressure);
        w.putBool(wheel.snowTires);
      }
      w.put<uint16_t>(car.length);
      w.put<uint16_t>(car.width);
      w.put<uint16_t>(car.height);
      w.put<uint32_t>(car.weight);
      w.put<uint16_t>(car.engine.horsepower);
      w.put<uint8_t>(car.engine.cylinders);
      w.put<uint32_t>(car.engine.cc);
      w.putBool(car.engine.usesGas);
      w.putBool(car.engine.usesElectric);
      w.put<float>(car.fuelCapacity);
      w.put<float>(car.fuelLevel);
      w.putBool(car.hasPowerWindows);
      w.putBool(car.hasPowerSteering);
      w.putBool(car.hasCruiseControl);
      w.put<uint8_t>(car.cupHolders);
      w.putBool(car.hasNavSystem);
    }
  }
  template <typename P>
  static void decode(Reader& rd, Request& r, P& pool) {
    uint32_t count = rd.getCount(kCarFixedBytes);
    r.cars = {make<Car>(pool, count), count};
    for (Car& car : r.cars) {
      car.make = rd.getStr(pool);
      car.model = rd.getStr(pool);
      car.color = rd.getBelow(cases::kColors, "color");
      car.seats = rd.get<uint8_t>();
      car.doors = rd.get<uint8_t>();
      uint32_t wheels = rd.getCount(kWheelBytes);
      car.wheels = {make<Wheel>(pool, wheels), wheels};
      for (Wheel& wheel : car.wheels) {
        wheel.diameter = rd.get<uint16_t>();
        wheel.airPressure = rd.get<float>();
        wheel.snowTires = rd.getBool();
      }
      car.length = rd.get<uint16_t>();
      car.width = rd.get<uint16_t>();
      car.height = rd.get<uint16_t>();
      car.weight = rd.get<uint32_t>();
      car.engine.horsepower = rd.get<uint16_t>();
      car.engine.cylinders = rd.get<uint8_t>();
      car.engine.cc = rd.get<uint32_t>();
      car.engine.usesGas = rd.getBool();
      car.engine.usesElectric = rd.getBool();
      car.fuelCapacity = rd.get<float>();
      car.fuelLevel = rd.get<float>();
      car.hasPowerWindows = rd.getBool();
      car.hasPowerSteering = rd.getBool();
      car.hasCruiseControl = rd.getBool();
      car.cupHolders = rd.get<uint8_t>();
      car.hasNavSystem = rd.getBool();
    }
  }

  static size_t sizeOf(const Response&) { return 8; }
  static void encode(Writer& w, const Response& r) { w.put<uint64_t>(r.amount); }
  template <typename P>
  static void decode(Reader& rd, Response& r, P&) {
    r.amount = rd.get<uint64_t>();
  }
};

// ---- catrank ---------------------------------------------------------------------------

struct SearchResult {
  Str url;
  double score;
  Str snippet;
};
struct SearchResultList {
  List<SearchResult> results;
};

constexpr size_t kResultFixedBytes = 4 + 8 + 4;

struct CatRank {
  using Request = SearchResultList;
  using Response = SearchResultList;
  using Expectation = int64_t;

  template <typename P>
  static Expectation setup(Request& request, P& pool) {
    uint32_t count = rand(1000);
    request.results = {make<SearchResult>(pool, count), count};
    int64_t good = 0;
    SnippetBuffer snippet;
    for (uint32_t i = 0; i < count; ++i) {
      SearchResult& result = request.results.items[i];
      result.score = 1000 - static_cast<int>(i);
      uint32_t letters = rand(100);
      size_t urlSize = cases::kUrlPrefixLen + letters;
      char* url = make<char>(pool, urlSize + 1);
      std::memcpy(url, cases::kUrlPrefix, cases::kUrlPrefixLen);
      for (uint32_t j = 0; j < letters; ++j) {
        url[cases::kUrlPrefixLen + j] = static_cast<char>('a' + rand(26));
      }
      url[urlSize] = '\0';
      result.url = {url, static_cast<uint32_t>(urlSize)};
      snippet.size = 0;
      good += cases::appendSnippet(snippet);
      result.snippet = copyStr(pool, snippet.data, snippet.size);
    }
    return good;
  }

  struct Scored {
    double score;
    const SearchResult* result;
  };

  template <typename P>
  static void handle(const Request& request, Response& response, P& pool) {
    std::vector<Scored> scored;
    scored.reserve(request.results.size);
    for (const SearchResult& r : request.results) {
      scored.push_back({cases::rescore(r.score, r.snippet.data), &r});
    }
    std::sort(scored.begin(), scored.end(),
              [](const Scored& a, const Scored& b) { return a.score > b.score; });
    uint32_t n = static_cast<uint32_t>(scored.size());
    response.results = {make<SearchResult>(pool, n), n};
    SearchResult* out = response.results.items;
    for (const Scored& s : scored) {
      out->url = copyStr(pool, s.result->url.data, s.result->url.size);
      out->score = s.score;
      out->snippet = copyStr(pool, s.result->snippet.data, s.result->snippet.size);
      ++out;
    }
  }

  static int64_t answer(const Response& response) {
    return cases::leadingGood(response.results, [](const SearchResult& r) { return r.score; });
  }
  static uint64_t term(Expectation e) { return static_cast<uint64_t>(e); }

  static size_t sizeOf(const SearchResultList& l) {
    size_t n = 4;
    for (const SearchResult& r : l.results) n += kResultFixedBytes + r.url.size + r.snippet.size;
    return n;
  }
  static void encode(Writer& w, const SearchResultList& l) {
    w.put<uint32_t>(l.results.size);
    for (const SearchResult& r : l.results) {
      w.putStr(r.url);
      w.put<double>(r.score);
      w.putStr(r.snippet);
    }
  }
  template <typename P>
  static void decode(Reader& rd, SearchResultList& l, P& pool) {
    uint32_t count = rd.getCount(kResultFixedBytes);
    l.results = {make<SearchResult>(pool, count), count};
    for (SearchResult& r : l.results) {
      r.url = rd.getStr(pool);
      r.score = rd.get<double>();
      r.snippet = rd.getStr(pool);
    }
  }
};

// ---- eval ------------------------------------------------------------------------------

struct Expression;
union Operand {
  int32_t value;
  Expression* expression;
};
struct Expression {
  uint8_t op;
  bool leftIsExpression, rightIsExpression;
  Operand left, right;
};
struct EvaluationResult {
  int32_t value;
};

// Expression nesting (the generator never nests deeper than 9): decodeAt and evaluate recurse.
constexpr int kMaxDepth = limits::kMaxNestingDepth;

struct Eval {
  using Request = Expression;
  using Response = EvaluationResult;
  using Expectation = int32_t;

  template <typename P>
  static int32_t build(Expression& exp, uint32_t depth, P& pool) {
    exp.op = static_cast<uint8_t>(rand(cases::kOps));
    int32_t left, right;
    exp.leftIsExpression = !(rand(8) < depth);
    if (!exp.leftIsExpression) {
      left = static_cast<int32_t>(rand(128) + 1);
      exp.left.value = left;
    } else {
      exp.left.expression = make<Expression>(pool, 1);
      left = build(*exp.left.expression, depth + 1, pool);
    }
    exp.rightIsExpression = !(rand(8) < depth);
    if (!exp.rightIsExpression) {
      right = static_cast<int32_t>(rand(128) + 1);
      exp.right.value = right;
    } else {
      exp.right.expression = make<Expression>(pool, 1);
      right = build(*exp.right.expression, depth + 1, pool);
    }
    return cases::apply(exp.op, left, right);
  }

  static int32_t evaluate(const Expression& exp) {
    int32_t left = exp.leftIsExpression ? evaluate(*exp.left.expression) : exp.left.value;
    int32_t right = exp.rightIsExpression ? evaluate(*exp.right.expression) : exp.right.value;
    return cases::apply(exp.op, left, right);
  }

  template <typename P>
  static Expectation setup(Request& request, P& pool) {
    return build(request, 0, pool);
  }
  template <typename P>
  static void handle(const Request& request, Response& response, P&) {
    response.value = evaluate(request);
  }
  static int32_t answer(const Response& response) { return response.value; }
  static uint64_t term(Expectation e) { return cases::evalTerm(e); }

  static size_t sizeOf(const Expression& e) {
    return 2 + (e.leftIsExpression ? sizeOf(*e.left.expression) : 4) +
           (e.rightIsExpression ? sizeOf(*e.right.expression) : 4);
  }
  static void encode(Writer& w, const Expression& e) {
    w.put<uint8_t>(e.op);
    w.put<uint8_t>(static_cast<uint8_t>((e.leftIsExpression ? 1 : 0) |
                                        (e.rightIsExpression ? 2 : 0)));
    if (e.leftIsExpression) {
      encode(w, *e.left.expression);
    } else {
      w.put<int32_t>(e.left.value);
    }
    if (e.rightIsExpression) {
      encode(w, *e.right.expression);
    } else {
      w.put<int32_t>(e.right.value);
    }
  }
  template <typename P>
  static void decodeAt(Reader& rd, Expression& e, P& pool, int depth) {
    if (depth > kMaxDepth) fail("null: corrupt message: expression nested too deeply");
    e.op = rd.getBelow(cases::kOps, "operation");
    uint8_t kinds = rd.getBelow(4, "operand kinds");
    e.leftIsExpression = (kinds & 1) != 0;
    e.rightIsExpression = (kinds & 2) != 0;
    if (e.leftIsExpression) {
      e.left.expression = make<Expression>(pool, 1);
      decodeAt(rd, *e.left.expression, pool, depth + 1);
    } else {
      e.left.value = rd.get<int32_t>();
    }
    if (e.rightIsExpression) {
      e.right.expression = make<Expression>(pool, 1);
      decodeAt(rd, *e.right.expression, pool, depth + 1);
    } else {
      e.right.value = rd.get<int32_t>();
    }
  }
  template <typename P>
  static void decode(Reader& rd, Expression& e, P& pool) {
    decodeAt(rd, e, pool, 0);
  }

  static size_t sizeOf(const EvaluationResult&) { return 4; }
  static void encode(Writer& w, const EvaluationResult& r) { w.put<int32_t>(r.value); }
  template <typename P>
  static void decode(Reader& rd, EvaluationResult& r, P&) {
    r.value = rd.get<int32_t>();
  }
};

// ---- framing ---------------------------------------------------------------------------

constexpr uint64_t kMaxMessageBytes = limits::kMaxFrameBytes;

// A pipe in the null framing (a u32 size prefix per message), counted at the fds. The
// reading side and the writing side are each used by one thread in pipe-async, so they do
// not share a cache line.
struct Conn {
  Conn(int inFd, int outFd) : in{inFd}, out{outFd} {}
  uint64_t bytesRead() const { return in.count; }
  uint64_t bytesWritten() const { return out.count; }
  struct alignas(64) Side {
    int fd;
    uint64_t count = 0;
  } in, out;
};

// Serializes `m` into `buffer` after a 4-byte size prefix and writes both; returns the bytes.
template <typename Case, typename M, bool kReuse>
uint64_t sendMessage(int fd, const M& m, Buffer<kReuse>& buffer) {
  size_t size = Case::sizeOf(m);
  uint8_t* p = buffer.get(4 + size);
  Writer w(p);
  w.put<uint32_t>(static_cast<uint32_t>(size));
  Case::encode(w, m);
  writeAll(fd, p, 4 + size);
  return 4 + size;
}

// Reads the next framed message and decodes it into `m`; returns the bytes read, or 0 at a
// clean end of file when `endOk`.
template <typename Case, typename M, bool kReuse, typename P>
uint64_t receiveMessage(int fd, M& m, Buffer<kReuse>& buffer, P& pool, bool endOk) {
  uint32_t size;
  if (!readExact(fd, &size, 4, "null message size prefix")) {
    if (endOk) return 0;
    fail("null: unexpected end of file before a response");
  }
  if (size > kMaxMessageBytes) {
    fail("null: message of " + std::to_string(size) + " bytes refused: over the limit of " +
         std::to_string(kMaxMessageBytes) + " bytes");
  }
  uint8_t* p = buffer.get(size);
  if (size > 0 && !readExact(fd, p, size, "null message")) {
    fail("null: truncated message: end of file after the size prefix");
  }
  Reader rd(p, size);
  Case::decode(rd, m, pool);
  rd.finish();
  return 4 + static_cast<uint64_t>(size);
}

// ---- the library's work ----------------------------------------------------------------

template <typename Case, bool kReuse>
class Null {
  using Request = typename Case::Request;
  using Response = typename Case::Response;
  using Expectation = typename Case::Expectation;
  using P = Pool<kReuse>;
  using B = Buffer<kReuse>;

 public:
  using Conn = rpc::Conn;

  Exchange object() {
    P pool(a1_);  // request and response share one arena, as in the reference
    Request request;
    Expectation expected = Case::setup(request, pool);
    Response response;
    Case::handle(request, response, pool);
    return {Case::term(expected), Case::term(Case::answer(response)), 0};
  }

  Exchange bytes() {
    Exchange e;
    P clientPool(a1_);
    Request request;
    e.expected = Case::term(Case::setup(request, clientPool));
    B requestBytes(b1_);
    size_t requestSize = Case::sizeOf(request);
    uint8_t* rq = requestBytes.get(requestSize);
    Writer rw(rq);
    Case::encode(rw, request);
    e.bytes = requestSize;

    P serverPool(a2_);
    Request serverRequest;
    Reader rr(rq, requestSize);
    Case::decode(rr, serverRequest, serverPool);
    rr.finish();
    Response serverResponse;
    Case::handle(serverRequest, serverResponse, serverPool);
    B responseBytes(b2_);
    size_t responseSize = Case::sizeOf(serverResponse);
    uint8_t* rs = responseBytes.get(responseSize);
    Writer sw(rs);
    Case::encode(sw, serverResponse);
    e.bytes += responseSize;

    P responsePool(a3_);
    Response response;
    Reader sr(rs, responseSize);
    Case::decode(sr, response, responsePool);
    sr.finish();
    e.answer = Case::term(Case::answer(response));
    return e;
  }

  template <typename Expect>
  void send(Conn& conn, Expect&& expect) {
    P pool(a1_);
    Request request;
    expect(Case::term(Case::setup(request, pool)));
    B out(b1_);
    conn.out.count += sendMessage<Case>(conn.out.fd, request, out);
  }

  bool receive(Conn& conn, uint64_t& answer, bool endOk) {
    P pool(a2_);
    Response response;
    B in(b2_);
    uint64_t n = receiveMessage<Case>(conn.in.fd, response, in, pool, endOk);
    if (n == 0) return false;
    conn.in.count += n;
    answer = Case::term(Case::answer(response));
    return true;
  }

  bool serveOne(Conn& conn) {
    P pool(a1_);
    Request request;
    B in(b1_);
    uint64_t n = receiveMessage<Case>(conn.in.fd, request, in, pool, true);
    if (n == 0) return false;
    conn.in.count += n;
    Response response;
    Case::handle(request, response, pool);
    B out(b2_);
    conn.out.count += sendMessage<Case>(conn.out.fd, response, out);
    return true;
  }

 private:
  Arena a1_, a2_, a3_;
  std::vector<uint8_t> b1_, b2_;
};

}  // namespace

std::unique_ptr<RpcCell> makeNull(const std::string& kase, const std::string& compression,
                                  bool reuse) {
  if (compression != "none") return nullptr;
  return makeCell<Null, CarSales, CatRank, Eval>(kase, reuse);
}

}  // namespace wb::rpc
