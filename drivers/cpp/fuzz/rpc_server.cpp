// The rpc suite's fuzz code path: one library's server side, as `run --role server` takes
// it (the library's factory, then RpcCell::serve on an input fd and an output fd). The first
// byte chooses the cell: with n cases (carsales, catrank, eval), `% n` the case, `/n % 2`
// reuse (0) or no-reuse, `/2n` the compression (capnp: none, packed); the rest is the
// stream the server reads from its pipe, here a memfd, its responses going to /dev/null. A
// Failure or a kj::Exception (a corrupt or truncated stream refused) is a clean end; the
// result is whether the server refused the stream.

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <kj/exception.h>
#include <string>

#include "common.h"
#include "rpc/rpc.h"
#include "targets.h"

namespace wb::fuzz {

namespace {

int openOrDie(int fd, const char* what) {
  if (fd < 0) {
    std::perror(what);
    std::abort();
  }
  return fd;
}

}  // namespace

bool serveRpc(const std::string& name, const uint8_t* data, size_t size) {
  static const int in = openOrDie(memfd_create("wirebench-fuzz-in", 0), "memfd_create");
  static const int out = openOrDie(open("/dev/null", O_WRONLY), "/dev/null");
  const rpc::RpcLib* lib = rpc::findLib(name);
  if (lib == nullptr) fail("no rpc library " + name);
  if (size == 0) return true;

  const size_t n = rpc::cases().size();
  const uint8_t select = data[0];
  const std::string& kase = rpc::cases()[select % n];
  const bool reuse = (select / n) % 2 == 0;
  const std::string& compression =
      lib->compressions[(select / (2 * n)) % lib->compressions.size()];

  if (ftruncate(in, 0) != 0 || pwrite(in, data + 1, size - 1, 0) != ssize_t(size - 1) ||
      lseek(in, 0, SEEK_SET) != 0) {
    std::perror("memfd");
    std::abort();
  }
  auto cell = lib->make(kase, compression, reuse);
  if (!cell) return true;
  rpc::ServerStats stats;
  try {
    cell->serve(in, out, stats);
    return false;
  } catch (const wb::Failure&) {
  } catch (const kj::Exception&) {
  } catch (const std::exception&) {
  }
  return true;
}

}  // namespace wb::fuzz
