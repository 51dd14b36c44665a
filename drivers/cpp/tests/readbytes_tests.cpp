// Tests of the readbytes suite (docs/protocol.md, suite readbytes): the consumers on small
// buffers (every varint error with its offset), every strategy on the data file and on small
// files around its buffer's size, the driver's result and its failures (a truncated file, a
// corrupted tag, a file it cannot open) and usage errors. The data file is the ctest fixture
// readbytes/data's (written here too when the binary runs outside ctest).

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common.h"
#include "readbytes/readbytes.h"
#include "registry.h"
#include "result.h"
#include "shop.h"
#include "support.h"

namespace {

using namespace wbtest;
namespace rb = wb::readbytes;

const std::string& shop() {
  static const std::string path = [] {
    std::string p = WB_SHOP;
    struct stat st {};
    if (stat(p.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_size) != rb::kFileSize) {
      std::filesystem::create_directories(std::filesystem::path(p).parent_path());
      EXPECT_TRUE(writeAtomically(p, shopBytes())) << p;
    }
    return p;
  }();
  return path;
}

// A temporary file holding `bytes`, removed with the object.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& bytes) : path(tempPath(".pb")) {
    EXPECT_TRUE(writeAtomically(path, bytes)) << path;
  }
  ~TempFile() { unlink(path.c_str()); }
};

// The message of the wb::Failure that `f` throws, or "" if it throws none.
std::string failureOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const wb::Failure& e) {
    return e.what();
  }
  return "";
}

// ---- the consumers, on memory ----------------------------------------------------------

struct MemorySource {
  const std::string& s;
  size_t at = 0;
  bool next(uint8_t& b) {
    if (at == s.size()) return false;
    b = static_cast<uint8_t>(s[at++]);
    return true;
  }
};

template <typename Consumer>
rb::Tally consume(const std::string& bytes) {
  MemorySource source{bytes};
  return Consumer::run(source);
}

std::string varintError(const std::string& bytes) {
  return failureOf([&] { consume<rb::Varint>(bytes); });
}

TEST(Consumers, CountAndSum) {
  EXPECT_EQ(consume<rb::Count>("").value, 0u);
  EXPECT_EQ(consume<rb::Sum>("").value, 0u);
  const std::string bytes("\x00\xff\x01\x80", 4);
  EXPECT_EQ(consume<rb::Count>(bytes).value, 4u);
  EXPECT_EQ(consume<rb::Count>(bytes).bytes, 4u);
  EXPECT_EQ(consume<rb::Sum>(bytes).value, 0u + 255 + 1 + 128 + 4);
  EXPECT_EQ(consume<rb::Sum>(bytes).bytes, 4u);
}

TEST(Consumers, TheDataFileHasTheProtocolsValues) {
  const std::string bytes = shopBytes();
  ASSERT_EQ(bytes.size(), rb::kFileSize);
  EXPECT_EQ(consume<rb::Count>(bytes).value, rb::kCountValue);
  EXPECT_EQ(consume<rb::Sum>(bytes).value, rb::kSumValue);
  rb::Tally t = consume<rb::Varint>(bytes);
  EXPECT_EQ(t.value, rb::kVarintValue);
  EXPECT_EQ(t.bytes, rb::kFileSize);
  EXPECT_EQ(consume<rb::Varint>(shopBytes(1000)).value, 999u * 1000 / 2);
}

TEST(Consumers, VarintValues) {
  using std::string;
  EXPECT_EQ(consume<rb::Varint>("").value, 0u);
  EXPECT_EQ(consume<rb::Varint>(string("\x08\x00", 2)).value, 0u);
  EXPECT_EQ(consume<rb::Varint>("\x08\x96\x01").value, 150u);  // protobuf's own example
  EXPECT_EQ(consume<rb::Varint>("\x08\x96\x01\x08\x7f").value, 150u + 127);
  // Ten bytes, the most there may be: every bit of a uint64_t.
  EXPECT_EQ(consume<rb::Varint>("\x08" + string(9, '\xff') + "\x01").value, UINT64_MAX);
  EXPECT_EQ(consume<rb::Varint>("\x08" + string(9, '\x80') + "\x01").value, uint64_t{1} << 63);
  // Padded with continuation groups of zero, still at most ten bytes.
  EXPECT_EQ(consume<rb::Varint>(string("\x08\x81\x80\x80\x00", 5)).value, 1u);
}

