// Types shared by the CLI (main.cpp), the registry and the library implementations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb {

// A failed run (wrong answer, corrupt message, I/O error): exit status 1.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A bad command line: exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& message);

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

// One rpc cell (case x lib x compression x reuse); the mode picks the method. The pipe
// client keeps its streams between calls, so that warm-up and samples share one connection.
class RpcCell {
 public:
  virtual ~RpcCell() = default;
  virtual void object(uint64_t iters, Tally& tally) = 0;
  virtual void bytes(uint64_t iters, Tally& tally) = 0;
  virtual void openClient(int inFd, int outFd) = 0;
  virtual void pipe(uint64_t iters, Tally& tally) = 0;
  virtual void pipeAsync(uint64_t iters, Tally& tally) = 0;
  virtual void closeClient() = 0;  // flushes and closes the out fd
  // Answers requests until a clean end of file at a message boundary, adding to `stats` as
  // it goes: after a failure, stats.requests is the index of the request that failed.
  virtual void serve(int inFd, int outFd, ServerStats& stats) = 0;

  // Golden files (src/golden.cpp): the pipe client's side of the wire on any fd, e.g. a file.
  // Builds `n` requests from the generator's current state and writes them to `fd` in the
  // framing and with the builders that pipe() uses; returns each request's expectation as
  // its digest term (docs/protocol.md, check digests).
  virtual std::vector<uint64_t> writeRequests(int fd, uint64_t n) = 0;
  // Reads responses from `fd` as pipe() does, until a clean end of file at a message
  // boundary, appending each one's answer as a digest term to `answers`: after a failure,
  // answers.size() is the index of the response that failed.
  virtual void readResponses(int fd, std::vector<uint64_t>& answers) = 0;
};

// Each library's factory; returns nullptr for a combination it does not support.
std::unique_ptr<RpcCell> makeCapnpCell(const std::string& kase, const std::string& compression,
                                       bool reuse);
std::unique_ptr<RpcCell> makeProtobufCell(const std::string& kase,
                                          const std::string& compression, bool reuse);
std::unique_ptr<RpcCell> makeNullCell(const std::string& kase, const std::string& compression,
                                      bool reuse);

// Library versions for the provenance in `info` and in results.
std::string capnpVersion();
std::string protobufVersion();

// Suite `limit`, case `memcpy` (src/limit/memcpy.cpp).
class MemcpyCell {
 public:
  explicit MemcpyCell(size_t block);
  ~MemcpyCell();
  MemcpyCell(const MemcpyCell&) = delete;
  MemcpyCell& operator=(const MemcpyCell&) = delete;
  void scramble();  // makes dst differ from src, so that verify() proves the copies ran
  void copy(uint64_t iters);
  bool verify() const;
  size_t block() const { return block_; }

 private:
  size_t block_;
  unsigned char* src_;
  unsigned char* dst_;
};

}  // namespace wb
