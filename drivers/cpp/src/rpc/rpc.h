// The rpc suite (docs/protocol.md, suite rpc): the Cap'n Proto benchmark cases, request and
// response with computation at both ends.
//
//   rpc.h         the suite's types: the tally, the type-erased cell, the library registry
//   loops.h       the narrow interface a library implements, and the loops written once
//                 over it: object, bytes, pipe, pipe-async, serve, golden's write and read
//   registry.cpp  the suite's registry entry: cases, parameters, libraries (one line each)
//   suite.cpp     its run: local, client, server, or a pipe cell with a forked server
//   golden.cpp    `golden write|check DIR`
//   cases.h       the library-independent rules of the cases
//   capnp.cpp, protobuf.cpp, null.cpp: one file per library, the library's work only
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../json.h"

namespace wb {
struct Suite;
}

namespace wb::rpc {

// What the client side accumulates over a run of iterations.
struct Tally {
  uint64_t bytes = 0;      // request + response bytes that crossed the wire
  uint64_t check = 0;      // wrapping sum of the answers (docs/protocol.md, check digests)
  uint64_t responses = 0;  // responses checked against their expectation
};

struct ServerStats {
  uint64_t requests = 0;
  uint64_t bytesIn = 0;
  uint64_t bytesOut = 0;
};

enum class Mode { object, bytes, pipe, pipeAsync };

// One rpc cell (case x lib x compression x reuse), type-erased once per cell by
// CellOf<Lib> (loops.h) from a library's static interface: every method runs a whole loop,
// so the one indirect call is per warm-up, sample or file, never per iteration.
class RpcCell {
 public:
  virtual ~RpcCell() = default;
  // The client side: `iters` iterations of `mode`; the pipe modes run on the connection of
  // connect(), which warm-up and samples share.
  virtual void run(Mode mode, uint64_t iters, Tally& tally) = 0;
  virtual void connect(int inFd, int outFd) = 0;
  virtual void disconnect() = 0;  // flushes and closes the out fd
  // The server side: answers requests until a clean end of file at a message boundary,
  // adding to `stats` as it goes: after a failure, stats.requests is the index of the
  // request that failed.
  virtual void serve(int inFd, int outFd, ServerStats& stats) = 0;
  // Golden files: the pipe client's two sides on any fd, e.g. a file. writeRequests builds
  // `n` requests from the generator's current state, writes them to `fd` as the pipe
  // modes do and returns their expectations; readResponses reads responses from `fd` as the
  // pipe modes do, until a clean end of file at a message boundary, appending their answers
  // (after a failure, answers.size() is the index of the response that failed).
  virtual std::vector<uint64_t> writeRequests(int fd, uint64_t n) = 0;
  virtual void readResponses(int fd, std::vector<uint64_t>& answers) = 0;
};

// A library's factory; returns nullptr for a case it does not have.
using RpcFactory = std::unique_ptr<RpcCell>(const std::string& kase,
                                            const std::string& compression, bool reuse);

// One library of the rpc suite (registry.cpp).
struct RpcLib {
  std::string name;
  std::vector<std::string> compressions;  // in the order of `list`
  RpcFactory* make;
  Pairs versions;  // the extra provenance of its results
};

const std::vector<std::string>& cases();
const std::vector<RpcLib>& libs();
const RpcLib* findLib(const std::string& name);
const Suite& suite();

}  // namespace wb::rpc
