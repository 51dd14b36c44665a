// Suite `readbytes` (docs/protocol.md): its registry entry and its run. An iteration is a
// pass over --input (open, every byte through the strategy, close), timed on its own; a
// sample's time is the sum of its passes'. Every pass's value, warm-up included, is compared
// with the case's, outside the timed region.

#include <fcntl.h>
#include <gnu/libc-version.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../common.h"
#include "../registry.h"
#include "../result.h"
#include "readbytes.h"

namespace wb::readbytes {

namespace {

std::string hex(uint8_t b) {
  char s[8];
  std::snprintf(s, sizeof s, "0x%02x", b);
  return s;
}

}  // namespace

void badTag(uint64_t offset, uint8_t tag) {
  fail("byte offset " + std::to_string(offset) + ": tag " + hex(tag) + ", expected 0x08");
}

void overlongVarint(uint64_t offset, uint64_t start) {
  fail("byte offset " + std::to_string(offset) + ": the varint at offset " +
       std::to_string(start) + " is longer than 10 bytes");
}

void endInVarint(uint64_t offset, uint64_t start) {
  fail("byte offset " + std::to_string(offset) + ": end of file inside the varint at offset " +
       std::to_string(start));
}

void cannotOpen(const std::string& path) {
  fail("cannot open " + path + ": " + std::strerror(errno));
}

void readError(const std::string& path, const char* what) {
  fail(std::string(what) + " " + path + ": " + std::strerror(errno));
}

namespace {

const std::vector<std::pair<std::string, Case>> kCases = {
    {"count", Case::count}, {"sum", Case::sum}, {"varint", Case::varint}};

uint64_t expectedValue(Case kase) {
  switch (kase) {
    case Case::count:
      return kCountValue;
    case Case::sum:
      return kSumValue;
    case Case::varint:
      return kVarintValue;
  }
  return 0;
}

// The suite's library registry, in `list` order: one line per strategy, with the cache
// states it can have (null reads no file while timed, so it has no cold cell).
struct Library {
  std::string name;
  std::vector<std::string> caches;
  Factory make;
};

const std::vector<Library>& libraries() {
  static const std::vector<std::string> both = {"warm", "cold"};
  static const std::vector<Library> v = {
      {"null", {"warm"}, &makeNull},
      {"fread", both, &makeFread},
      {"mmap", both, &makeMmap},
      {"fgetc", both, &makeFgetc},
      {"fgetc_unlocked", both, &makeFgetcUnlocked},
      {"getc_unlocked", both, &makeGetcUnlocked},
      {"dlsym_fread", both, &makeDlsymFread},
      {"istreambuf_iterator", both, &makeIstreambufIterator},
      {"ifstream_get", both, &makeIfstreamGet},
  };
  return v;
}

// Provenance: every strategy reads through glibc; the iostream ones through libstdc++ too.
Pairs versionsOf(const std::string& lib) {
  Pairs v = {{"libc", std::string("glibc ") + gnu_get_libc_version()}};
#ifdef _GLIBCXX_RELEASE
  if (lib == "istreambuf_iterator" || lib == "ifstream_get") {
    v.push_back({"libstdc++", std::to_string(_GLIBCXX_RELEASE)});
  }
#endif
  return v;
}

const std::string& inputOf(const Run& run) {
  static const std::string none;
  for (const auto& [flag, value] : run.fixtures) {
    if (flag == "input") return value;
  }
  return none;
}

void prepare(Run& run) {
  if (run.role.empty()) run.role = "local";
  if (run.role != "local") {
    throw UsageError("--role " + run.role +
                     " is not possible in suite readbytes (its cells are local)");
  }
  if (inputOf(run).empty()) {
    throw UsageError("missing --input FILE (suite readbytes reads the data file of "
                     "docs/workloads.md §8)");
  }
}

// cache cold: the file's pages dropped from the page cache before a pass, untimed.
void dropCache(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) cannotOpen(path);
  int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  if (rc != 0) {
    fail("posix_fadvise(" + path + ", POSIX_FADV_DONTNEED): " + std::strerror(rc));
  }
}

int runCell(const Run& run) {
  const std::string& path = inputOf(run);
  // Before anything else, so that a missing file is named as such (null reads it next).
  {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) cannotOpen(path);
    ::close(fd);
  }
  Case kase = Case::count;
  for (const auto& [name, c] : kCases) {
    if (name == run.kase) kase = c;
  }
  std::unique_ptr<ReadCell> cell;
  for (const Library& lib : libraries()) {
    if (lib.name == run.lib->name) cell = lib.make(kase, path);
  }
  const bool cold = run.param("cache") == "cold";
  const uint64_t expected = expectedValue(kase);

  uint64_t passes = 0;  // passes run and checked, warm-up included
  auto onePass = [&](const std::string& where) {
    if (cold) dropCache(path);
    ++passes;
    Pass p;
    try {
      p = cell->pass();
    } catch (const Failure& e) {
      fail("readbytes " + run.kase + " " + run.lib->name + ", pass " + std::to_string(passes) +
           " (" + where + "), " + path + ": " + e.what());
    }
    if (p.value != expected) {
      fail("readbytes " + run.kase + " " + run.lib->name + ", pass " + std::to_string(passes) +
           " (" + where + "), " + path + ": value " + std::to_string(p.value) + ", expected " +
           std::to_string(expected));
    }
    if (p.bytes != kFileSize) {
      fail("readbytes " + run.kase + " " + run.lib->name + ", pass " + std::to_string(passes) +
           " (" + where + "), " + path + ": read " + std::to_string(p.bytes) +
           " bytes, expected " + std::to_string(kFileSize));
    }
    return p;
  };

  for (uint64_t i = 0; i < run.warmup; ++i) onePass("warm-up");
  std::vector<uint64_t> times, bytes, checks;
  for (uint64_t s = 0; s < run.samples; ++s) {
    uint64_t ns = 0, read = 0, check = 0;
    const std::string where = "sample " + std::to_string(s + 1);
    for (uint64_t i = 0; i < run.iters; ++i) {
      Pass p = onePass(where);
      ns += p.ns;
      read += p.bytes;
      check += p.value;
    }
    times.push_back(ns);
    bytes.push_back(read);
    checks.push_back(check);
  }

  Json evidence;
  evidence.list("check", checks).num("passes_checked", passes);
  printResult(run, "local", {{"time", "ns", run.iters, times}, {"bytes", "B", run.iters, bytes}},
              evidence);
  return 0;
}

Suite declare() {
  Suite s;
  s.name = "readbytes";
  for (const auto& c : kCases) s.cases.push_back(c.first);
  s.params = {{"cache", {"warm", "cold"}}};
  for (const Library& lib : libraries()) {
    s.libs.push_back({lib.name, {{"cache", lib.caches}}, versionsOf(lib.name)});
  }
  s.fixtures = {"input"};
  s.prepare = &prepare;
  s.run = &runCell;
  return s;
}

}  // namespace

const Suite& suite() {
  static const Suite s = declare();
  return s;
}

}  // namespace wb::readbytes
