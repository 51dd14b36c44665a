// The rpc suite's loops, written once for every library, over the narrow interface below.
// A library file (capnp.cpp, protobuf.cpp, null.cpp) defines, per case, compression and
// reuse mode, a class `L` holding what the library keeps between messages (builders,
// scratch, buffers) with:
//
//   using Conn = ...;  the library's pipe streams over (inFd, outFd), either of which may be
//                      -1 (unused); bytesRead() and bytesWritten() count every byte,
//                      framing included; its destructor flushes
//   Exchange object()                 build a request, handle it into a response, read the
//                                     response's answer; nothing serialized
//   Exchange bytes()                  the same through the library's bytes (packed if the
//                                     cell is), with both messages' sizes
//   void send(Conn&, Expect expect)   build a request, hand its expectation to expect()
//                                     (before writing: pipe-async's receiver may start
//                                     waiting for the response), write it framed
//   bool receive(Conn&, uint64_t& answer, bool endOk)
//                                     read one response and set its answer; false at a
//                                     clean end of file before a message if `endOk`, else
//                                     that end is a failure
//   bool serveOne(Conn&)              read one request, write its response; false at a clean
//                                     end of file at a message boundary
//
// Expectations and answers are digest terms (docs/protocol.md, check digests); the loops
// compare them, sum the digest and count the bytes. Every call is static (CellOf is
// instantiated per library, case, compression and reuse mode, in the library's file);
// RpcCell's one virtual call runs a whole loop.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../common.h"
#include "../io.h"
#include "rpc.h"

namespace wb::rpc {

// One iteration of mode object or bytes: the expectation computed with the request, the
// answer read from its response, and (bytes) the two messages' sizes.
struct Exchange {
  uint64_t expected = 0;
  uint64_t answer = 0;
  uint64_t bytes = 0;
};

[[noreturn, gnu::cold, gnu::noinline]] inline void wrongAnswer(uint64_t expected,
                                                               uint64_t answer) {
  // Every case's term is a signed 64-bit number (an eval i32 sign-extended).
  fail("incorrect response: expected " + std::to_string(static_cast<int64_t>(expected)) +
       ", got " + std::to_string(static_cast<int64_t>(answer)));
}

[[gnu::always_inline]] inline void tallyOne(Tally& tally, uint64_t expected, uint64_t answer) {
  if (answer != expected) wrongAnswer(expected, answer);
  tally.check += expected;
  ++tally.responses;
}

template <typename L>
class CellOf final : public RpcCell {
  using Conn = typename L::Conn;

 public:
  void run(Mode mode, uint64_t iters, Tally& tally) override {
    switch (mode) {
      case Mode::object: return object(iters, tally);
      case Mode::bytes: return bytes(iters, tally);
      case Mode::pipe: return pipe(iters, tally);
      case Mode::pipeAsync: return pipeAsync(iters, tally);
    }
  }

  void connect(int inFd, int outFd) override {
    conn_.emplace(inFd, outFd);
    outFd_ = outFd;
  }

  void disconnect() override {
    conn_.reset();
    if (outFd_ >= 0) ::close(outFd_);
    outFd_ = -1;
  }

  void serve(int inFd, int outFd, ServerStats& stats) override {
    Conn c(inFd, outFd);
    while (lib_.serveOne(c)) ++stats.requests;
    stats.bytesIn += c.bytesRead();
    stats.bytesOut += c.bytesWritten();
  }

  std::vector<uint64_t> writeRequests(int fd, uint64_t n) override {
    Conn c(-1, fd);
    std::vector<uint64_t> expectations;
    for (; n > 0; --n) lib_.send(c, [&](uint64_t e) { expectations.push_back(e); });
    return expectations;
  }

  void readResponses(int fd, std::vector<uint64_t>& answers) override {
    Conn c(fd, -1);
    uint64_t answer;
    while (lib_.receive(c, answer, /*endOk=*/true)) answers.push_back(answer);
  }

 private:
  void object(uint64_t iters, Tally& tally) {
    for (; iters > 0; --iters) {
      Exchange x = lib_.object();
      tallyOne(tally, x.expected, x.answer);
    }
  }

  void bytes(uint64_t iters, Tally& tally) {
    for (; iters > 0; --iters) {
      Exchange x = lib_.bytes();
      tally.bytes += x.bytes;
      tallyOne(tally, x.expected, x.answer);
    }
  }

  // One request, then its response.
  void pipe(uint64_t iters, Tally& tally) {
    Conn& c = *conn_;
    uint64_t written = c.bytesWritten(), read = c.bytesRead();
    for (; iters > 0; --iters) {
      uint64_t expected = 0, answer = 0;
      lib_.send(c, [&](uint64_t e) { expected = e; });
      lib_.receive(c, answer, /*endOk=*/false);
      tallyOne(tally, expected, answer);
    }
    tally.bytes += (c.bytesWritten() - written) + (c.bytesRead() - read);
  }

  // Requests from this thread, responses read and checked by a second one; the
  // expectations go from one to the other in order.
  void pipeAsync(uint64_t iters, Tally& tally) {
    Conn& c = *conn_;
    uint64_t written = c.bytesWritten(), read = c.bytesRead();
    ExpectationQueue<uint64_t> expectations;
    runSenderReceiver(
        [&] {
          for (uint64_t i = iters; i > 0; --i) {
            lib_.send(c, [&](uint64_t e) { expectations.post(e); });
          }
        },
        [&] {
          for (uint64_t i = iters; i > 0; --i) {
            uint64_t expected = expectations.take(), answer = 0;
            lib_.receive(c, answer, /*endOk=*/false);
            tallyOne(tally, expected, answer);
          }
        });
    tally.bytes += (c.bytesWritten() - written) + (c.bytesRead() - read);
  }

  L lib_;
  std::optional<Conn> conn_;
  int outFd_ = -1;
};

template <typename L>
std::unique_ptr<RpcCell> makeCell() {
  return std::make_unique<CellOf<L>>();
}

// A library's factory for one compression: the cell of L<Case, kReuse> for the case called
// `kase`, given the library's types of the cases, or nullptr for a case it does not have.
template <template <typename, bool> class L, typename CarSales, typename CatRank, typename Eval>
std::unique_ptr<RpcCell> makeCell(const std::string& kase, bool reuse) {
  if (kase == "carsales") {
    return reuse ? makeCell<L<CarSales, true>>() : makeCell<L<CarSales, false>>();
  }
  if (kase == "catrank") {
    return reuse ? makeCell<L<CatRank, true>>() : makeCell<L<CatRank, false>>();
  }
  if (kase == "eval") return reuse ? makeCell<L<Eval, true>>() : makeCell<L<Eval, false>>();
  return nullptr;
}

}  // namespace wb::rpc
