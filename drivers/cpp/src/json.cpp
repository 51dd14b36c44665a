#include "json.h"

#include <cstdio>

namespace wb {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

Json& Json::raw(const std::string& key, const std::string& json) {
  body_ += (body_.empty() ? "" : ", ") + quote(key) + ": " + json;
  return *this;
}

Json& Json::strings(const std::string& key, const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + quote(v[i]);
  return raw(key, s + "]");
}

Json& Json::pairs(const std::string& key, const Pairs& v) {
  Json j;
  for (const auto& kv : v) j.str(kv.first, kv.second);
  return raw(key, j.text());
}

Json& Json::append(const Json& other) {
  if (!other.body_.empty()) body_ += (body_.empty() ? "" : ", ") + other.body_;
  return *this;
}

void printLine(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace wb
