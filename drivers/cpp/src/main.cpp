// wirebench-cpp: the C++ driver. Implements docs/protocol.md: the commands info, list, run
// and golden, and a suite's own commands (queue append|tail), on the registry of suites
// (src/suites.cpp). The command line knows no suite: it looks the suite up, validates the
// cell against the suite's registry entry (case, library, parameters and their legal values,
// fixtures) and hands the validated run to the suite.

#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common.h"
#include "io.h"
#include "json.h"
#include "registry.h"
#include "result.h"

#ifndef WB_BUILD_PROFILE
#define WB_BUILD_PROFILE "unknown"
#endif
#ifndef WB_BUILD_TYPE
#define WB_BUILD_TYPE "unknown"
#endif
#ifndef WB_CXX_FLAGS
#define WB_CXX_FLAGS "unknown"
#endif

namespace wb {
namespace {

// ---- command line ----------------------------------------------------------------------

// The flags of `run` that every suite takes; the fixtures and every suite's parameters are
// known too.
const std::vector<std::string> kCommonFlags = {"suite",  "case", "lib",   "iters", "samples",
                                               "warmup", "role", "in-fd", "out-fd"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v) {
    if (x == s) return true;
  }
  return false;
}

// Whether `name` is a parameter of some suite.
bool isParam(const std::string& name) {
  for (const Suite* s : suites()) {
    if (s->findParam(name) != nullptr) return true;
  }
  return false;
}

struct Args {
  std::map<std::string, std::string> flags;
  std::vector<std::string> order;  // as given
  bool has(const std::string& k) const { return flags.count(k) != 0; }
  const std::string& get(const std::string& k) const { return flags.at(k); }
};

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
    if (!contains(kCommonFlags, name) && !contains(fixtureFlags(), name) && !isParam(name)) {
      throw UsageError("unknown flag --" + name);
    }
    if (!inlineValue) {
      if (i + 1 >= argc) throw UsageError("flag --" + name + " needs a value");
      value = argv[++i];
    }
    if (args.has(name)) throw UsageError("flag --" + name + " given twice");
    args.flags[name] = value;
    args.order.push_back(name);
  }
  return args;
}

uint64_t parseCount(const Args& args, const std::string& name, uint64_t min, uint64_t max) {
  const std::string& s = args.get(name);
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError("bad value for --" + name + ": '" + s + "' (want a decimal integer)");
  }
  uint64_t v = std::stoull(s);
  if (v < min) {
    throw UsageError("bad value for --" + name + ": " + s + " (at least " + std::to_string(min) +
                     ")");
  }
  if (v > max) {
    throw UsageError("bad value for --" + name + ": " + s + " (at most " + std::to_string(max) +
                     ")");
  }
  return v;
}

constexpr uint64_t kMaxCount = UINT64_MAX;
constexpr uint64_t kMaxFd = INT32_MAX;

// The value of --name, which must be one of `allowed`.
std::string oneOf(const Args& args, const std::string& name,
                  const std::vector<std::string>& allowed, const std::string& context = "") {
  if (!args.has(name)) throw UsageError("missing --" + name + " (one of: " + joined(allowed) + ")");
  const std::string& v = args.get(name);
  if (contains(allowed, v)) return v;
  throw UsageError("unknown value for --" + name + ": '" + v + "'" + context + " (one of: " +
                   joined(allowed) + ")");
}

// Checks the flags of `run` against the registry and returns the run for its suite.
Run validate(const Args& args) {
  if (!args.has("suite")) {
    throw UsageError("missing --suite (one of: " + joined(suiteNames()) + ")");
  }
  const Suite* suite = findSuite(args.get("suite"));
  if (suite == nullptr) {
    throw UsageError("unknown suite '" + args.get("suite") + "' (one of: " +
                     joined(suiteNames()) + ")");
  }
  for (const std::string& name : args.order) {
    if (contains(fixtureFlags(), name) && !contains(suite->fixtures, name)) {
      throw UsageError("flag --" + name + " is a fixture that suite " + suite->name +
                       " does not take (its fixtures: " + joined(suite->fixtures) + ")");
    }
    if (isParam(name) && suite->findParam(name) == nullptr) {
      throw UsageError("flag --" + name + " is not a parameter of suite " + suite->name +
                       " (its parameters: " + joined(suite->paramNames()) + ")");
    }
  }

  Run run;
  run.suite = suite;
  if (!args.has("case")) {
    throw UsageError("missing --case (one of: " + joined(suite->cases) + ")");
  }
  run.kase = args.get("case");
  if (!contains(suite->cases, run.kase)) {
    throw UsageError("case '" + run.kase + "' is not in suite " + suite->name + " (one of: " +
                     joined(suite->cases) + ")");
  }
  if (!args.has("lib")) {
    throw UsageError("missing --lib (one of: " + joined(suite->libNames()) + ")");
  }
  run.lib = suite->findLib(args.get("lib"));
  if (run.lib == nullptr) {
    throw UsageError("unknown lib '" + args.get("lib") + "' for suite " + suite->name +
                     " (one of: " + joined(suite->libNames()) + ")");
  }
  for (const Param& p : suite->params) {
    if (!p.appliesTo(run.kase)) {
      if (args.has(p.name)) {
        throw UsageError("flag --" + p.name + " does not apply to case " + run.kase +
                         " of suite " + suite->name + " (only to: " + joined(p.cases) + ")");
      }
      continue;
    }
    // A legal value of the suite that this library does not support says so.
    std::string context =
        args.has(p.name) && contains(p.values, args.get(p.name)) ? " for lib " + run.lib->name : "";
    run.params.push_back({p.name, oneOf(args, p.name, run.lib->values(p), context)});
  }
  if (suite->refuse != nullptr) {
    std::string why = suite->refuse(run);
    if (!why.empty()) throw UsageError(why);
  }
  for (const std::string& f : suite->fixtures) {
    if (args.has(f)) run.fixtures.push_back({f, args.get(f)});
  }

  if (args.has("role")) run.role = oneOf(args, "role", {"local", "client", "server"});
  suite->prepare(run);
  if (run.role == "client" || run.role == "server") {
    if (!args.has("in-fd") || !args.has("out-fd")) {
      throw UsageError("--role " + run.role + " needs --in-fd and --out-fd");
    }
    run.inFd = static_cast<int>(parseCount(args, "in-fd", 0, kMaxFd));
    run.outFd = static_cast<int>(parseCount(args, "out-fd", 0, kMaxFd));
  } else if (args.has("in-fd") || args.has("out-fd")) {
    throw UsageError("--in-fd and --out-fd need --role client or --role server");
  }

  if (run.role != "server") {
    if (!args.has("iters")) throw UsageError("missing --iters");
    run.iters = parseCount(args, "iters", 1, kMaxCount);
    if (args.has("samples")) run.samples = parseCount(args, "samples", 1, kMaxCount);
    if (args.has("warmup")) run.warmup = parseCount(args, "warmup", 0, kMaxCount);
  } else {
    // A server answers until end of file; it accepts the client's counts and ignores them.
    for (const char* n : {"iters", "samples", "warmup"}) {
      if (args.has(n)) parseCount(args, n, 0, kMaxCount);
    }
  }
  return run;
}

