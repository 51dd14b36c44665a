// Tests of the C++ driver against the golden files in testdata/rpc/ and testdata/golden/cpp/
// and against the protocol (docs/protocol.md, version 2): generator, first requests, check
// digests, results and their metrics, server failures, client/server roles, golden messages,
// the registry's `list`, usage errors, and the fuzz targets and their named regressions.

#include <capnp/serialize-packed.h>
#include <capnp/serialize.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <kj/io.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common.h"
#include "registry.h"
#include "result.h"
#include "support.h"
#include "rng.h"
#include "codec/codec.h"
#include "rpc/rpc.h"
#include "../fuzz/targets.h"

namespace {

using namespace wbtest;

const std::string kTestdata = WB_TESTDATA;
const std::string kToolchain = wb::toolchain();

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

std::vector<std::string> rpcArgs(const std::string& kase, const std::string& lib,
                                 const std::string& mode, const std::string& compression,
                                 const std::string& reuse = "reuse") {
  return {"run",  "--suite",       "rpc",       "--case",  kase, "--lib", lib,
          "--mode", mode, "--compression", compression, "--reuse", reuse};
}

struct LibCompression {
  std::string lib, compression;
};

// Every (library, compression) of the rpc suite's registry.
std::vector<LibCompression> libCompressions() {
  std::vector<LibCompression> v;
  for (const auto& lib : wb::rpc::libs()) {
    for (const auto& c : lib.compressions) v.push_back({lib.name, c});
  }
  return v;
}
const std::vector<LibCompression> kLibs = libCompressions();

TEST(Registry, HasTheReferenceLibrariesAndCompressions) {
  // What the golden files and the other drivers expect of the C++ driver's registry.
  std::vector<std::string> got;
  for (const auto& lc : kLibs) got.push_back(lc.lib + "/" + lc.compression);
  EXPECT_EQ(got, (std::vector<std::string>{"capnp/none", "capnp/packed", "protobuf/none",
                                           "null/none"}));
}

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
        auto cell = wb::rpc::findLib(lib)->make(kase, lc.compression, reuse);
        ASSERT_TRUE(cell);
        wb::resetRng();
        for (size_t i = 0; i < lines.size(); ++i) {
          std::istringstream line(lines[i]);
          size_t index;
          int64_t value;
          line >> index >> value;
          ASSERT_EQ(index, i);
          wb::rpc::Tally t;  // one iteration: its digest is its answer
          cell->run(mode == std::string("object") ? wb::rpc::Mode::object : wb::rpc::Mode::bytes,
                    1, t);
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
      counts.push_back(metricSamples(r.out, "bytes").at(0));
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
    int64_t diff = metricSamples(p.out, "bytes").at(0) - metricSamples(b.out, "bytes").at(0);
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
      EXPECT_EQ(s.out.rfind("{\"protocol\": 2, \"lang\": \"cpp\", \"toolchain\": \"" +
                                kToolchain +
                                "\", \"driver\": \"wirebench-cpp\", \"suite\": \"rpc\", "
                                "\"case\": \"catrank\", \"lib\": \"" + lc.lib + "\", ",
                            0),
                0u)
          << s.out;
      EXPECT_NE(s.out.find("\"role\": \"server\""), std::string::npos) << s.out;
      EXPECT_EQ(jsonInt(s.out, "requests"), 5 + 3 * 5) << s.out;
      auto bytes = metricSamples(c.out, "bytes");
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

// ---- golden messages: testdata/golden/cpp ----------------------------------------------

namespace fs = std::filesystem;

const std::string kGolden = kTestdata + "/golden/cpp";

std::vector<std::string> fileNames(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// <case>.<lib>.<compression> of every golden pair the driver writes.
std::vector<std::string> goldenStems() {
  std::vector<std::string> stems;
  for (const std::string kase : {"carsales", "catrank", "eval"}) {
    for (const auto& lc : kLibs) stems.push_back(kase + "." + lc.lib + "." + lc.compression);
  }
  return stems;
}

// <case>.<format> of every codec golden file the driver writes: per case, each format with
// a library that serializes.
std::vector<std::string> codecGoldenNames() {
  std::vector<std::string> names;
  for (const std::string& kase : wb::codec::goldenCases()) {
    for (const auto& lib : wb::codec::libs()) {
      std::string name = kase + "." + lib.format;
      if (lib.serializes() && std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  return names;
}

std::string okLine(const std::string& file) {
  return "{\"file\": \"" + file + "\", \"messages\": 5, \"ok\": true}";
}

TEST(Golden, CheckPassesOnTestdata) {
  Outcome r = driver({"golden", "check", kGolden});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& stem : goldenStems()) {
    for (const std::string ext : {".requests", ".responses"}) {
      EXPECT_NE(r.out.find(okLine(stem + ext) + "\n"), std::string::npos) << stem << ext;
    }
  }
  for (const auto& name : codecGoldenNames()) {
    EXPECT_NE(r.out.find("{\"file\": \"" + name + "\", \"libs\": ["), std::string::npos) << name;
  }
  // logs.json is read by every JSON library the registry has.
  std::string jsonLibs;
  for (const wb::codec::CodecLib& lib : wb::codec::libs()) {
    if (lib.format == "json" && lib.has(wb::codec::Op::deserialize)) {
      jsonLibs += (jsonLibs.empty() ? "\"" : ", \"") + lib.name + "\"";
    }
  }
  EXPECT_NE(r.out.find("{\"file\": \"logs.json\", \"libs\": [" + jsonLibs +
                       "], \"records\": 1000, \"same_bytes\": true, \"ok\": true}"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("skipped"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"same_bytes\": false"), std::string::npos) << r.out;
}

// The files testdata/golden/cpp holds are what this build writes, byte for byte. A library
// upgrade that changes the wire format (capnp's or protobuf's encoding of the same values)
// fails here: then the other languages' drivers must be checked against the new bytes
// (`golden check`) before testdata/golden/cpp is rewritten with `golden write`.
TEST(Golden, WriteIsByteIdenticalToTestdata) {
  std::string dir = tempDir();
  Outcome r = driver({"golden", "write", dir + "/new"});  // creates the directory
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> expected;
  for (const auto& stem : goldenStems()) {
    for (const std::string ext : {".requests", ".responses"}) {
      std::string name = stem + ext;
      expected.push_back(name);
      std::string bytes = readFile(kGolden + "/" + name);
      EXPECT_NE(r.out.find("{\"file\": \"" + name + "\", \"messages\": 5, \"bytes\": " +
                           std::to_string(bytes.size()) + "}\n"),
                std::string::npos)
          << name << " in " << r.out;
      EXPECT_TRUE(readFile(dir + "/new/" + name) == bytes)
          << name << " differs from " << kGolden << "/" << name;
    }
  }
  for (const auto& name : codecGoldenNames()) {
    expected.push_back(name);
    EXPECT_TRUE(readFile(dir + "/new/" + name) == readFile(kGolden + "/" + name))
        << name << " differs from " << kGolden << "/" << name;
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(fileNames(dir + "/new"), expected);
  EXPECT_EQ(fileNames(kGolden), expected);
  fs::remove_all(dir);
}

// The golden files are exactly what crosses a pipe: a pipe client that reads the golden
// responses writes the golden requests, and a pipe server fed the golden requests writes
// the golden responses.
TEST(Golden, FilesAreWhatCrossesAPipe) {
  for (const auto& stem : goldenStems()) {
    std::string kase = stem.substr(0, stem.find('.'));
    std::string rest = stem.substr(kase.size() + 1);
    std::string lib = rest.substr(0, rest.find('.'));
    std::string compression = rest.substr(lib.size() + 1);
    std::string requests = kGolden + "/" + stem + ".requests";
    std::string responses = kGolden + "/" + stem + ".responses";
    auto base = rpcArgs(kase, lib, "pipe", compression, "reuse");
    std::string written = tempPath(".out");

    Outcome c = driver(plus(base, {"--role", "client", "--in-fd", "3", "--out-fd", "4",
                                   "--iters", "5", "--samples", "1", "--warmup", "0"}),
                       [&] {
                         plumb(open(responses.c_str(), O_RDONLY),
                               open(written.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), {});
                       });
    ASSERT_EQ(c.status, 0) << stem << " client: " << c.err;
    EXPECT_NE(c.out.find("\"verified\": true"), std::string::npos) << c.out;
    EXPECT_TRUE(readFile(written) == readFile(requests)) << stem << ": the client's requests";

    Outcome s = driver(plus(base, {"--role", "server", "--in-fd", "3", "--out-fd", "4"}), [&] {
      plumb(open(requests.c_str(), O_RDONLY),
            open(written.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), {});
    });
    ASSERT_EQ(s.status, 0) << stem << " server: " << s.err;
    EXPECT_EQ(jsonInt(s.out, "requests"), 5) << s.out;
    EXPECT_TRUE(readFile(written) == readFile(responses)) << stem << ": the server's responses";
    unlink(written.c_str());
  }
}

// A copy of one golden pair, damaged by `damage`, in a directory of its own; `golden check`
// on it must exit 1, naming the file and the message, and not pass that file.
void expectCheckFails(const std::string& file, const std::function<void(std::string&)>& damage,
                      const std::string& message) {
  std::string dir = tempDir();
  std::string stem = file.substr(0, file.rfind('.'));
  for (const std::string ext : {".requests", ".responses"}) {
    fs::copy_file(kGolden + "/" + stem + ext, dir + "/" + stem + ext);
  }
  std::string bytes = readFile(dir + "/" + file);
  damage(bytes);
  {
    std::ofstream out(dir + "/" + file, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  Outcome r = driver({"golden", "check", dir});
  EXPECT_EQ(r.status, 1) << file << ": " << r.out;
  EXPECT_NE(r.err.find(dir + "/" + file + ": " + message), std::string::npos)
      << file << ": " << r.err;
  EXPECT_EQ(r.out.find(okLine(file)), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(Golden, CheckFailsOnAFlippedByte) {
  struct Flip {
    std::string file;
    long offset;  // from the end if negative
    std::string message;
  };
  const std::vector<Flip> flips = {
      // An answer: null's EvaluationResult value; capnp's TotalValue amount (after an
      // 8-byte segment table and the root pointer); protobuf's amount varint, last byte.
      {"eval.null.none.responses", 4, "message 0"},
      {"carsales.capnp.none.responses", 16, "message 0"},
      {"carsales.protobuf.none.responses", -1, "message 4"},
      {"carsales.capnp.packed.responses", -1, "message 4"},
      // A value the server's answer depends on: the last car's cup holders (null), the
      // diameter of the last car's last wheel (capnp).
      {"carsales.null.none.requests", -2, "message 4"},
      {"carsales.capnp.none.requests", -8, "message 4"},
      // Structure: null's car count, a capnp segment count, a protobuf size prefix.
      {"carsales.null.none.requests", 4, "message 0"},
      {"eval.null.none.requests", 4, "message 0"},
      {"catrank.null.none.responses", 4, "message 0"},
      {"eval.capnp.none.requests", 0, "message "},
      {"catrank.protobuf.none.requests", 0, "message 0"},
  };
  for (const auto& f : flips) {
    expectCheckFails(f.file, [&](std::string& b) {
      size_t at = f.offset >= 0 ? static_cast<size_t>(f.offset) : b.size() + f.offset;
      ASSERT_LT(at, b.size());
      b[at] = static_cast<char>(b[at] ^ 1);
    }, f.message);
  }
}

TEST(Golden, CheckFailsOnATruncatedFile) {
  for (const auto& stem : goldenStems()) {
    for (const std::string ext : {".requests", ".responses"}) {
      // One byte short: the last message is cut.
      expectCheckFails(stem + ext, [](std::string& b) { b.pop_back(); }, "message 4");
    }
  }
  // Cut in the middle of the file, and empty.
  expectCheckFails("catrank.capnp.packed.requests",
                   [](std::string& b) { b.resize(b.size() / 2); }, "message ");
  expectCheckFails("eval.protobuf.none.responses", [](std::string& b) { b.clear(); },
                   "0 messages, expected 5");
}

TEST(Golden, SkipsWhatItDoesNotSupportAndNeedsOneFile) {
  std::string dir = tempDir();
  for (const std::string name : {"eval.flatbuffers.none.requests",
                                 "eval.flatbuffers.none.responses", "eval.protobuf.packed.requests",
                                 "nonsense.requests"}) {
    std::ofstream(dir + "/" + name) << "whatever";
  }
  Outcome none = driver({"golden", "check", dir});
  EXPECT_EQ(none.status, 1) << none.out;
  EXPECT_NE(none.err.find(dir), std::string::npos) << none.err;
  EXPECT_NE(none.out.find("{\"file\": \"eval.flatbuffers.none.responses\", \"skipped\": true}"),
            std::string::npos)
      << none.out;

  for (const std::string ext : {".requests", ".responses"}) {
    fs::copy_file(kGolden + "/eval.null.none" + ext, dir + "/eval.null.none" + ext);
  }
  Outcome some = driver({"golden", "check", dir});
  EXPECT_EQ(some.status, 0) << some.err;
  EXPECT_NE(some.out.find(okLine("eval.null.none.responses")), std::string::npos) << some.out;
  for (const std::string name : {"eval.flatbuffers.none.requests", "eval.protobuf.packed.requests",
                                 "nonsense.requests"}) {
    EXPECT_NE(some.out.find("{\"file\": \"" + name + "\", \"skipped\": true}"),
              std::string::npos)
        << name << " in " << some.out;
  }
  fs::remove_all(dir);

  Outcome missing = driver({"golden", "check", dir + "/gone"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find(dir + "/gone"), std::string::npos) << missing.err;
}

// ---- usage -----------------------------------------------------------------------------

// The names of the rpc suite's libraries, from its registry: "capnp, protobuf, null".
std::string rpcLibNames() {
  std::string names;
  for (const auto& lib : wb::rpc::libs()) names += (names.empty() ? "" : ", ") + lib.name;
  return names;
}

std::vector<std::string> limitArgs(const std::string& block) {
  return {"run", "--suite", "limit", "--case", "memcpy", "--lib", "memcpy", "--block", block};
}

// Each bad command line exits 2, prints nothing on stdout, and names the problem in the
// message itself (the first line of stderr; the usage text after it lists every flag and
// value, so a search of the whole of stderr would find most names whatever the message).
TEST(Usage, BadCommandLinesExit2NamingTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string message;  // a part of the first line of stderr
  };
  const std::vector<std::string> one = {"--iters", "1"};
  const std::vector<Case> cases = {
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none"), {"--iters", "1", "--bogus", "1"}),
       "unknown flag --bogus"},
      {rpcArgs("eval", "capnp", "bytes", "none"), "missing --iters"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none"), {"--iters", "x"}),
       "bad value for --iters: 'x'"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none"), {"--iters", "0"}),
       "bad value for --iters: 0 (at least 1)"},
      {plus(plus(rpcArgs("eval", "capnp", "bytes", "none"), one), {"--iters", "2"}),
       "flag --iters given twice"},
      // --suite, and the case looked up in it
      {{"run", "--case", "eval", "--lib", "capnp", "--mode", "bytes", "--compression", "none",
        "--reuse", "reuse", "--iters", "1"},
       "missing --suite (one of: " + wb::joined(wb::suiteNames()) + ")"},
      {{"run", "--suite", "tape", "--case", "log", "--lib", "x", "--iters", "1"},
       "unknown suite 'tape' (one of: " + wb::joined(wb::suiteNames()) + ")"},
      {plus(rpcArgs("nosuchcase", "capnp", "bytes", "none"), one),
       "case 'nosuchcase' is not in suite rpc (one of: carsales, catrank, eval)"},
      {{"run", "--suite", "limit", "--case", "eval", "--lib", "capnp", "--iters", "1"},
       "case 'eval' is not in suite limit (one of: memcpy)"},
      {plus(rpcArgs("memcpy", "memcpy", "bytes", "none"), one),
       "case 'memcpy' is not in suite rpc"},
      // libraries, listed from the registry
      {plus(rpcArgs("eval", "flatbuffers", "bytes", "none"), one),
       "unknown lib 'flatbuffers' for suite rpc (one of: " + rpcLibNames() + ")"},
      {{"run", "--suite", "limit", "--case", "memcpy", "--lib", "capnp", "--block", "1MiB",
        "--iters", "1"},
       "unknown lib 'capnp' for suite limit (one of: memcpy)"},
      // parameters and their values
      {plus(rpcArgs("eval", "protobuf", "bytes", "packed"), one),
       "unknown value for --compression: 'packed' for lib protobuf (one of: none)"},
      {plus(rpcArgs("eval", "null", "bytes", "packed"), one),
       "unknown value for --compression: 'packed' for lib null (one of: none)"},
      {plus(rpcArgs("eval", "capnp", "bytes", "zstd"), one),
       "unknown value for --compression: 'zstd' (one of: none, packed)"},
      {plus(rpcArgs("eval", "capnp", "object", "packed"), one),
       "compression packed does not apply to mode object"},
      {plus(rpcArgs("eval", "capnp", "teleport", "none"), one),
       "unknown value for --mode: 'teleport' (one of: object, bytes, pipe, pipe-async)"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none", "sometimes"), one),
       "unknown value for --reuse: 'sometimes' (one of: reuse, no-reuse)"},
      {{"run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "bytes",
        "--reuse", "reuse", "--iters", "1"},
       "missing --compression (one of: none, packed)"},
      {plus(limitArgs("3KiB"), one),
       "unknown value for --block: '3KiB' (one of: 16KiB, 1MiB, 64MiB)"},
      // a parameter of the other suite
      {plus(limitArgs("1MiB"), {"--mode", "bytes", "--iters", "1"}),
       "flag --mode is not a parameter of suite limit (its parameters: block)"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none"), {"--iters", "1", "--block", "1MiB"}),
       "flag --block is not a parameter of suite rpc (its parameters: mode, compression, reuse)"},
      // fixtures: known flags, taken by neither suite
      {plus(rpcArgs("eval", "capnp", "bytes", "none"), {"--iters", "1", "--out-dir", "/tmp"}),
       "flag --out-dir is a fixture that suite rpc does not take (its fixtures: none)"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none"), {"--iters", "1", "--input", "/etc/hosts"}),
       "flag --input is a fixture that suite rpc does not take"},
      {plus(limitArgs("1MiB"), {"--iters", "1", "--work-dir", "/tmp"}),
       "flag --work-dir is a fixture that suite limit does not take"},
      // roles
      {plus(rpcArgs("eval", "capnp", "pipe", "none"), {"--iters", "1", "--role", "local"}),
       "--role local is not possible with --mode pipe"},
      {plus(rpcArgs("eval", "capnp", "bytes", "none"), {"--iters", "1", "--role", "server"}),
       "--role server needs a pipe mode"},
      {plus(rpcArgs("eval", "capnp", "pipe", "none"), {"--iters", "1", "--role", "client"}),
       "--role client needs --in-fd and --out-fd"},
      {plus(rpcArgs("eval", "capnp", "pipe", "none"), {"--iters", "1", "--role", "boss"}),
       "unknown value for --role: 'boss'"},
      {plus(limitArgs("1MiB"), {"--iters", "1", "--role", "client", "--in-fd", "0", "--out-fd",
                                "1"}),
       "--role client is not possible in suite limit"},
      // golden
      {{"golden"}, "golden: missing subcommand"},
      {{"golden", "compare", "/tmp"}, "golden: unknown subcommand 'compare'"},
      {{"golden", "check"}, "golden check: missing DIR"},
      {{"golden", "write", "/tmp/a", "/tmp/b"}, "unexpected argument '/tmp/b'"},
  };
  for (const auto& c : cases) {
    Outcome r = driver(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(r.status, 2) << joined << "\n" << r.err;
    EXPECT_NE(firstLine(r.err).find("usage error: " + c.message), std::string::npos)
        << joined << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << joined;
  }
}

TEST(Info, ReportsIdentityVersionsAndFlags) {
  Outcome r = driver({"info"});
  ASSERT_EQ(r.status, 0);
  std::string suites;
  for (const std::string& name : wb::suiteNames()) {
    suites += (suites.empty() ? "\"" : ", \"") + name + "\"";
  }
  EXPECT_EQ(r.out.rfind("{\"protocol\": 2, \"lang\": \"cpp\", \"toolchain\": \"" + kToolchain +
                            "\", \"driver\": \"wirebench-cpp\", \"suites\": [" + suites + "], ",
                        0),
            0u)
      << r.out;
  const std::string compiler = "\"compiler\": \"" + kToolchain + " ";
  for (const char* s : {compiler.c_str(), "\"capnp\": \"0.9.2\"", "\"protobuf\": \"3.21.12\"",
                        "\"libc\": \"glibc ", "\"flags\": \"-O2 -DNDEBUG\"",
                        "\"flatbuffers\": \"2.0.8\"", "\"msgpack-cxx\": \"4.1.3\"",
                        "\"rapidjson\": \"1.1.0\"", "\"simdjson\": \"3.0.1\"",
                        "\"nlohmann-json\": \"3.11.2\""}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in " << r.out;
  }
}

// ---- results (protocol 2) --------------------------------------------------------------

TEST(Results, LocalClientAndLimitResultsHaveNamedMetrics) {
  struct Run {
    std::vector<std::string> args;
    std::string head;  // the cell and role, after the identity
  };
  const std::vector<Run> runs = {
      {plus(rpcArgs("carsales", "protobuf", "bytes", "none", "no-reuse"),
            {"--iters", "4", "--samples", "3", "--warmup", "2"}),
       "\"suite\": \"rpc\", \"case\": \"carsales\", \"lib\": \"protobuf\", \"params\": "
       "{\"mode\": \"bytes\", \"compression\": \"none\", \"reuse\": \"no-reuse\"}, \"role\": "
       "\"local\", \"warmup\": 2, \"verified\": true, \"metrics\": {\"time\": {\"unit\": \"ns\", "
       "\"iters\": 4, \"samples\": ["},
      {plus(rpcArgs("eval", "capnp", "pipe", "packed"),
            {"--iters", "4", "--samples", "3", "--warmup", "2"}),
       "\"suite\": \"rpc\", \"case\": \"eval\", \"lib\": \"capnp\", \"params\": {\"mode\": "
       "\"pipe\", \"compression\": \"packed\", \"reuse\": \"reuse\"}, \"role\": \"local\", "
       "\"warmup\": 2, \"verified\": true, \"metrics\": {\"time\": {\"unit\": \"ns\", \"iters\": "
       "4, \"samples\": ["},
      {plus(limitArgs("16KiB"), {"--iters", "4", "--samples", "3", "--warmup", "2"}),
       "\"suite\": \"limit\", \"case\": \"memcpy\", \"lib\": \"memcpy\", \"params\": {\"block\": "
       "\"16KiB\"}, \"role\": \"local\", \"warmup\": 2, \"verified\": true, \"metrics\": "
       "{\"time\": {\"unit\": \"ns\", \"iters\": 4, \"samples\": ["},
  };
  for (const auto& run : runs) {
    Outcome r = driver(run.args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("{\"protocol\": 2, \"lang\": \"cpp\", \"toolchain\": \"" + kToolchain +
                              "\", \"driver\": \"wirebench-cpp\", " + run.head,
                          0),
              0u)
        << r.out;
    EXPECT_EQ(metricSamples(r.out, "time").size(), 3u) << r.out;
    auto bytes = metricSamples(r.out, "bytes");
    ASSERT_EQ(bytes.size(), 3u) << r.out;
    EXPECT_NE(r.out.find("\"bytes\": {\"unit\": \"B\", \"iters\": 4, \"samples\": ["),
              std::string::npos)
        << r.out;
    EXPECT_EQ(jsonInts(r.out, "check").size(), 3u) << r.out;
    for (const char* v1 : {"samples_ns", "\"iters\": 4, \"warmup\""}) {
      EXPECT_EQ(r.out.find(v1), std::string::npos) << v1 << " in " << r.out;
    }
    if (run.args[2] == "limit") {
      EXPECT_EQ(bytes, (std::vector<int64_t>{4 << 14, 4 << 14, 4 << 14}));
      EXPECT_EQ(jsonInts(r.out, "check"), (std::vector<int64_t>{1 << 14, 1 << 14, 1 << 14}));
      EXPECT_NE(r.out.find("\"versions\": {\"compiler\": \"" + kToolchain + " "),
                std::string::npos);
      EXPECT_NE(r.out.find("\"libc\": \"glibc "), std::string::npos);
    } else {
      EXPECT_EQ(jsonInt(r.out, "responses_checked"), 2 + 3 * 4) << r.out;
    }
  }
}

// ---- list: generated from the registry -------------------------------------------------

// The lines `list` must print, spelled out here from the registry's data: for each suite,
// case and library, every combination of the values the library supports of the parameters
// that apply to the case, less rpc's object mode with a compression, codec cells that differ
// from their library's first cell in more than one parameter, and queue's paced cells other
// than the library's default variant.
std::vector<std::string> expectedList() {
  std::vector<std::string> lines;
  for (const wb::Suite* suite : wb::suites()) {
    for (const std::string& kase : suite->cases) {
      for (const wb::Lib& lib : suite->libs) {
        std::vector<std::string> combos = {""};
        for (const wb::Param& p : suite->params) {
          if (!p.cases.empty() &&
              std::find(p.cases.begin(), p.cases.end(), kase) == p.cases.end()) {
            continue;
          }
          std::vector<std::string> next;
          for (const std::string& prefix : combos) {
            for (const std::string& v : lib.values(p)) {
              if (suite->name == "rpc" && p.name == "compression" && v != "none" &&
                  prefix.find("\"mode\": \"object\"") != std::string::npos) {
                continue;
              }
              next.push_back(prefix + (prefix.empty() ? "" : ", ") + "\"" + p.name + "\": \"" +
                             v + "\"");
            }
          }
          combos = next;
        }
        for (const std::string& params : combos) {
          if (suite->name == "codec") {
            int off = 0;
            for (const wb::Param& p : suite->params) {
              off += params.find("\"" + p.name + "\": \"" + lib.values(p).front() + "\"") ==
                     std::string::npos;
            }
            // The size axis's other batches: the default cell only.
            bool golden = kase == "log" || kase == "logs";
            if (off > (golden ? 1 : 0)) continue;
          }
          if (suite->name == "queue" && kase == "paced") {
            const std::string& ordering = lib.values(*suite->findParam("ordering")).front();
            if (params.find("\"ordering\": \"" + ordering +
                            "\", \"clock\": \"mono\", \"pretouch\": \"on\"") ==
                std::string::npos) {
              continue;
            }
          }
          std::string format = lib.format.empty() ? "" : ", \"format\": \"" + lib.format + "\"";
          lines.push_back("{\"suite\": \"" + suite->name + "\", \"case\": \"" + kase +
                          "\", \"lib\": \"" + lib.name + "\"" + format + ", \"params\": {" +
                          params + "}}");
        }
      }
    }
  }
  return lines;
}

TEST(List, IsTheRegistrysCells) {
  Outcome r = driver({"list"});
  ASSERT_EQ(r.status, 0);
  std::vector<std::string> lines;
  std::stringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  EXPECT_EQ(lines, expectedList());
  // How many cells is the registry's business (the harness holds every driver to the C++
  // driver's list); what the reference suite needs is there and what no library has is not.
  auto has = [&](const std::string& s) { return r.out.find(s) != std::string::npos; };
  EXPECT_TRUE(has("{\"suite\": \"rpc\", \"case\": \"catrank\", \"lib\": \"capnp\", \"params\": "
                  "{\"mode\": \"pipe-async\", \"compression\": \"packed\", \"reuse\": "
                  "\"no-reuse\"}}\n"));
  EXPECT_TRUE(has("{\"suite\": \"limit\", \"case\": \"memcpy\", \"lib\": \"memcpy\", "
                  "\"params\": {\"block\": \"64MiB\"}}\n"));
  // A codec line names its library's format, the rpc and limit lines have none.
  EXPECT_TRUE(has("{\"suite\": \"codec\", \"case\": \"log\", \"lib\": \"msgpack-cxx\", "
                  "\"format\": \"msgpack\", \"params\": {\"buffer\": \"reused\", "
                  "\"strings\": \"owned\", \"validation\": \"validated\", "
                  "\"packing\": \"unpacked\"}}\n"));
  EXPECT_FALSE(has("\"lib\": \"protobuf\", \"params\": {\"mode\": \"bytes\", "
                   "\"compression\": \"packed\""));
  EXPECT_FALSE(has("\"mode\": \"object\", \"compression\": \"packed\""));
  for (const std::string& line : lines) {
    EXPECT_EQ(std::count(lines.begin(), lines.end(), line), 1) << line;
  }
}

// ---- codec: records, libraries, cells --------------------------------------------------

namespace codec = wb::codec;

// The number after `"key": ` in the object of `kase` in testdata/codec/checks.json.
int64_t codecCheck(const std::string& kase, const std::string& key) {
  std::string text = readFile(kTestdata + "/codec/checks.json");
  size_t at = text.find("\"" + kase + "\": {");
  EXPECT_NE(at, std::string::npos) << kase;
  size_t k = text.find("\"" + key + "\": ", at);
  EXPECT_NE(k, std::string::npos) << kase << " " << key;
  return std::stoll(text.substr(k + key.size() + 4));
}

codec::Bytes bytesOf(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string stringOf(codec::Bytes b) {
  return std::string(reinterpret_cast<const char*>(b.data), b.size);
}

// Every cell a library offers: its default, then one per further value of a parameter.
std::vector<codec::Variant> variants(const codec::CodecLib& lib) {
  std::vector<codec::Variant> v;
  const auto& b = lib.buffers;
  const auto& s = lib.strings;
  const auto& c = lib.validations;
  const auto p = lib.packings();
  v.push_back(codec::variantOf(b[0], s[0], c[0], p[0]));
  for (size_t i = 1; i < b.size(); ++i) v.push_back(codec::variantOf(b[i], s[0], c[0], p[0]));
  for (size_t i = 1; i < s.size(); ++i) v.push_back(codec::variantOf(b[0], s[i], c[0], p[0]));
  for (size_t i = 1; i < c.size(); ++i) v.push_back(codec::variantOf(b[0], s[0], c[i], p[0]));
  for (size_t i = 1; i < p.size(); ++i) v.push_back(codec::variantOf(b[0], s[0], c[0], p[i]));
  return v;
}

TEST(Codec, RecordsAreTheCanonicalJsonAndFoldAsChecksJson) {
  for (const std::string kase : {"log", "logs"}) {
    const codec::Case& c = codec::findCase(kase);
    EXPECT_EQ(c.records.size(), static_cast<size_t>(codecCheck(kase, "records")));
    EXPECT_TRUE(codec::canonicalJson(c.records, c.batch) ==
                readFile(kTestdata + "/codec/" + kase + ".json"))
        << kase;
    EXPECT_EQ(static_cast<int64_t>(codec::fold(c.records)), codecCheck(kase, "fold")) << kase;
  }
  // The fold of docs/workloads.md: an empty string adds nothing, bytes are unsigned.
  EXPECT_EQ(codec::foldString(""), 0u);
  EXPECT_EQ(codec::foldString("\xff"), 1u + 255 + 255);
}

// Every library and variant: its operations give the case's size and fold, pass their
// checks, and what it decodes is the records; the JSON, MessagePack and null encodings have
// the sizes of checks.json (JSON: the very bytes of testdata/codec).
TEST(Codec, EveryLibraryRoundTripsBothCases) {
  for (const auto& lib : codec::libs()) {
    for (const std::string kase : {"log", "logs"}) {
      const codec::Case& c = codec::findCase(kase);
      for (const codec::Variant& v : variants(lib)) {
        SCOPED_TRACE(lib.name + " " + kase + " reused " + std::to_string(v.reused) +
                     " borrowed " + std::to_string(v.borrowed) + " checked " +
                     std::to_string(v.checked) + " packed " + std::to_string(v.packed));
        auto cell = lib.make(c, v);
        codec::Bytes enc = cell->encoding();
        if (lib.format == "json") {
          EXPECT_TRUE(stringOf(enc) == readFile(kTestdata + "/codec/" + kase + ".json"));
        }
        if (lib.format == "json" || lib.format == "msgpack" || lib.format == "null") {
          EXPECT_EQ(static_cast<int64_t>(enc.size), codecCheck(kase, lib.format));
        }
        EXPECT_EQ(codec::difference(c.records, cell->decode(enc)), "");
        for (codec::Op op : lib.ops) {
          uint64_t want = op == codec::Op::populate    ? 0
                          : op == codec::Op::serialize ? 2 * enc.size
                                                       : 2 * c.fold;
          EXPECT_EQ(cell->run(op, 2), want) << codec::opName(op);
          EXPECT_NO_THROW(cell->check(op)) << codec::opName(op);
        }
      }
    }
  }
}

// A truncated or empty encoding is an error (or, where the cut falls between protobuf
// fields, other records), never a crash; unchecked reads are exempt. A cut that removes
// only zero bytes may leave a valid message (a FlatBuffer's trailing padding).
TEST(Codec, TruncatedEncodingsAreErrors) {
  for (const auto& lib : codec::libs()) {
    for (const std::string kase : {"log", "logs"}) {
      const codec::Case& c = codec::findCase(kase);
      for (const codec::Variant& v : variants(lib)) {
        if (!v.checked) continue;
        auto cell = lib.make(c, v);
        std::string whole = stringOf(cell->encoding());
        for (size_t size : {size_t{0}, whole.size() / 2, whole.size() - 1}) {
          std::string cut = whole.substr(0, size);
          bool refused = false;
          codec::Records got;
          try {
            got = cell->decode(bytesOf(cut));
          } catch (...) {
            refused = true;
          }
          bool padding = whole.find_first_not_of('\0', size) == std::string::npos;
          EXPECT_TRUE(refused || !codec::difference(c.records, got).empty() || padding)
              << lib.name << " " << kase << " cut to " << size << " bytes";
        }
      }
    }
  }
}

// A packed Cap'n Proto stream unpacked by the library, as the standard stream framing.
std::string unpacked(const std::string& packed) {
  kj::ArrayInputStream in(kj::arrayPtr(reinterpret_cast<const kj::byte*>(packed.data()),
                                       packed.size()));
  capnp::PackedMessageReader reader(in);
  std::vector<kj::ArrayPtr<const capnp::word>> segments;
  for (uint i = 0;; ++i) {
    auto s = static_cast<capnp::MessageReader&>(reader).getSegment(i);
    if (s == nullptr) break;
    segments.push_back(s);
  }
  auto flat = capnp::messageToFlatArray(kj::arrayPtr(segments.data(), segments.size()));
  return std::string(reinterpret_cast<const char*>(flat.begin()), flat.asBytes().size());
}

std::vector<std::string> codecArgs(const std::string& kase, const std::string& lib,
                                   const std::string& buffer, const std::string& strings,
                                   const std::string& validation,
                                   const std::string& packing = "unpacked") {
  return {"run",      "--suite",   "codec",   "--case",    kase,    "--lib",
          lib,        "--buffer",  buffer,    "--strings", strings, "--validation",
          validation, "--packing", packing,   "--iters",   "2",     "--samples",
          "2",        "--warmup",  "1"};
}

TEST(Codec, BadCellsExit2NamingTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {codecArgs("log", "null", "kept", "owned", "lazy"),
       "unknown value for --buffer: 'kept' (one of: reused, fresh)"},
      {codecArgs("log", "null", "reused", "owned", "validated"),
       "unknown value for --validation: 'validated' for lib null (one of: lazy)"},
      {codecArgs("log", "nlohmann-json", "fresh", "borrowed", "validated"),
       "unknown value for --strings: 'borrowed' for lib nlohmann-json (one of: owned)"},
      {codecArgs("log", "flatbuffers", "reused", "owned", "sometimes"),
       "unknown value for --validation: 'sometimes' (one of: validated, unchecked)"},
      {codecArgs("blog", "null", "reused", "owned", "lazy"),
       "case 'blog' is not in suite codec (one of: log, logs1, logs10, logs100, logs, logs10000)"},
      {codecArgs("log", "serde", "reused", "owned", "lazy"), "unknown lib 'serde' for suite codec"},
      {codecArgs("log", "flatbuffers", "fresh", "borrowed", "validated"),
       "a codec cell differs from its library's first cell (buffer reused, strings owned, "
       "validation validated, packing unpacked) in at most one parameter, not in buffer "
       "fresh, strings borrowed"},
      {codecArgs("log", "protobuf", "reused", "owned", "validated", "packed"),
       "unknown value for --packing: 'packed' for lib protobuf (one of: unpacked)"},
      {codecArgs("log", "capnp", "fresh", "owned", "lazy", "packed"),
       "a codec cell differs from its library's first cell (buffer reused, strings owned, "
       "validation lazy, packing unpacked) in at most one parameter, not in buffer fresh, "
       "packing packed"},
      {plus(codecArgs("log", "null", "reused", "owned", "lazy"), {"--mode", "bytes"}),
       "flag --mode is not a parameter of suite codec"},
      {plus(codecArgs("log", "null", "reused", "owned", "lazy"), {"--work-dir", "/tmp"}),
       "flag --work-dir is a fixture that suite codec does not take (its fixtures: out-dir)"},
      {plus(codecArgs("log", "null", "reused", "owned", "lazy"),
            {"--role", "client", "--in-fd", "0", "--out-fd", "1"}),
       "--role client is not possible in suite codec"},
  };
  for (const auto& c : cases) {
    Outcome r = driver(c.args);
    EXPECT_EQ(r.status, 2) << c.message << "\n" << r.err;
    EXPECT_NE(firstLine(r.err).find("usage error: " + c.message), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

// A default cell measures every operation its library has, a variant only those its
// parameter governs; the result carries the size, the allocations and the check digests,
// and --out-dir gets the encoding.
TEST(Codec, ResultsHaveTheCellsOperationsAndTheEncoding) {
  std::string dir = tempDir();
  Outcome r = driver(plus(codecArgs("logs", "capnp", "reused", "owned", "lazy"),
                          {"--out-dir", dir}));
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* op : {"populate", "serialize", "deserialize", "access"}) {
    EXPECT_EQ(metricSamples(r.out, op).size(), 2u) << op << " in " << r.out;
    EXPECT_NE(r.out.find(std::string("\"") + op + "_allocs\": {\"unit\": \"allocs\""),
              std::string::npos)
        << op;
    EXPECT_NE(r.out.find(std::string("\"") + op + "_alloc_bytes\": {\"unit\": \"B\""),
              std::string::npos)
        << op;
  }
  EXPECT_EQ(r.out.find("\"populate\": [0"), std::string::npos) << "populate has no digest";
  EXPECT_TRUE(readFile(dir + "/logs.capnp") == readFile(kGolden + "/logs.capnp"));
  EXPECT_NE(r.out.find("\"size\": {\"unit\": \"B\", \"value\": " +
                       std::to_string(readFile(kGolden + "/logs.capnp").size()) + "}"),
            std::string::npos)
      << r.out;

  Outcome v = driver(codecArgs("log", "flatbuffers", "reused", "owned", "unchecked"));
  ASSERT_EQ(v.status, 0) << v.err;
  EXPECT_NE(v.out.find("\"check\": {\"deserialize\": ["), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("\"access\": ["), std::string::npos) << v.out;
  for (const char* op : {"\"populate\"", "\"serialize\""}) {
    EXPECT_EQ(v.out.find(op), std::string::npos) << op << " in " << v.out;
  }

  // packed: serialize, deserialize and access of the packed encoding, its size the packed
  // size, and the file in --out-dir the golden message packed.
  Outcome p = driver(plus(codecArgs("logs", "capnp", "reused", "owned", "lazy", "packed"),
                          {"--out-dir", dir}));
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(p.out.find("\"populate\""), std::string::npos) << p.out;
  for (const char* op : {"serialize", "deserialize", "access"}) {
    EXPECT_EQ(metricSamples(p.out, op).size(), 2u) << op << " in " << p.out;
  }
  std::string packed = readFile(dir + "/logs.capnp");
  EXPECT_NE(p.out.find("\"size\": {\"unit\": \"B\", \"value\": " +
                       std::to_string(packed.size()) + "}"),
            std::string::npos)
      << p.out;
  EXPECT_EQ(unpacked(packed), readFile(kGolden + "/logs.capnp"));
  EXPECT_LT(packed.size(), readFile(kGolden + "/logs.capnp").size());
  fs::remove_all(dir);
}

// ---- fuzz targets (fuzz/README.md) ----------------------------------------------------

// Every decoder the registries hold is a fuzz target: each rpc library's server side and
// each codec library that deserializes.
TEST(Fuzz, EveryDecoderIsATarget) {
  auto targeted = [](const std::string& suite, const std::string& lib) {
    for (const wb::fuzz::Target& t : wb::fuzz::targets()) {
      if (t.suite == suite && t.lib == lib) return wb::fuzz::findTarget(t.name) == &t;
    }
    return false;
  };
  for (const wb::rpc::RpcLib& lib : wb::rpc::libs()) {
    EXPECT_TRUE(targeted("rpc", lib.name)) << lib.name;
  }
  for (const wb::codec::CodecLib& lib : wb::codec::libs()) {
    EXPECT_EQ(targeted("codec", lib.name), lib.has(wb::codec::Op::deserialize)) << lib.name;
  }
  ASSERT_NE(wb::fuzz::findTarget("codec_nlohmann_json"), nullptr);
  EXPECT_EQ(wb::fuzz::findTarget("codec_nlohmann_json")->lib, "nlohmann-json");
}

// The named regressions, fuzz/regressions/<target>/<what>: inputs that once found a bug,
// replayed through their target's code path and refused cleanly (the fuzz build replays
// them under the sanitizers).
TEST(Fuzz, RegressionsAreRefused) {
  int files = 0;
  for (const auto& dir : fs::directory_iterator(WB_FUZZ_REGRESSIONS)) {
    const wb::fuzz::Target* target = wb::fuzz::findTarget(dir.path().filename());
    ASSERT_NE(target, nullptr) << "regressions of no fuzz target: " << dir.path();
    for (const auto& file : fs::directory_iterator(dir.path())) {
      std::string input = readFile(file.path());
      EXPECT_TRUE(wb::fuzz::fuzzOne(*target, reinterpret_cast<const uint8_t*>(input.data()),
                                    input.size()))
          << file.path();
      ++files;
    }
  }
  EXPECT_GE(files, 2);
}

}  // namespace
