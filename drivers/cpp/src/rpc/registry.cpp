// The rpc suite's registry entry: its cases, parameters and libraries. Adding a library is
// its file (src/rpc/<lib>.cpp, defining its factory) and one line in libs() below, with the
// factory's name on the declaration line above it.

#include "../registry.h"

#include "../common.h"
#include "rpc.h"

namespace wb::rpc {

// The factories, each defined in its library's file, and the versions they report.
RpcFactory makeCapnp, makeProtobuf, makeNull;
std::string capnpVersion(), protobufVersion();

const std::vector<RpcLib>& libs() {
  static const std::vector<RpcLib> v = {
      // name, compressions (in list order), factory, provenance versions
      {"capnp", {"none", "packed"}, &makeCapnp, {{"capnp", capnpVersion()}}},
      {"protobuf", {"none"}, &makeProtobuf, {{"protobuf", protobufVersion()}}},
      {"null", {"none"}, &makeNull, {}},
  };
  return v;
}

const std::vector<std::string>& cases() {
  static const std::vector<std::string> v = {"carsales", "catrank", "eval"};
  return v;
}

const RpcLib* findLib(const std::string& name) {
  for (const RpcLib& lib : libs()) {
    if (lib.name == name) return &lib;
  }
  return nullptr;
}

int run(const Run& run);                                         // suite.cpp
void goldenWrite(const std::string& dir, const GoldenReport& report);  // golden.cpp
void goldenCheck(const std::string& dir, const GoldenReport& report);

namespace {

bool isPipe(const std::string& mode) { return mode == "pipe" || mode == "pipe-async"; }

// Object mode serializes nothing: a compressed variant would repeat the same work.
std::string refuse(const Run& run) {
  const std::string& compression = run.param("compression");
  if (run.param("mode") == "object" && compression != "none") {
    return "compression " + compression + " does not apply to mode object";
  }
  return "";
}

// A pipe cell runs as client, as server, or (no --role) with a forked server of its own;
// the other modes are local.
void prepare(Run& run) {
  const std::string& mode = run.param("mode");
  if (run.role.empty() && !isPipe(mode)) run.role = "local";
  if (run.role == "local" && isPipe(mode)) {
    throw UsageError("--role local is not possible with --mode " + mode +
                     " (use client or server, or no --role to fork a server)");
  }
  if (!run.role.empty() && run.role != "local" && !isPipe(mode)) {
    throw UsageError("--role " + run.role + " needs a pipe mode (pipe or pipe-async)");
  }
}

Suite make() {
  Suite s;
  s.name = "rpc";
  s.cases = cases();
  s.params = {{"mode", {"object", "bytes", "pipe", "pipe-async"}},
              {"compression", {"none", "packed"}},
              {"reuse", {"reuse", "no-reuse"}}};
  for (const RpcLib& lib : libs()) {
    s.libs.push_back({lib.name, {{"compression", lib.compressions}}, lib.versions});
  }
  s.refuse = &refuse;
  s.prepare = &prepare;
  s.run = &rpc::run;
  s.goldenWrite = &goldenWrite;
  s.goldenCheck = &goldenCheck;
  return s;
}

}  // namespace

const Suite& suite() {
  static const Suite s = make();
  return s;
}

}  // namespace wb::rpc
