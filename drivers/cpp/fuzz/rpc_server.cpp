// libFuzzer target: the rpc suite's server side of one library (WB_FUZZ_LIB), on the same
// path `run --role server` takes (the library's factory, then RpcCell::serve on an input
// fd and an output fd). The first byte chooses the cell: case (carsales, catrank, eval),
// reuse, and for capnp the compression (none, packed); the rest is the stream the server
// reads from its pipe, here a memfd, its responses going to /dev/null. A Failure or a
// kj::Exception (a corrupt or truncated stream refused) is a clean end; a crash, a
// sanitizer report, a hang or memory beyond libFuzzer's limits is a bug.

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <kj/exception.h>
#include <string>

#include "common.h"
#include "rpc/rpc.h"

#ifndef WB_FUZZ_LIB
#error "WB_FUZZ_LIB names the rpc library"
#endif

namespace {

int openOrDie(int fd, const char* what) {
  if (fd < 0) {
    std::perror(what);
    std::abort();
  }
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const wb::rpc::RpcLib* lib = wb::rpc::findLib(WB_FUZZ_LIB);
  static const int in = openOrDie(memfd_create("wirebench-fuzz-in", 0), "memfd_create");
  static const int out = openOrDie(open("/dev/null", O_WRONLY), "/dev/null");
  if (lib == nullptr || size == 0) return 0;

  static const char* const kCases[] = {"carsales", "catrank", "eval"};
  const uint8_t select = data[0];
  const std::string kase = kCases[select % 3];
  const bool reuse = (select / 3) % 2 == 0;
  const bool packed = lib->compressions.size() > 1 && (select / 6) % 2 == 1;
  const std::string compression = packed ? "packed" : lib->compressions.front();

  if (ftruncate(in, 0) != 0 || pwrite(in, data + 1, size - 1, 0) != ssize_t(size - 1) ||
      lseek(in, 0, SEEK_SET) != 0) {
    std::perror("memfd");
    std::abort();
  }
  auto cell = lib->make(kase, compression, reuse);
  if (!cell) return 0;
  wb::rpc::ServerStats stats;
  try {
    cell->serve(in, out, stats);
  } catch (const wb::Failure&) {
  } catch (const kj::Exception&) {
  } catch (const std::exception&) {
  }
  return 0;
}
