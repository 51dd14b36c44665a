// The rpc suite's run of one validated cell: local (object, bytes), or a pipe cell as
// client, as server, or (no --role) as client with a forked server of its own, like the
// reference programs' passByPipe.

#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "../common.h"
#include "../io.h"
#include "../registry.h"
#include "../result.h"
#include "../rng.h"
#include "../timing.h"
#include "rpc.h"

namespace wb::rpc {
namespace {

Mode modeOf(const Run& run) {
  const std::string& m = run.param("mode");
  if (m == "object") return Mode::object;
  if (m == "bytes") return Mode::bytes;
  if (m == "pipe") return Mode::pipe;
  return Mode::pipeAsync;
}

std::unique_ptr<RpcCell> makeCell(const Run& run) {
  auto cell = findLib(run.lib->name)
                  ->make(run.kase, run.param("compression"), run.param("reuse") == "reuse");
  if (!cell) fail("lib " + run.lib->name + " has no case " + run.kase);
  return cell;
}

// The client side of the timing loop (timing.h): the generator is reset at the start of
// the warm-up and of every sample; a sample's iterations are one call into the cell.
class Client {
 public:
  Client(RpcCell& cell, Mode mode) : cell_(cell), mode_(mode) {}

  void reset() {
    tally_ = Tally();
    resetRng();
  }
  void iterate(uint64_t n) { cell_.run(mode_, n, tally_); }
  void done(bool sample) {
    responses_ += tally_.responses;
    if (sample) {
      bytes_.push_back(tally_.bytes);
      check_.push_back(static_cast<int64_t>(tally_.check));
    }
  }

  void print(const Run& run, const std::string& role, const std::vector<uint64_t>& ns) const {
    Json evidence;
    evidence.list("check", check_).num("responses_checked", responses_);
    printResult(run, role,
                {{"time", "ns", run.iters, ns}, {"bytes", "B", run.iters, bytes_}}, evidence);
  }

 private:
  RpcCell& cell_;
  Mode mode_;
  Tally tally_;
  std::vector<uint64_t> bytes_;
  std::vector<int64_t> check_;
  uint64_t responses_ = 0;
};

void checkFd(int fd, const char* flag) {
  if (fcntl(fd, F_GETFD) < 0) {
    throw UsageError(std::string(flag) + " " + std::to_string(fd) + " is not an open fd");
  }
}

void runServer(const Run& run, int inFd, int outFd, bool quiet) {
  auto cell = makeCell(run);
  ServerStats st;
  cell->serve(inFd, outFd, st);
  if (!quiet) {
    Json counts;
    counts.num("requests", st.requests).num("bytes_in", st.bytesIn).num("bytes_out", st.bytesOut);
    printServer(run, counts);
  }
}

// A pipe cell without --role: forks a server child of this process and runs the client here.
int runForked(const Run& run) {
  int toServer[2], toClient[2];
  if (::pipe(toServer) != 0 || ::pipe(toClient) != 0) fail("pipe() failed");
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t child = fork();
  if (child < 0) fail("fork() failed");
  if (child == 0) {
    ::close(toServer[1]);
    ::close(toClient[0]);
    int status = 1;
    try {
      runServer(run, toServer[0], toClient[1], /*quiet=*/true);
      status = 0;
    } catch (...) {
      std::fprintf(stderr, "wirebench-cpp: server: %s\n", describeCurrentException().c_str());
    }
    std::fflush(stderr);
    _exit(status);
  }
  ::close(toServer[0]);
  ::close(toClient[1]);
  auto cell = makeCell(run);
  Client client(*cell, modeOf(run));
  cell->connect(toClient[0], toServer[1]);
  std::vector<uint64_t> ns = measure(run, client);
  cell->disconnect();
  ::close(toClient[0]);
  int status = 0;
  if (waitpid(child, &status, 0) != child) fail("waitpid() failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fail("the forked server failed (" +
         (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                            : "signal " + std::to_string(WTERMSIG(status))) +
         ")");
  }
  client.print(run, "local", ns);
  return 0;
}

}  // namespace

int run(const Run& run) {
  if (run.role.empty()) return runForked(run);
  if (run.role == "server" || run.role == "client") {
    checkFd(run.inFd, "--in-fd");
    checkFd(run.outFd, "--out-fd");
  }
  if (run.role == "server") {
    runServer(run, run.inFd, run.outFd, /*quiet=*/false);
    return 0;
  }
  auto cell = makeCell(run);
  Client client(*cell, modeOf(run));
  if (run.role == "client") cell->connect(run.inFd, run.outFd);
  std::vector<uint64_t> ns = measure(run, client);
  if (run.role == "client") cell->disconnect();
  client.print(run, run.role, ns);
  return 0;
}

}  // namespace wb::rpc
