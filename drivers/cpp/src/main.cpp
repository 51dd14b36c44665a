// wirebench-cpp: the C++ driver. Implements docs/protocol.md (commands info, list, run,
// golden), the timing loop, the roles of pipe cells and the JSON results.

#include <fcntl.h>
#include <gnu/libc-version.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.h"
#include "golden.h"
#include "io.h"
#include "registry.h"
#include "rng.h"

#ifndef WB_BUILD_TYPE
#define WB_BUILD_TYPE "unknown"
#endif
#ifndef WB_CXX_FLAGS
#define WB_CXX_FLAGS "unknown"
#endif

namespace wb {
namespace {

constexpr int kProtocol = 2;

// The driver's identity (docs/protocol.md): its language and its toolchain.
const char* toolchain() {
#if defined(__clang__)
  return "clang++";
#else
  return "g++";
#endif
}

// Fixtures the harness may hand a cell (docs/protocol.md); no suite here takes any.
const std::vector<std::string> kFixtureFlags = {"input", "work-dir", "out-dir"};

// ---- JSON ------------------------------------------------------------------------------

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

// An object built field by field, printed on one line.
class Json {
 public:
  Json& raw(const std::string& key, const std::string& json) {
    body_ += (body_.empty() ? "" : ", ") + quote(key) + ": " + json;
    return *this;
  }
  Json& str(const std::string& key, const std::string& v) { return raw(key, quote(v)); }
  Json& num(const std::string& key, uint64_t v) { return raw(key, std::to_string(v)); }
  Json& boolean(const std::string& key, bool v) { return raw(key, v ? "true" : "false"); }
  template <typename T>
  Json& list(const std::string& key, const std::vector<T>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return raw(key, s + "]");
  }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

std::string compilerVersion() {
#if defined(__clang__)
  return std::string("clang++ ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

void printLine(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

// ---- command line ----------------------------------------------------------------------

struct Args {
  std::map<std::string, std::string> flags;
  bool has(const std::string& k) const { return flags.count(k) != 0; }
  const std::string& get(const std::string& k) const { return flags.at(k); }
};

const std::vector<std::string> kRunFlags = {
    "suite", "case",  "lib",  "mode",  "compression", "reuse",    "block",  "iters",
    "samples", "warmup", "role", "in-fd", "out-fd", "input", "work-dir", "out-dir"};

Args parseRunFlags(int argc, char** argv) {
  Args args;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + a + "'");
    std::string name = a.substr(2), value;
    bool inlineValue = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inlineValue = true;
    }
    bool known = false;
    for (const auto& f : kRunFlags) known = known || f == name;
    if (!known) throw UsageError("unknown flag --" + name);
    if (!inlineValue) {
      if (i + 1 >= argc) throw UsageError("flag --" + name + " needs a value");
      value = argv[++i];
    }
    if (args.has(name)) throw UsageError("flag --" + name + " given twice");
    args.flags[name] = value;
  }
  return args;
}

uint64_t parseCount(const Args& args, const std::string& name, uint64_t min) {
  const std::string& s = args.get(name);
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError("bad value for --" + name + ": '" + s + "' (want a decimal integer)");
  }
  uint64_t v = std::stoull(s);
  if (v < min) {
    throw UsageError("bad value for --" + name + ": " + s + " (at least " + std::to_string(min) +
                     ")");
  }
  return v;
}

std::string oneOf(const Args& args, const std::string& name,
                  const std::vector<std::string>& allowed, const std::string& context = "") {
  if (!args.has(name)) throw UsageError("missing --" + name);
  const std::string& v = args.get(name);
  for (const auto& a : allowed) {
    if (a == v) return v;
  }
  std::string all;
  for (const auto& a : allowed) all += (all.empty() ? "" : ", ") + a;
  throw UsageError("unknown value for --" + name + ": '" + v + "'" + context + " (one of: " +
                   all + ")");
}

// Everything `run` needs, validated.
struct RunSpec {
  std::string suite, kase, lib;
  std::vector<std::pair<std::string, std::string>> params;  // in list order
  std::string mode, compression, block;
  bool reuse = true;
  std::string role;  // local, client, server, or "" (pipe without a role: fork a server)
  int inFd = -1, outFd = -1;
  uint64_t iters = 0, samples = 1, warmup = 0;
  std::vector<std::pair<std::string, std::string>> versions;
};

RunSpec validate(const Args& args) {
  RunSpec spec;
  const std::vector<std::string> suites = {"rpc", "limit"};
  std::string suite = oneOf(args, "suite", suites);
  if (!args.has("case")) throw UsageError("missing --case");
  spec.kase = args.get("case");
  std::vector<std::string> cases = suite == "rpc" ? rpcCases() : std::vector<std::string>{"memcpy"};
  oneOf(args, "case", cases, " for suite " + suite);
  for (const auto& f : kFixtureFlags) {
    if (args.has(f)) throw UsageError("flag --" + f + " is a fixture suite " + suite + " does not take");
  }
  spec.suite = suite;
  if (!args.has("lib")) throw UsageError("missing --lib");
  spec.lib = args.get("lib");
  spec.versions.push_back({"compiler", compilerVersion()});

  auto reject = [&](const std::vector<std::string>& names) {
    for (const auto& n : names) {
      if (args.has(n)) {
        throw UsageError("flag --" + n + " is not a parameter of suite " + suite);
      }
    }
  };

  if (suite == "rpc") {
    reject({"block"});
    const RpcLib* lib = findRpcLib(spec.lib);
    if (lib == nullptr) {
      std::string names;
      for (const RpcLib& l : rpcLibs()) names += (names.empty() ? "" : ", ") + l.name;
      throw UsageError("unknown lib '" + spec.lib + "' for suite rpc (one of: " + names + ")");
    }
    spec.mode = oneOf(args, "mode", rpcModes());
    spec.compression = oneOf(args, "compression", lib->compressions, " for lib " + lib->name);
    if (spec.mode == "object" && spec.compression != "none") {
      // Object mode serializes nothing: a compressed variant would repeat the same work.
      throw UsageError("compression " + spec.compression + " does not apply to mode object");
    }
    spec.reuse = oneOf(args, "reuse", reuseModes()) == "reuse";
    spec.params = {{"mode", spec.mode},
                   {"compression", spec.compression},
                   {"reuse", spec.reuse ? "reuse" : "no-reuse"}};
    for (const auto& v : lib->versions) spec.versions.push_back(v);
  } else {
    reject({"mode", "compression", "reuse"});
    if (spec.lib != "memcpy") {
      throw UsageError("unknown lib '" + spec.lib + "' for suite limit (one of: memcpy)");
    }
    std::vector<std::string> blocks;
    for (const auto& b : memcpyBlocks()) blocks.push_back(b.first);
    spec.block = oneOf(args, "block", blocks);
    spec.params = {{"block", spec.block}};
    spec.versions.push_back({"libc", std::string("glibc ") + gnu_get_libc_version()});
  }

  bool pipeMode = spec.mode == "pipe" || spec.mode == "pipe-async";
  if (args.has("role")) {
    spec.role = oneOf(args, "role", {"local", "client", "server"});
    if (pipeMode && spec.role == "local") {
      throw UsageError("--role local is not possible with --mode " + spec.mode +
                       " (use client or server, or no --role to fork a server)");
    }
    if (!pipeMode && spec.role != "local") {
      throw UsageError("--role " + spec.role + " needs a pipe mode (pipe or pipe-async)");
    }
  } else {
    spec.role = pipeMode ? "" : "local";
  }
  bool split = spec.role == "client" || spec.role == "server";
  if (split) {
    if (!args.has("in-fd") || !args.has("out-fd")) {
      throw UsageError("--role " + spec.role + " needs --in-fd and --out-fd");
    }
    spec.inFd = static_cast<int>(parseCount(args, "in-fd", 0));
    spec.outFd = static_cast<int>(parseCount(args, "out-fd", 0));
  } else if (args.has("in-fd") || args.has("out-fd")) {
    throw UsageError("--in-fd and --out-fd need --role client or --role server");
  }

  if (spec.role != "server") {
    if (!args.has("iters")) throw UsageError("missing --iters");
    spec.iters = parseCount(args, "iters", 1);
    if (args.has("samples")) spec.samples = parseCount(args, "samples", 1);
    if (args.has("warmup")) spec.warmup = parseCount(args, "warmup", 0);
  } else {
    // A server answers until end of file; it accepts the client's counts and ignores them.
    for (const char* n : {"iters", "samples", "warmup"}) {
      if (args.has(n)) parseCount(args, n, 0);
    }
  }
  return spec;
}

// ---- results ---------------------------------------------------------------------------

struct Samples {
  std::vector<uint64_t> ns, bytes;
  std::vector<int64_t> check;
  uint64_t responses = 0;
};

std::string paramsJson(const RunSpec& spec) {
  Json p;
  for (const auto& kv : spec.params) p.str(kv.first, kv.second);
  return p.text();
}

std::string versionsJson(const RunSpec& spec) {
  Json v;
  for (const auto& kv : spec.versions) v.str(kv.first, kv.second);
  return v.text();
}

Json header(const RunSpec& spec, const std::string& role) {
  Json j;
  j.num("protocol", kProtocol)
      .str("lang", "cpp")
      .str("toolchain", toolchain())
      .str("driver", "wirebench-cpp")
      .str("suite", spec.suite)
      .str("case", spec.kase)
      .str("lib", spec.lib)
      .raw("params", paramsJson(spec))
      .str("role", role);
  return j;
}

void printResult(const RunSpec& spec, const std::string& role, const Samples& s) {
  Json j = header(spec, role);
  auto metric = [&](const char* unit, const std::vector<uint64_t>& samples) {
    Json m;
    m.str("unit", unit).num("iters", spec.iters).list("samples", samples);
    return m.text();
  };
  Json metrics;
  metrics.raw("time", metric("ns", s.ns)).raw("bytes", metric("B", s.bytes));
  j.num("warmup", spec.warmup)
      .raw("metrics", metrics.text())
      .list("check", s.check)
      .boolean("verified", true)
      .num("responses_checked", s.responses)
      .raw("versions", versionsJson(spec));
  printLine(j.text());
}

using Clock = std::chrono::steady_clock;

uint64_t nanosSince(Clock::time_point t0, Clock::time_point t1) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
}

// ---- running ---------------------------------------------------------------------------

// The timing loop shared by every rpc mode on the client side: the generator is reset at
// the start of the warm-up and of every sample; only the sample's iterations are timed.
template <typename Step>
Samples timeRpc(const RunSpec& spec, Step&& step) {
  Samples s;
  if (spec.warmup > 0) {
    Tally warm;
    resetRng();
    step(spec.warmup, warm);
    s.responses += warm.responses;
  }
  for (uint64_t i = 0; i < spec.samples; ++i) {
    Tally t;
    resetRng();
    auto t0 = Clock::now();
    step(spec.iters, t);
    auto t1 = Clock::now();
    s.ns.push_back(nanosSince(t0, t1));
    s.bytes.push_back(t.bytes);
    s.check.push_back(static_cast<int64_t>(t.check));
    s.responses += t.responses;
  }
  return s;
}

std::unique_ptr<RpcCell> makeCell(const RunSpec& spec) {
  auto cell = findRpcLib(spec.lib)->make(spec.kase, spec.compression, spec.reuse);
  if (!cell) throw UsageError("combination not supported: " + spec.lib + " " + spec.kase);
  return cell;
}

Samples runClient(const RunSpec& spec, RpcCell& cell, int inFd, int outFd) {
  cell.openClient(inFd, outFd);
  Samples s;
  if (spec.mode == "pipe") {
    s = timeRpc(spec, [&](uint64_t n, Tally& t) { cell.pipe(n, t); });
  } else {
    s = timeRpc(spec, [&](uint64_t n, Tally& t) { cell.pipeAsync(n, t); });
  }
  cell.closeClient();
  return s;
}

void checkFd(int fd, const char* flag) {
  if (fcntl(fd, F_GETFD) < 0) {
    throw UsageError(std::string(flag) + " " + std::to_string(fd) + " is not an open fd");
  }
}

int runServer(const RunSpec& spec, bool quiet) {
  auto cell = makeCell(spec);
  ServerStats st;
  cell->serve(spec.inFd, spec.outFd, st);
  if (!quiet) {
    Json j = header(spec, "server");
    j.num("requests", st.requests)
        .num("bytes_in", st.bytesIn)
        .num("bytes_out", st.bytesOut)
        .boolean("verified", true)
        .raw("versions", versionsJson(spec));
    printLine(j.text());
  }
  return 0;
}

// A pipe cell without --role: forks a server child of this process, like the reference
// programs' passByPipe, and runs the client here.
int runForked(RunSpec spec) {
  int toServer[2], toClient[2];
  if (::pipe(toServer) != 0 || ::pipe(toClient) != 0) fail("pipe() failed");
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t child = fork();
  if (child < 0) fail("fork() failed");
  if (child == 0) {
    ::close(toServer[1]);
    ::close(toClient[0]);
    RunSpec server = spec;
    server.inFd = toServer[0];
    server.outFd = toClient[1];
    int status = 1;
    try {
      status = runServer(server, /*quiet=*/true);
    } catch (...) {
      std::fprintf(stderr, "wirebench-cpp: server: %s\n", describeCurrentException().c_str());
    }
    std::fflush(stderr);
    _exit(status);
  }
  ::close(toServer[0]);
  ::close(toClient[1]);
  auto cell = makeCell(spec);
  Samples s = runClient(spec, *cell, toClient[0], toServer[1]);
  ::close(toClient[0]);
  int status = 0;
  if (waitpid(child, &status, 0) != child) fail("waitpid() failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fail("the forked server failed (" +
         (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                            : "signal " + std::to_string(WTERMSIG(status))) +
         ")");
  }
  printResult(spec, "local", s);
  return 0;
}

int runMemcpy(const RunSpec& spec) {
  size_t block = 0;
  for (const auto& b : memcpyBlocks()) {
    if (b.first == spec.block) block = b.second;
  }
  MemcpyCell cell(block);
  Samples s;
  if (spec.warmup > 0) {
    cell.scramble();
    cell.copy(spec.warmup);
    if (!cell.verify()) fail("memcpy: the copy differs from the source after the warm-up");
  }
  for (uint64_t i = 0; i < spec.samples; ++i) {
    cell.scramble();
    auto t0 = Clock::now();
    cell.copy(spec.iters);
    auto t1 = Clock::now();
    if (!cell.verify()) fail("memcpy: the copy differs from the source");
    s.ns.push_back(nanosSince(t0, t1));
    s.bytes.push_back(spec.iters * block);
    s.check.push_back(static_cast<int64_t>(block));
    s.responses += 1;  // one comparison per sample
  }
  printResult(spec, "local", s);
  return 0;
}

int runCommand(const RunSpec& spec) {
  if (spec.suite == "limit") return runMemcpy(spec);
  if (spec.role == "server") {
    checkFd(spec.inFd, "--in-fd");
    checkFd(spec.outFd, "--out-fd");
    return runServer(spec, false);
  }
  if (spec.role == "client") {
    checkFd(spec.inFd, "--in-fd");
    checkFd(spec.outFd, "--out-fd");
    auto cell = makeCell(spec);
    Samples s = runClient(spec, *cell, spec.inFd, spec.outFd);
    printResult(spec, "client", s);
    return 0;
  }
  if (spec.role.empty()) return runForked(spec);
  auto cell = makeCell(spec);
  Samples s;
  if (spec.mode == "object") {
    s = timeRpc(spec, [&](uint64_t n, Tally& t) { cell->object(n, t); });
  } else {
    s = timeRpc(spec, [&](uint64_t n, Tally& t) { cell->bytes(n, t); });
  }
  printResult(spec, "local", s);
  return 0;
}

int info() {
  Json versions;
  versions.str("compiler", compilerVersion())
      .str("capnp", capnpVersion())
      .str("protobuf", protobufVersion())
      .str("libc", std::string("glibc ") + gnu_get_libc_version());
  Json build;
  build.str("type", WB_BUILD_TYPE).str("flags", WB_CXX_FLAGS);
  Json j;
  j.num("protocol", kProtocol)
      .str("lang", "cpp")
      .str("toolchain", toolchain())
      .str("driver", "wirebench-cpp")
      .raw("suites", "[\"rpc\", \"limit\"]")
      .raw("versions", versions.text())
      .raw("build", build.text());
  printLine(j.text());
  return 0;
}

int list() {
  for (const auto& line : listCells()) std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
  return 0;
}

// `golden write DIR` and `golden check DIR`: one JSON line per file (src/golden.h).
int golden(int argc, char** argv) {
  if (argc < 3) throw UsageError("golden: missing subcommand (write or check)");
  std::string sub = argv[2];
  if (sub != "write" && sub != "check") {
    throw UsageError("golden: unknown subcommand '" + sub + "' (write or check)");
  }
  if (argc < 4) throw UsageError("golden " + sub + ": missing DIR");
  if (argc > 4) throw UsageError(std::string("unexpected argument '") + argv[4] + "'");
  std::string dir = argv[3];
  if (dir.empty()) throw UsageError("golden " + sub + ": DIR is empty");
  if (sub == "write") {
    goldenWrite(dir, [](const GoldenFile& f) {
      Json j;
      j.str("file", f.name).num("messages", f.messages).num("bytes", f.bytes);
      printLine(j.text());
    });
  } else {
    goldenCheck(dir, [](const GoldenFile& f) {
      Json j;
      j.str("file", f.name);
      if (f.skipped) {
        j.boolean("skipped", true);
      } else {
        j.num("messages", f.messages).boolean("ok", true);
      }
      printLine(j.text());
    });
  }
  return 0;
}

const char kUsage[] =
    "usage: wirebench-cpp info | list | run --suite S --case C --lib L [cell parameters]\n"
    "         --iters N [--samples S] [--warmup W] [--role local|client|server]\n"
    "         [--in-fd R --out-fd W]\n"
    "       wirebench-cpp golden write|check DIR\n"
    "  rpc parameters: --mode object|bytes|pipe|pipe-async --compression none|packed\n"
    "                  --reuse reuse|no-reuse\n"
    "  limit parameters: --block 16KiB|1MiB|64MiB\n";

}  // namespace
}  // namespace wb

int main(int argc, char** argv) {
  // A closed pipe must be an error we report, not a silent death.
  signal(SIGPIPE, SIG_IGN);
  try {
    if (argc < 2) throw wb::UsageError("missing command");
    std::string command = argv[1];
    if (command == "info" || command == "list") {
      if (argc > 2) throw wb::UsageError(std::string("unexpected argument '") + argv[2] + "'");
      return command == "info" ? wb::info() : wb::list();
    }
    if (command == "golden") return wb::golden(argc, argv);
    if (command != "run") throw wb::UsageError("unknown command '" + command + "'");
    wb::RunSpec spec = wb::validate(wb::parseRunFlags(argc, argv));
    return wb::runCommand(spec);
  } catch (const wb::UsageError& e) {
    std::fprintf(stderr, "wirebench-cpp: usage error: %s\n%s", e.what(), wb::kUsage);
    return 2;
  } catch (...) {
    std::fprintf(stderr, "wirebench-cpp: error: %s\n", wb::describeCurrentException().c_str());
    return 1;
  }
}
