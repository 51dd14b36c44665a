// The JSON the driver prints: objects built field by field, each printed on one line.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wb {

// (key, value) pairs in order: a cell's parameters, a result's provenance versions.
using Pairs = std::vector<std::pair<std::string, std::string>>;

std::string quote(const std::string& s);

class Json {
 public:
  Json& raw(const std::string& key, const std::string& json);
  Json& str(const std::string& key, const std::string& v) { return raw(key, quote(v)); }
  Json& num(const std::string& key, uint64_t v) { return raw(key, std::to_string(v)); }
  Json& boolean(const std::string& key, bool v) { return raw(key, v ? "true" : "false"); }
  template <typename T>
  Json& list(const std::string& key, const std::vector<T>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return raw(key, s + "]");
  }
  Json& strings(const std::string& key, const std::vector<std::string>& v);
  Json& pairs(const std::string& key, const Pairs& v);  // an object of string values
  Json& append(const Json& other);                      // the other object's fields, in order
  std::string text() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

// Writes one line to stdout and flushes it.
void printLine(const std::string& line);

}  // namespace wb