// ---- commands --------------------------------------------------------------------------

int info() {
  Pairs versions = {{"compiler", compilerVersion()}};
  for (const Suite* s : suites()) {
    for (const Lib& l : s->libs) {
      for (const auto& kv : l.versions) {
        bool seen = false;
        for (const auto& v : versions) seen = seen || v.first == kv.first;
        if (!seen) versions.push_back(kv);
      }
    }
  }
  Json build;
  build.str("profile", WB_BUILD_PROFILE).str("type", WB_BUILD_TYPE).str("flags", WB_CXX_FLAGS);
  Json j;
  j.num("protocol", kProtocol)
      .str("lang", kLang)
      .str("toolchain", toolchain())
      .str("driver", kDriver)
      .strings("suites", suiteNames())
      .pairs("versions", versions)
      .raw("build", build.text());
  printLine(j.text());
  return 0;
}

int list() {
  std::string out;
  for (const Suite* s : suites()) {
    for (const Cell& c : s->cells()) {
      Json j;
      j.str("suite", c.suite).str("case", c.kase).str("lib", c.lib);
      if (!c.format.empty()) j.str("format", c.format);
      j.pairs("params", c.params);
      out += j.text() + "\n";
    }
  }
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return 0;
}

// `golden write DIR` and `golden check DIR`, for the suites that have golden files: one
// JSON line per file.
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
  for (const Suite* s : suites()) {
    if (sub == "write" && s->goldenWrite != nullptr) {
      s->goldenWrite(dir, [](const GoldenFile& f) {
        Json j;
        j.str("file", f.name);
        if (f.records > 0) {
          j.num("records", f.records);
        } else {
          j.num("messages", f.messages);
        }
        j.num("bytes", f.bytes);
        printLine(j.text());
      });
    } else if (sub == "check" && s->goldenCheck != nullptr) {
      s->goldenCheck(dir, [](const GoldenFile& f) {
        Json j;
        j.str("file", f.name);
        if (f.skipped) {
          j.boolean("skipped", true);
        } else if (f.records > 0) {
          j.strings("libs", f.libs)
              .num("records", f.records)
              .boolean("same_bytes", f.sameBytes)
              .boolean("ok", true);
        } else {
          j.num("messages", f.messages).boolean("ok", true);
        }
        printLine(j.text());
      });
    }
  }
  return 0;
}

// The usage, from the registry.
std::string usage() {
  std::string u =
      "usage: wirebench-cpp info | list\n"
      "       wirebench-cpp run --suite S --case C --lib L [cell parameters] --iters N\n"
      "         [--samples S] [--warmup W] [--role local|client|server] [--in-fd R --out-fd W]\n"
      "         [--input FILE] [--work-dir DIR] [--out-dir DIR] (fixtures, for suites that "
      "take them)\n"
      "       wirebench-cpp golden write|check DIR\n";
  for (const Suite* s : suites()) u += s->commandUsage;
  auto bars = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "|") + x;
    return s;
  };
  for (const Suite* s : suites()) {
    u += "  suite " + s->name + ": --case " + bars(s->cases) + " --lib " + bars(s->libNames()) +
         "\n   ";
    for (const Param& p : s->params) {
      u += " --" + p.name + " " + bars(p.values);
      if (!p.cases.empty()) u += " (" + bars(p.cases) + ")";
    }
    u += "\n";
  }
  return u;
}

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
    // A suite's own commands: `queue append DIR ...`.
    if (const wb::Suite* s = wb::findSuite(command); s != nullptr && s->command != nullptr) {
      return s->command(std::vector<std::string>(argv + 2, argv + argc));
    }
    if (command != "run") throw wb::UsageError("unknown command '" + command + "'");
    wb::Run run = wb::validate(wb::parseRunFlags(argc, argv));
    return run.suite->run(run);
  } catch (const wb::UsageError& e) {
    std::fprintf(stderr, "wirebench-cpp: usage error: %s\n%s", e.what(), wb::usage().c_str());
    return 2;
  } catch (...) {
    std::fprintf(stderr, "wirebench-cpp: error: %s\n", wb::describeCurrentException().c_str());
    return 1;
  }
}