TEST(Consumers, VarintErrorsNameTheByteOffset) {
  using std::string;
  const string three = shopBytes(3);  // 08 00 08 01 08 02
  ASSERT_EQ(three.size(), 6u);
  const std::vector<std::pair<string, string>> cases = {
      {"\x0a\x01", "byte offset 0: tag 0x0a, expected 0x08"},
      {three + "\x10\x01", "byte offset 6: tag 0x10, expected 0x08"},
      {three + "\x09\x01", "byte offset 6: tag 0x09, expected 0x08"},
      {string("\x00", 1), "byte offset 0: tag 0x00, expected 0x08"},
      {"\x08" + string(10, '\x80') + "\x01",
       "byte offset 11: the varint at offset 1 is longer than 10 bytes"},
      // Ten continuation bytes are too many whatever follows, the end of the file included.
      {"\x08" + string(10, '\xff'),
       "byte offset 11: the varint at offset 1 is longer than 10 bytes"},
      {three + "\x08" + string(11, '\xff'),
       "byte offset 17: the varint at offset 7 is longer than 10 bytes"},
      {"\x08", "byte offset 1: end of file inside the varint at offset 1"},
      {three + "\x08\x80\x80", "byte offset 9: end of file inside the varint at offset 7"},
      {"\x08" + string(9, '\xff'), "byte offset 10: end of file inside the varint at offset 1"},
  };
  for (const auto& [bytes, message] : cases) {
    EXPECT_EQ(varintError(bytes), message) << bytes.size() << " bytes";
  }
}

// ---- the strategies, in process --------------------------------------------------------

const std::vector<std::pair<std::string, rb::Factory>> kStrategies = {
    {"null", &rb::makeNull},
    {"fread", &rb::makeFread},
    {"mmap", &rb::makeMmap},
    {"fgetc", &rb::makeFgetc},
    {"fgetc_unlocked", &rb::makeFgetcUnlocked},
    {"getc_unlocked", &rb::makeGetcUnlocked},
    {"dlsym_fread", &rb::makeDlsymFread},
    {"istreambuf_iterator", &rb::makeIstreambufIterator},
    {"ifstream_get", &rb::makeIfstreamGet},
};

const std::vector<std::pair<std::string, rb::Case>> kCases = {
    {"count", rb::Case::count}, {"sum", rb::Case::sum}, {"varint", rb::Case::varint}};

const wb::Suite& suite() {
  const wb::Suite* s = wb::findSuite("readbytes");
  EXPECT_NE(s, nullptr);
  return *s;
}

TEST(Strategies, TheRegistryListsEveryStrategyInOrder) {
  std::vector<std::string> names;
  for (const auto& s : kStrategies) names.push_back(s.first);
  EXPECT_EQ(suite().libNames(), names);
  EXPECT_EQ(suite().cases, (std::vector<std::string>{"count", "sum", "varint"}));
  EXPECT_EQ(suite().fixtures, (std::vector<std::string>{"input"}));
  const wb::Param& cache = *suite().findParam("cache");
  for (const wb::Lib& lib : suite().libs) {
    auto want = lib.name == "null" ? std::vector<std::string>{"warm"}
                                   : std::vector<std::string>{"warm", "cold"};
    EXPECT_EQ(lib.values(cache), want) << lib.name;
  }
}

