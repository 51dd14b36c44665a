// The registry's types, which the command line, `list` and `info` read and no suite's code
// is needed for: a suite with its cases, parameters, libraries and fixtures, and a validated
// run of one of its cells. The suites are listed in src/suites.cpp; each suite's folder
// declares its own entry (src/rpc/registry.cpp, src/limit/suite.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "json.h"

namespace wb {

// A cell parameter of a suite, passed as --NAME VALUE, with its legal values in the order
// of `list`, and the cases it applies to (queue's rate: paced only; empty: every case). A
// case's cells and runs have only the parameters that apply to it.
struct Param {
  std::string name;
  std::vector<std::string> values;
  std::vector<std::string> cases{};

  bool appliesTo(const std::string& kase) const;
};

// A library of a suite as the command line and `list` see it; the suite's own library
// registry holds its factory.
struct Lib {
  std::string name;
  // Parameters whose values this library narrows (capnp's compressions), in list order; a
  // parameter not named here takes all of its suite's values.
  std::vector<Param> supports;
  // The extra provenance of this library's results: (key, version).
  Pairs versions;
  // The encoding it writes, named as its golden files `<case>.<format>` (codec); "" in a
  // suite without formats. `list` prints it after "lib".
  std::string format{};

  // The values of `p` this library supports.
  const std::vector<std::string>& values(const Param& p) const;
};

struct Suite;

// One `run`, validated against its suite's registry entry.
struct Run {
  const Suite* suite = nullptr;
  std::string kase;
  const Lib* lib = nullptr;
  Pairs params;  // every parameter of the suite that applies to the case, in its order
  // local, client or server; "" for a run that its suite starts its own peer for (an rpc
  // pipe cell without --role).
  std::string role;
  int inFd = -1, outFd = -1;  // the pipe ends of a client or a server
  uint64_t iters = 0, samples = 1, warmup = 0;  // a server ignores them
  Pairs fixtures;  // the fixture flags given (only ones the suite takes)

  // The value of the parameter called `name` ("" if the suite has none).
  const std::string& param(const std::string& name) const;
  // A result's provenance: the compiler, then the library's versions.
  Pairs versions() const;
};

// One line of `list`.
struct Cell {
  std::string suite, kase, lib;
  std::string format;  // the library's, "" for none
  Pairs params;
};

// One golden file written, checked or skipped (`golden write|check DIR`).
struct GoldenFile {
  std::string name;  // file name inside the directory
  uint64_t messages = 0;
  uint64_t bytes = 0;
  bool skipped = false;
  // A codec file (<case>.<format>): its records instead of messages; when checked, the
  // libraries that decoded it and whether it equals this driver's own encoding.
  uint64_t records = 0;
  std::vector<std::string> libs{};
  bool sameBytes = false;
};
using GoldenReport = std::function<void(const GoldenFile&)>;
using GoldenCommand = void (*)(const std::string& dir, const GoldenReport& report);

struct Suite {
  std::string name;
  std::vector<std::string> cases;
  std::vector<Param> params;
  std::vector<Lib> libs;
  // The fixture flags (fixtureFlags()) this suite takes; rpc and limit take none.
  std::vector<std::string> fixtures;
  // Why a combination of legal values is not a cell (a usage error's message), or "":
  // `list` leaves it out and `run` refuses it. Optional.
  std::string (*refuse)(const Run& run) = nullptr;
  // Checks the run's --role against its parameters, and gives a run without --role its
  // default role. Throws UsageError.
  void (*prepare)(Run& run) = nullptr;
  // Runs one validated cell and prints its result; returns the exit status.
  int (*run)(const Run& run) = nullptr;
  // `golden write DIR` and `golden check DIR`, for a suite that has golden files.
  GoldenCommand goldenWrite = nullptr, goldenCheck = nullptr;
  // A suite's own commands, `DRIVER <suite> ARGS...` (queue append|tail): gets ARGS,
  // returns the exit status, throws UsageError. Its lines of the usage text, each ending in
  // a newline.
  int (*command)(const std::vector<std::string>& args) = nullptr;
  std::string commandUsage{};

  const Lib* findLib(const std::string& name) const;
  const Param* findParam(const std::string& name) const;
  std::vector<std::string> libNames() const;
  std::vector<std::string> paramNames() const;
  // The cells in the order of `list`: case, library, then every parameter that applies to
  // the case in its order with the values the library supports, less what `refuse` refuses.
  std::vector<Cell> cells() const;
};

// The suites, in the order of `list` and `info` (src/suites.cpp).
const std::vector<const Suite*>& suites();
const Suite* findSuite(const std::string& name);
std::vector<std::string> suiteNames();

// The fixture flags the command line knows (docs/protocol.md); a suite declares the ones
// it takes and refuses the others.
const std::vector<std::string>& fixtureFlags();

// "a, b, c", or "none".
std::string joined(const std::vector<std::string>& names);

}  // namespace wb
