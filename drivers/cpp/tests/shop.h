// The readbytes data of docs/workloads.md §8, written by the tests (the harness makes and
// checks its own): Shop { repeated int32 id = 1; } with ids 0 .. 2,999,999, not packed: for
// each id the tag byte 0x08, then the id as a base-128 varint, low groups first.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace wbtest {

inline std::string shopBytes(uint32_t ids = 3'000'000) {
  std::string out;
  out.reserve(12'886'336);
  for (uint32_t id = 0; id < ids; ++id) {
    out.push_back(0x08);
    uint32_t v = id;
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  return out;
}

// Writes `bytes` to `path` through a temporary file renamed into place, so that a reader never
// sees a partial file. False on an error.
inline bool writeAtomically(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fclose(f) == 0 && ok;
  return ok && std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace wbtest
