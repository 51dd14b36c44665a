// Tests of the C++ driver against the golden files in testdata/rpc/ and against the
// protocol (docs/protocol.md): generator, first requests, check digests, server failures,
// client/server roles and usage errors.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common.h"
#include "registry.h"
#include "rng.h"

namespace {

const std::string kTestdata = WB_TESTDATA;
const std::string kDriver = WB_DRIVER;

// Non-comment lines of a golden file.
std::vector<std::string> dataLines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The digest of `iters` iterations of `kase` in checks.json (indent=1, sorted keys).
int64_t checkDigest(const std::string& kase, uint64_t iters) {
  std::string text = readFile(kTestdata + "/rpc/checks.json");
  size_t at = text.find("\"" + kase + "\":");
  EXPECT_NE(at, std::string::npos) << "no case " << kase << " in checks.json";
  size_t end = text.find('}', at);
  std::string key = "\"" + std::to_string(iters) + "\":";
  size_t k = text.find(key, at);
  EXPECT_TRUE(k != std::string::npos && k < end) << "no " << iters << " for " << kase;
  return std::stoll(text.substr(k + key.size()));
}

// ---- running the driver ----------------------------------------------------------------

struct Outcome {
  int status = -1;  // exit status, or -1 if killed by a signal
  std::string out, err;
};

std::string tempPath(const std::string& tag) {
  char tmpl[] = "/tmp/wirebench-test-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd >= 0) close(fd);
  return std::string(tmpl) + tag;
}

// In a child: makes `in` fd 3 and `out` fd 4 and closes `others` (so that pipes see EOF).
void plumb(int in, int out, const std::vector<int>& others) {
  int a = fcntl(in, F_DUPFD, 10), b = fcntl(out, F_DUPFD, 10);
  for (int fd : others) close(fd);
  close(in);
  close(out);
  dup2(a, 3);
  dup2(b, 4);
  close(a);
  close(b);
}

// Starts the driver with `args`; `setup` runs in the child before exec (fd plumbing).
pid_t spawn(const std::vector<std::string>& args, const std::string& outPath,
            const std::string& errPath, const std::function<void()>& setup) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setup) setup();
    int o = open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(o, 1);
    dup2(e, 2);
    close(o);
    close(e);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(kDriver.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(kDriver.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

Outcome finish(pid_t pid, const std::string& outPath, const std::string& errPath) {
  Outcome r;
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = readFile(outPath);
  r.err = readFile(errPath);
  unlink(outPath.c_str());
  unlink(errPath.c_str());
  return r;
}

Outcome driver(const std::vector<std::string>& args, const std::function<void()>& setup = {}) {
  std::string o = tempPath(".out"), e = tempPath(".err");
  return finish(spawn(args, o, e, setup), o, e);
}

// The integers of a JSON array field in one line of output, e.g. "check": [1, 2].
std::vector<int64_t> jsonInts(const std::string& json, const std::string& key) {
  std::vector<int64_t> v;
  size_t at = json.find("\"" + key + "\": [");
  if (at == std::string::npos) return v;
  std::stringstream ss(json.substr(json.find('[', at) + 1));
  std::string item;
  while (std::getline(ss, item, ',')) {
    v.push_back(std::stoll(item));
    if (item.find(']') != std::string::npos) break;
  }
  return v;
}

int64_t jsonInt(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return -1;
  return std::stoll(json.substr(at + key.size() + 4));
}

std::vector<std::string> rpcArgs(const std::string& kase, const std::string& lib,
                                 const std::string& mode, const std::string& compression,
                                 const std::string& reuse = "reuse") {
  return {"run",  "--suite",       "rpc",       "--case",  kase, "--lib", lib,
          "--mode", mode, "--compression", compression, "--reuse", reuse};
}

std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct LibCompression {
  std::string lib, compression;
};
const std::vector<LibCompression> kLibs = {
    {"capnp", "none"}, {"capnp", "packed"}, {"protobuf", "none"}, {"null", "none"}};

// ---- generator -------------------------------------------------------------------------

TEST(Generator, MatchesGoldenOutputs) {
  auto lines = dataLines(kTestdata + "/rpc/generator.txt");
  ASSERT_EQ(lines.size(), 1000u);
  wb::resetRng();
  for (size_t i = 0; i < lines.size(); ++i) {
    ASSERT_EQ(wb::nextRand(), std::stoul(lines[i])) << "output " << i;
  }
}

TEST(Generator, RandAndRandDouble) {
  wb::resetRng();
  uint32_t first = wb::nextRand();
  wb::resetRng();
  EXPECT_EQ(wb::rand(1000), first % 1000);
  wb::resetRng();
  EXPECT_DOUBLE_EQ(wb::randDouble(20), static_cast<double>(first) * 20 / 4294967295.0);
}

// ---- the first 20 requests of each case, through every library -------------------------

class FirstRequests : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(FirstRequests, MatchGolden) {
  const auto& [kase, lib] = GetParam();
  auto lines = dataLines(kTestdata + "/rpc/" + kase + ".txt");
  ASSERT_EQ(lines.size(), 20u);
  for (const std::string mode : {"object", "bytes"}) {
    for (bool reuse : {true, false}) {
      for (const auto& lc : kLibs) {
        if (lc.lib != lib) continue;
        auto cell = wb::findRpcLib(lib)->make(kase, lc.compression, reuse);
        ASSERT_TRUE(cell);
        wb::resetRng();
        for (size_t i = 0; i < lines.size(); ++i) {
          std::istringstream line(lines[i]);
          size_t index;
          int64_t value;
          line >> index >> value;
          ASSERT_EQ(index, i);
          wb::Tally t;  // one iteration: its digest is its answer
          if (mode == std::string("object")) {
            cell->object(1, t);
          } else {
            cell->bytes(1, t);
          }
          int64_t got = static_cast<int64_t>(t.check);
          EXPECT_EQ(got, value) << kase << " " << lib << " " << mode << " " << lc.compression
                                << (reuse ? " reuse" : " no-reuse") << " request " << i;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllCasesAndLibs, FirstRequests,
                         ::testing::Combine(::testing::Values("carsales", "catrank", "eval"),
                                            ::testing::Values("capnp", "protobuf", "null")),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

// ---- check digests, through the driver -------------------------------------------------

TEST(CheckDigests, MatchChecksJson) {
  for (const std::string kase : {"carsales", "catrank", "eval"}) {
    for (uint64_t iters : {1, 2, 5, 20}) {
      Outcome r = driver(plus(rpcArgs(kase, "capnp", "bytes", "packed"),
                          {"--iters", std::to_string(iters), "--samples", "2", "--warmup", "3"}));
      ASSERT_EQ(r.status, 0) << r.err;
      auto check = jsonInts(r.out, "check");
      ASSERT_EQ(check.size(), 2u) << r.out;
      EXPECT_EQ(check[0], checkDigest(kase, iters)) << kase << " " << iters;
      EXPECT_EQ(check[1], checkDigest(kase, iters)) << kase << " " << iters;
      EXPECT_EQ(jsonInt(r.out, "responses_checked"), static_cast<int64_t>(3 + 2 * iters));
    }
    for (const auto& lc : kLibs) {
      for (const std::string mode : {"object", "bytes", "pipe", "pipe-async"}) {
        if (mode == "object" && lc.compression != "none") continue;  // not a cell
        Outcome r = driver(plus(rpcArgs(kase, lc.lib, mode, lc.compression, "no-reuse"),
                            {"--iters", "10", "--samples", "1", "--warmup", "0"}));
        ASSERT_EQ(r.status, 0) << r.err;
        auto check = jsonInts(r.out, "check");
        ASSERT_EQ(check.size(), 1u) << r.out;
        EXPECT_EQ(check[0], checkDigest(kase, 10)) << kase << " " << lc.lib << " " << mode;
      }
    }
  }
}

TEST(CheckDigests, StandardCountForEval) {
  // 20000 iterations of the small eval case are quick; the digest is a signed i64 sum.
  Outcome r = driver(plus(rpcArgs("eval", "null", "object", "none"),
                      {"--iters", "20000", "--samples", "1", "--warmup", "0"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(jsonInts(r.out, "check").at(0), checkDigest("eval", 20000));
}

// ---- bytes: the pipe counts what the bytes mode counts, framing included ----------------

TEST(Bytes, CapnpPipeEqualsBytesMode) {
  for (const std::string compression : {"none", "packed"}) {
    std::vector<int64_t> counts;
    for (const std::string mode : {"bytes", "pipe", "pipe-async"}) {
      Outcome r = driver(plus(rpcArgs("carsales", "capnp", mode, compression),
                          {"--iters", "50", "--samples", "1", "--warmup", "2"}));
      ASSERT_EQ(r.status, 0) << r.err;
      counts.push_back(jsonInts(r.out, "bytes").at(0));
    }
    EXPECT_GT(counts[0], 0);
    EXPECT_EQ(counts[0], counts[1]) << compression;
    EXPECT_EQ(counts[0], counts[2]) << compression;
  }
}

TEST(Bytes, DelimitedPipeAddsOnlyPrefixes) {
  // protobuf varint prefixes are 1-3 bytes per message; null prefixes are 4 bytes.
  for (const std::string lib : {"protobuf", "null"}) {
    Outcome b = driver(plus(rpcArgs("eval", lib, "bytes", "none"), {"--iters", "100"}));
    Outcome p = driver(plus(rpcArgs("eval", lib, "pipe", "none"), {"--iters", "100"}));
    ASSERT_EQ(b.status, 0) << b.err;
    ASSERT_EQ(p.status, 0) << p.err;
    int64_t diff = jsonInts(p.out, "bytes").at(0) - jsonInts(b.out, "bytes").at(0);
    if (lib == "null") {
      EXPECT_EQ(diff, 200 * 4);
    } else {
      EXPECT_GE(diff, 200);
      EXPECT_LE(diff, 200 * 3);
    }
  }
}

// ---- client and server as separate processes -------------------------------------------

TEST(Roles, ClientAndServerOverPipes) {
  for (const auto& lc : kLibs) {
    for (const std::string mode : {"pipe", "pipe-async"}) {
      int toServer[2], toClient[2];
      ASSERT_EQ(pipe(toServer), 0);
      ASSERT_EQ(pipe(toClient), 0);
      auto base = rpcArgs("catrank", lc.lib, mode, lc.compression);
      std::string so = tempPath(".out"), se = tempPath(".err");
      std::string co = tempPath(".out"), ce = tempPath(".err");
      const std::vector<int> all = {toServer[0], toServer[1], toClient[0], toClient[1]};
      pid_t server = spawn(plus(base, {"--role", "server", "--in-fd", "3", "--out-fd", "4"}),
                           so, se, [&] { plumb(toServer[0], toClient[1], all); });
      pid_t client =
          spawn(plus(base, {"--role", "client", "--in-fd", "3", "--out-fd", "4", "--iters", "5",
                            "--samples", "3", "--warmup", "5"}),
                co, ce, [&] { plumb(toClient[0], toServer[1], all); });
      for (int fd : {toServer[0], toServer[1], toClient[0], toClient[1]}) close(fd);
      Outcome c = finish(client, co, ce);
      Outcome s = finish(server, so, se);
      ASSERT_EQ(c.status, 0) << lc.lib << " " << mode << " client: " << c.err;
      ASSERT_EQ(s.status, 0) << lc.lib << " " << mode << " server: " << s.err;
      EXPECT_NE(c.out.find("\"role\": \"client\""), std::string::npos) << c.out;
      EXPECT_NE(c.out.find("\"verified\": true"), std::string::npos) << c.out;
      EXPECT_NE(s.out.find("\"role\": \"server\""), std::string::npos) << s.out;
      EXPECT_EQ(jsonInt(s.out, "requests"), 5 + 3 * 5) << s.out;
      auto bytes = jsonInts(c.out, "bytes");
      ASSERT_EQ(bytes.size(), 3u);
      // The warm-up and every sample replay the same 5 requests, so the server saw 4 times
      // what one sample counts.
      EXPECT_EQ(bytes[0], bytes[1]);
      EXPECT_EQ(bytes[1], bytes[2]);
      EXPECT_EQ(jsonInt(s.out, "bytes_in") + jsonInt(s.out, "bytes_out"), 4 * bytes[0]) << s.out;
      auto check = jsonInts(c.out, "check");
      EXPECT_EQ(check.at(0), checkDigest("catrank", 5));
    }
  }
}

// ---- a server fed truncated or corrupt input fails with exit 1 -------------------------

// Captures one request as the client writes it: the client writes it to a file and then
// fails to read a response from /dev/null.
std::string captureRequest(const std::string& kase, const LibCompression& lc) {
  std::string path = tempPath(".req");
  Outcome r = driver(plus(rpcArgs(kase, lc.lib, "pipe", lc.compression),
                      {"--role", "client", "--in-fd", "3", "--out-fd", "4", "--iters", "1"}),
                 [&] {
                   plumb(open("/dev/null", O_RDONLY),
                         open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), {});
                 });
  EXPECT_EQ(r.status, 1) << "a client without a server must fail: " << r.out;
  EXPECT_FALSE(r.err.empty());
  std::string bytes = readFile(path);
  unlink(path.c_str());
  return bytes;
}

Outcome serveBytes(const std::string& kase, const LibCompression& lc, const std::string& input) {
  std::string path = tempPath(".in");
  {
    std::ofstream f(path, std::ios::binary);
    f << input;
  }
  Outcome r = driver(plus(rpcArgs(kase, lc.lib, "pipe", lc.compression),
                      {"--role", "server", "--in-fd", "3", "--out-fd", "4"}),
                 [&] {
                   plumb(open(path.c_str(), O_RDONLY), open("/dev/null", O_WRONLY), {});
                 });
  unlink(path.c_str());
  return r;
}

TEST(Server, AcceptsWholeMessagesAndRejectsDamage) {
  for (const std::string kase : {"carsales", "catrank", "eval"}) {
    for (const auto& lc : kLibs) {
      std::string what = kase + " " + lc.lib + " " + lc.compression;
      std::string request = captureRequest(kase, lc);
      ASSERT_GT(request.size(), 4u) << what;

      Outcome whole = serveBytes(kase, lc, request + request);
      EXPECT_EQ(whole.status, 0) << what << ": " << whole.err;
      EXPECT_EQ(jsonInt(whole.out, "requests"), 2) << what << ": " << whole.out;

      Outcome empty = serveBytes(kase, lc, "");
      EXPECT_EQ(empty.status, 0) << what << ": " << empty.err;
      EXPECT_EQ(jsonInt(empty.out, "requests"), 0) << what;

      for (size_t cut : {size_t{1}, request.size() / 2, request.size() - 1}) {
        Outcome truncated = serveBytes(kase, lc, request + request.substr(0, cut));
        EXPECT_EQ(truncated.status, 1) << what << " cut at " << cut << ": " << truncated.out;
        EXPECT_FALSE(truncated.err.empty()) << what;
        EXPECT_EQ(truncated.out.find("\"verified\""), std::string::npos) << what;
      }
    }
  }
}

TEST(Server, RejectsGarbage) {
  const std::map<std::string, std::string> garbage = {
      // a segment table claiming 2^32 segments
      {"capnp", std::string("\xff\xff\xff\xff\x00\x00\x00\x00", 8)},
      // a 3-byte message holding an unfinished tag varint
      {"protobuf", std::string("\x03\xff\xff\xff", 4)},
      // a 4-byte message announcing 2^32-1 cars
      {"null", std::string("\x04\x00\x00\x00\xff\xff\xff\xff", 8)},
  };
  for (const auto& lc : kLibs) {
    Outcome r = serveBytes("carsales", lc, garbage.at(lc.lib));
    EXPECT_EQ(r.status, 1) << lc.lib << " " << lc.compression << ": " << r.out;
    EXPECT_FALSE(r.err.empty());
  }
}

// ---- usage -----------------------------------------------------------------------------

TEST(Usage, BadCommandLinesExit2NamingTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string mentions;
  };
  const std::vector<Case> cases = {
      {{"frobnicate"}, "frobnicate"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none"), {"--iters", "1", "--bogus", "1"}),
       "--bogus"},
      {rpcArgs("eval", "capnp", "bytes", "none"), "--iters"},
      {plus(rpcArgs("eval", "protobuf", "bytes", "packed"), {"--iters", "1"}), "packed"},
      {plus(rpcArgs("eval", "null", "bytes", "packed"), {"--iters", "1"}), "packed"},
      {plus(rpcArgs("eval", "capnp", "object", "packed"), {"--iters", "1"}), "object"},
      {plus(rpcArgs("eval", "capnp", "teleport", "none"), {"--iters", "1"}), "teleport"},
      {plus(rpcArgs("nosuchcase", "capnp", "bytes", "none"), {"--iters", "1"}), "nosuchcase"},
      {plus(rpcArgs("eval", "flatbuffers", "bytes", "none"), {"--iters", "1"}), "flatbuffers"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none", "sometimes"), {"--iters", "1"}),
       "sometimes"},
      {plus(rpcArgs("eval", "capnp", "pipe", "none"), {"--iters", "1", "--role", "local"}),
       "local"},
      {plus(rpcArgs("eval", "capnp", "pipe", "none"), {"--iters", "1", "--role", "client"}),
       "--in-fd"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none"), {"--iters", "x"}), "--iters"},
      {{"run", "--case", "memcpy", "--lib", "memcpy", "--block", "3KiB", "--iters", "1"},
       "3KiB"},
      {{"run", "--case", "memcpy", "--lib", "memcpy", "--block", "1MiB", "--mode", "bytes",
        "--iters", "1"},
       "--mode"},
  };
  for (const auto& c : cases) {
    Outcome r = driver(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(r.status, 2) << joined << "\n" << r.err;
    EXPECT_NE(r.err.find(c.mentions), std::string::npos) << joined << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << joined;
  }
}

TEST(Info, ReportsVersionsAndFlags) {
  Outcome r = driver({"info"});
  ASSERT_EQ(r.status, 0);
  for (const char* s : {"\"protocol\": 1", "\"lang\": \"cpp\"", "\"capnp\": \"0.9.2\"",
                        "\"protobuf\": \"3.21.12\"", "\"compiler\": \"g++ ", "-O2 -DNDEBUG"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in " << r.out;
  }
}

TEST(List, OneLinePerCell) {
  Outcome r = driver({"list"});
  ASSERT_EQ(r.status, 0);
  size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  // rpc: 3 cases x 2 reuse x (capnp: object + 3 modes x 2 compressions; protobuf and
  // null: 4 modes); limit: 3 blocks.
  EXPECT_EQ(lines, 3u * 2 * ((1 + 3 * 2) + 4 + 4) + 3);
  EXPECT_EQ(r.out.find("\"lib\": \"protobuf\", \"params\": {\"mode\": \"bytes\", "
                       "\"compression\": \"packed\""),
            std::string::npos);
}

}  // namespace
