// Golden files of the codec suite (docs/protocol.md, `golden write` and `golden check`):
// <case>.<format>, the encoding of each case by the first library of each format, so that
// every language proves it reads every other language's bytes.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "../common.h"
#include "../io.h"
#include "../registry.h"
#include "codec.h"

namespace wb::codec {
namespace {

namespace fs = std::filesystem;

// A library's default cell (each parameter's first value).
std::unique_ptr<CodecCell> defaultCell(const CodecLib& lib, const Case& c) {
  return lib.make(c, variantOf(lib.buffers.front(), lib.strings.front(),
                               lib.validations.front()));
}

// The library that writes a format's golden file: its first that serializes, or nullptr.
const CodecLib* writerOf(const std::string& format) {
  for (const CodecLib& lib : libs()) {
    if (lib.format == format && lib.serializes()) return &lib;
  }
  return nullptr;
}

std::vector<std::string> formats() {
  std::vector<std::string> v;
  for (const CodecLib& lib : libs()) {
    if (std::find(v.begin(), v.end(), lib.format) == v.end()) v.push_back(lib.format);
  }
  return v;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path + ": cannot open");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Bytes bytesOf(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

void goldenWrite(const std::string& dir, const GoldenReport& report) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail(dir + ": cannot create directory: " + ec.message());
  for (const std::string& kase : goldenCases()) {
    const Case& c = findCase(kase);
    for (const std::string& format : formats()) {
      const CodecLib* lib = writerOf(format);
      if (lib == nullptr) continue;
      auto cell = defaultCell(*lib, c);
      Bytes b = cell->encoding();
      std::string name = kase + "." + format, path = (fs::path(dir) / name).string();
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(b.data), static_cast<std::streamsize>(b.size));
      out.close();
      if (!out) fail(path + ": write failed");
      GoldenFile f;
      f.name = name;
      f.records = c.records.size();
      f.bytes = b.size;
      report(f);
    }
  }
}

void goldenCheck(const std::string& dir, const GoldenReport& report) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) fail(dir + ": cannot read directory: " + ec.message());
  std::sort(names.begin(), names.end());

  const std::vector<std::string> known = formats();
  for (const std::string& name : names) {
    // Only <case>.<format> of a codec case; the other suites' files are theirs.
    size_t dot = name.find('.');
    if (dot == std::string::npos || name.find('.', dot + 1) != std::string::npos) continue;
    std::string kase = name.substr(0, dot), format = name.substr(dot + 1);
    const auto& all = goldenCases();
    if (std::find(all.begin(), all.end(), kase) == all.end()) continue;
    if (std::find(known.begin(), known.end(), format) == known.end()) {
      GoldenFile f;
      f.name = name;
      f.skipped = true;
      report(f);
      continue;
    }
    const Case& c = findCase(kase);
    std::string path = (fs::path(dir) / name).string();
    std::string bytes = readFile(path);
    GoldenFile f;
    f.name = name;
    f.records = c.records.size();
    f.bytes = bytes.size();
    for (const CodecLib& lib : libs()) {
      if (lib.format != format || !lib.has(Op::deserialize)) continue;
      Records got;
      try {
        got = defaultCell(lib, c)->decode(bytesOf(bytes));
      } catch (...) {
        fail(path + ": lib " + lib.name + ": " + describeCurrentException());
      }
      std::string d = difference(c.records, got);
      if (!d.empty()) fail(path + ": lib " + lib.name + ": " + d);
      f.libs.push_back(lib.name);
    }
    const CodecLib* writer = writerOf(format);
    f.sameBytes = writer != nullptr && defaultCell(*writer, c)->encoding() == bytesOf(bytes);
    report(f);
  }
}

}  // namespace wb::codec
