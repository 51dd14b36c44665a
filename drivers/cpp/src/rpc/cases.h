// Library-independent parts of the rpc cases (docs: workloads, sections 2-4): the tables the
// generator indexes, the car valuation, the eval arithmetic and the catrank scoring. Each
// library reads its own message types and calls these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "../rng.h"

namespace wb::cases {

// ---- carsales --------------------------------------------------------------------------

inline constexpr const char* kMakes[] = {"Toyota", "GM", "Ford", "Honda", "Tesla"};
inline constexpr const char* kModels[] = {"Camry", "Prius", "Volt", "Accord", "Leaf", "Model S"};
inline constexpr uint32_t kColors = 9;

// Everything a car's value depends on; each library fills it from its own accessors.
struct CarFacts {
  uint32_t seats, doors;
  uint32_t wheelSum;  // over the wheels: diameter^2 + (snowTires ? 100 : 0)
  uint32_t length, width, height;
  uint32_t horsepower;
  bool usesGas, usesElectric;
  bool powerWindows, powerSteering, cruiseControl, navSystem;
  uint32_t cupHolders;
};

inline uint32_t wheelValue(uint32_t diameter, bool snowTires) {
  return diameter * diameter + (snowTires ? 100 : 0);
}

inline uint64_t carValue(const CarFacts& c) {
  uint64_t v = 0;
  v += c.seats * 200;
  v += c.doors * 350;
  v += c.wheelSum;
  v += c.length * c.width * c.height / 50;
  v += c.horsepower * 40;
  if (c.usesElectric) v += c.usesGas ? 5000 : 3000;
  v += c.powerWindows ? 100 : 0;
  v += c.powerSteering ? 200 : 0;
  v += c.cruiseControl ? 400 : 0;
  v += c.navSystem ? 2000 : 0;
  v += c.cupHolders * 25;
  return v;
}

// ---- catrank ---------------------------------------------------------------------------

inline constexpr const char kUrlPrefix[] = "http://example.com/";
inline constexpr size_t kUrlPrefixLen = sizeof(kUrlPrefix) - 1;
inline constexpr const char* kWords[] = {"foo ",   "bar ",    "baz ",   "qux ",  "quux ",
                                         "corge ", "grault ", "garply ", "waldo ", "fred ",
                                         "plugh ", "xyzzy ",  "thud "};
inline constexpr uint32_t kWordCount = sizeof(kWords) / sizeof(kWords[0]);

// Appends the snippet to `out` (anything with push_back(char) and append(const char*)),
// drawing in the documented order; returns whether the result is "good" (cat, no dog).
template <typename Str>
inline bool appendSnippet(Str& out) {
  bool isCat = rand(8) == 0;
  bool isDog = rand(8) == 0;
  out.push_back(' ');
  for (uint32_t n = rand(20); n > 0; --n) out.append(kWords[rand(kWordCount)]);
  if (isCat) out.append("cat ");
  if (isDog) out.append("dog ");
  for (uint32_t n = rand(20); n > 0; --n) out.append(kWords[rand(kWordCount)]);
  return isCat && !isDog;
}

// The server's rescoring of one result. Like the reference programs it searches with
// strstr, so the snippet must be NUL-terminated (capnp Text, std::string and the null
// library's Str all are). glibc's strstr is vectorised; its memmem is not, and a memchr
// loop on the first byte (a space, in text made of words) is slower still.
inline double rescore(double score, const char* snippet) {
  if (std::strstr(snippet, " cat ") != nullptr) score *= 10000;
  if (std::strstr(snippet, " dog ") != nullptr) score /= 10000;
  return score;
}

// A response's answer: the number of leading results scoring above 1001.
template <typename Results, typename ScoreOf>
inline int64_t leadingGood(const Results& results, ScoreOf&& scoreOf) {
  int64_t good = 0;
  for (const auto& r : results) {
    if (scoreOf(r) > 1001) {
      ++good;
    } else {
      break;
    }
  }
  return good;
}

// ---- eval ------------------------------------------------------------------------------

inline constexpr uint32_t kOps = 5;  // add, subtract, multiply, divide, modulus

// 32-bit two's complement with wrapping; x/0, x%0, INT_MIN/-1, INT_MIN%-1 give INT_MAX.
inline int32_t apply(uint32_t op, int32_t left, int32_t right) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  uint32_t l = static_cast<uint32_t>(left), r = static_cast<uint32_t>(right);
  switch (op) {
    case 0: return static_cast<int32_t>(l + r);
    case 1: return static_cast<int32_t>(l - r);
    case 2: return static_cast<int32_t>(l * r);
    case 3:
      if (right == 0 || (left == kMin && right == -1)) return kMax;
      return left / right;
    default:
      if (right == 0 || (left == kMin && right == -1)) return kMax;
      return left % right;
  }
}

// The digest term of an eval answer: the i32 sign-extended to 64 bits.
inline uint64_t evalTerm(int32_t v) { return static_cast<uint64_t>(static_cast<int64_t>(v)); }

}  // namespace wb::cases