TEST(Strategies, EachReadsTheDataFile) {
  const std::vector<uint64_t> values = {rb::kCountValue, rb::kSumValue, rb::kVarintValue};
  for (const auto& [name, make] : kStrategies) {
    for (size_t c = 0; c < kCases.size(); ++c) {
      auto cell = make(kCases[c].second, shop());
      // Two passes: each opens, reads and closes the file anew.
      for (int pass = 0; pass < 2; ++pass) {
        rb::Pass p = cell->pass();
        EXPECT_EQ(p.value, values[c]) << name << " " << kCases[c].first;
        EXPECT_EQ(p.bytes, rb::kFileSize) << name << " " << kCases[c].first;
        EXPECT_GT(p.ns, 0u) << name;
      }
    }
  }
}

// Every byte value, `n` bytes.
std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7 + i / 256) & 0xff);
  return s;
}

TEST(Strategies, AgreeWithTheConsumersAroundTheBufferSize) {
  std::vector<std::string> files = {"", "\x08\x05"};
  for (size_t n : {rb::kBufferSize - 1, rb::kBufferSize, rb::kBufferSize + 1,
                   2 * rb::kBufferSize, 3 * rb::kBufferSize + 17}) {
    files.push_back(pattern(n));
  }
  const std::string ids = shopBytes(40'000);  // three 64 KiB buffers' worth
  ASSERT_GT(ids.size(), 2 * rb::kBufferSize);
  files.push_back(ids);
  for (const std::string& bytes : files) {
    TempFile f(bytes);
    bool varint = bytes.size() <= 2 || bytes == ids;
    for (const auto& [name, make] : kStrategies) {
      rb::Pass count = make(rb::Case::count, f.path)->pass();
      rb::Pass sum = make(rb::Case::sum, f.path)->pass();
      EXPECT_EQ(count.value, consume<rb::Count>(bytes).value) << name << " " << bytes.size();
      EXPECT_EQ(sum.value, consume<rb::Sum>(bytes).value) << name << " " << bytes.size();
      EXPECT_EQ(sum.bytes, bytes.size()) << name;
      if (varint) {
        rb::Pass v = make(rb::Case::varint, f.path)->pass();
        EXPECT_EQ(v.value, consume<rb::Varint>(bytes).value) << name << " " << bytes.size();
      }
    }
  }
}

TEST(Strategies, VarintErrorsThroughEverySource) {
  std::string bytes = shopBytes(40'000);
  const size_t at = shopBytes(30'000).size();  // past the first buffer
  bytes[at] = '\x1a';
  TempFile bad(bytes);
  TempFile cut(shopBytes(40'000).substr(0, bytes.size() - 1));
  // 39,999 takes three bytes: its varint starts three bytes before the end.
  const std::string end = "byte offset " + std::to_string(bytes.size() - 1) +
                          ": end of file inside the varint at offset " +
                          std::to_string(bytes.size() - 3);
  for (const auto& strategy : kStrategies) {
    // C++17 lambdas cannot capture structured bindings.
    const std::string& name = strategy.first;
    rb::Factory make = strategy.second;
    EXPECT_EQ(failureOf([&] { make(rb::Case::varint, bad.path)->pass(); }),
              "byte offset " + std::to_string(at) + ": tag 0x1a, expected 0x08")
        << name;
    EXPECT_EQ(failureOf([&] { make(rb::Case::varint, cut.path)->pass(); }), end) << name;
  }
}

TEST(Strategies, AFileThatCannotBeOpenedIsNamed) {
  const std::string missing = "/nonexistent/wirebench/shop.pb";
  for (const auto& strategy : kStrategies) {
    rb::Factory make = strategy.second;
    std::string why = failureOf([&] { make(rb::Case::count, missing)->pass(); });
    EXPECT_EQ(why.rfind("cannot open " + missing + ": ", 0), 0u) << strategy.first << ": " << why;
  }
}

// ---- the driver ------------------------------------------------------------------------

std::vector<std::string> runArgs(const std::string& kase, const std::string& lib,
                                 const std::string& cache, const std::string& input) {
  return {"run",   "--suite", "readbytes", "--case",  kase,
          "--lib", lib,       "--cache",   cache,     "--input", input};
}

const std::vector<std::string> kOnePass = {"--iters", "1", "--samples", "1", "--warmup", "0"};

TEST(Driver, ResultHasTheMetricsAndTheEvidence) {
  const std::vector<std::pair<std::string, uint64_t>> cases = {
      {"count", rb::kCountValue}, {"sum", rb::kSumValue}, {"varint", rb::kVarintValue}};
  for (const auto& [kase, value] : cases) {
    for (const char* lib : {"fread", "null"}) {
      Outcome r = driver(plus(runArgs(kase, lib, "warm", shop()),
                              {"--iters", "2", "--samples", "3", "--warmup", "1"}));
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(r.out.rfind("{\"protocol\": 2, \"lang\": \"cpp\", \"toolchain\": \"" +
                                std::string(wb::toolchain()) +
                                "\", \"driver\": \"wirebench-cpp\", \"suite\": \"readbytes\", "
                                "\"case\": \"" + kase + "\", \"lib\": \"" + lib +
                                "\", \"params\": {\"cache\": \"warm\"}, \"role\": \"local\", "
                                "\"warmup\": 1, \"verified\": true, \"metrics\": {\"time\": "
                                "{\"unit\": \"ns\", \"iters\": 2, \"samples\": [",
                            0),
                0u)
          << r.out;
      EXPECT_EQ(metricSamples(r.out, "time").size(), 3u) << r.out;
      EXPECT_NE(r.out.find("\"bytes\": {\"unit\": \"B\", \"iters\": 2, \"samples\": ["),
                std::string::npos)
          << r.out;
      const auto read = static_cast<int64_t>(2 * rb::kFileSize);
      EXPECT_EQ(metricSamples(r.out, "bytes"), (std::vector<int64_t>{read, read, read}));
      const auto check = static_cast<int64_t>(2 * value);
      EXPECT_EQ(jsonInts(r.out, "check"), (std::vector<int64_t>{check, check, check}));
      EXPECT_EQ(jsonInt(r.out, "passes_checked"), 1 + 3 * 2) << r.out;
      EXPECT_NE(r.out.find("\"versions\": {\"compiler\": \"" + wb::compilerVersion() +
                           "\", \"libc\": \"glibc "),
                std::string::npos)
          << r.out;
    }
  }
}

TEST(Driver, ColdRunsAndSaysSo) {
  Outcome r = driver(plus(runArgs("count", "mmap", "cold", shop()),
                          {"--iters", "1", "--samples", "1", "--warmup", "1"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"params\": {\"cache\": \"cold\"}"), std::string::npos) << r.out;
  EXPECT_EQ(jsonInt(r.out, "passes_checked"), 2) << r.out;
}

// Exit 1, nothing on stdout, and `message` in stderr.
void expectFailure(const std::vector<std::string>& args, const std::string& message) {
  Outcome r = driver(args);
  std::string line;
  for (const auto& a : args) line += a + " ";
  EXPECT_EQ(r.status, 1) << line << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << line << "\n" << r.out;
  EXPECT_NE(r.err.find(message), std::string::npos) << line << "\n" << r.err;
}

TEST(Driver, ATruncatedFileFailsNamingThePassAndTheOffset) {
  const std::string whole = shopBytes();
  TempFile cut(whole.substr(0, whole.size() - 1));
  const std::vector<std::string> warm = {"--iters", "1", "--samples", "1", "--warmup", "2"};
  expectFailure(plus(runArgs("count", "fread", "warm", cut.path), warm),
                "readbytes count fread, pass 1 (warm-up), " + cut.path +
                    ": value 12886335, expected 12886336");
  expectFailure(plus(runArgs("sum", "mmap", "warm", cut.path), kOnePass),
                "readbytes sum mmap, pass 1 (sample 1), " + cut.path + ": value ");
  // 2,999,999 takes four bytes: its tag is at 12,886,331.
  expectFailure(plus(runArgs("varint", "getc_unlocked", "warm", cut.path), warm),
                "readbytes varint getc_unlocked, pass 1 (warm-up), " + cut.path +
                    ": byte offset 12886335: end of file inside the varint at offset 12886332");
}

TEST(Driver, ACorruptedTagFailsNamingTheOffset) {
  std::string bytes = shopBytes();
  const size_t at = shopBytes(1000).size();  // the tag of id 1000
  bytes[at] = '\x09';
  TempFile bad(bytes);
  for (const char* lib : {"null", "fread", "ifstream_get"}) {
    expectFailure(plus(runArgs("varint", lib, "warm", bad.path), kOnePass),
                  "pass 1 (sample 1), " + bad.path + ": byte offset " + std::to_string(at) +
                      ": tag 0x09, expected 0x08");
  }
  // The sum sees one more; count sees nothing wrong.
  expectFailure(plus(runArgs("sum", "fgetc", "warm", bad.path), kOnePass),
                ": value 1457733665, expected 1457733664");
  Outcome r = driver(plus(runArgs("count", "fgetc", "warm", bad.path), kOnePass));
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(Driver, AFileThatCannotBeOpenedIsExit1NamingIt) {
  for (const char* lib : {"null", "mmap", "istreambuf_iterator"}) {
    expectFailure(plus(runArgs("count", lib, "warm", "/nonexistent/shop.pb"), kOnePass),
                  "cannot open /nonexistent/shop.pb: No such file or directory");
  }
}

TEST(Driver, BadCommandLinesExit2NamingTheProblem) {
  const std::string input = shop();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--suite", "readbytes", "--case", "count", "--lib", "fread", "--cache", "warm",
        "--iters", "1"},
       "missing --input FILE"},
      {plus(runArgs("count", "fscanf", "warm", input), kOnePass),
       "unknown lib 'fscanf' for suite readbytes (one of: null, fread, mmap, fgetc, "
       "fgetc_unlocked, getc_unlocked, dlsym_fread, istreambuf_iterator, ifstream_get)"},
      {plus(runArgs("count", "null", "cold", input), kOnePass),
       "unknown value for --cache: 'cold' for lib null (one of: warm)"},
      {plus(runArgs("count", "fread", "tepid", input), kOnePass),
       "unknown value for --cache: 'tepid' (one of: warm, cold)"},
      {{"run", "--suite", "readbytes", "--case", "sum", "--lib", "mmap", "--input", input,
        "--iters", "1"},
       "missing --cache (one of: warm, cold)"},
      {plus(runArgs("lines", "fread", "warm", input), kOnePass),
       "case 'lines' is not in suite readbytes (one of: count, sum, varint)"},
      {plus(runArgs("count", "fread", "warm", input), {"--iters", "1", "--work-dir", "/tmp"}),
       "flag --work-dir is a fixture that suite readbytes does not take (its fixtures: input)"},
      {plus(runArgs("count", "fread", "warm", input), {"--iters", "1", "--role", "server"}),
       "--role server is not possible in suite readbytes"},
      {runArgs("count", "fread", "warm", input), "missing --iters"},
  };
  for (const auto& [args, message] : cases) {
    Outcome r = driver(args);
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(r.status, 2) << line << "\n" << r.err;
    EXPECT_NE(firstLine(r.err).find("usage error: " + message), std::string::npos)
        << line << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << line;
  }
}

TEST(List, ReadbytesCellsInTheProtocolsOrder) {
  Outcome r = driver({"list"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> got;
  std::stringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("{\"suite\": \"readbytes\"", 0) == 0) got.push_back(line);
  }
  std::vector<std::string> want;
  for (const char* kase : {"count", "sum", "varint"}) {
    for (const auto& lib : kStrategies) {
      for (const char* cache : {"warm", "cold"}) {
        if (lib.first == "null" && std::string(cache) == "cold") continue;
        want.push_back(std::string("{\"suite\": \"readbytes\", \"case\": \"") + kase +
                       "\", \"lib\": \"" + lib.first + "\", \"params\": {\"cache\": \"" + cache +
                       "\"}}");
      }
    }
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(got.size(), 3u * 17);
}

}  // namespace
