#include "io.h"

#include <errno.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

// Cap'n Proto's exceptions are described where a suite that uses it is built (WB_WITH_KJ).
#ifdef WB_WITH_KJ
#include <kj/exception.h>
#endif

namespace wb {

void fail(const std::string& message) { throw Failure(message); }

void writeAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(std::string("write failed: ") + std::strerror(errno));
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
}

bool readExact(int fd, void* data, size_t size, const char* what) {
  char* p = static_cast<char*>(data);
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, p + got, size - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(std::string("read failed: ") + std::strerror(errno));
    }
    if (n == 0) {
      if (got == 0) return false;
      fail(std::string("truncated ") + what + ": end of file after " + std::to_string(got) +
           " of " + std::to_string(size) + " bytes");
    }
    got += static_cast<size_t>(n);
  }
  return true;
}

std::string describeCurrentException() {
  try {
    throw;
#ifdef WB_WITH_KJ
  } catch (const kj::Exception& e) {
    return "Cap'n Proto: " + std::string(e.getDescription().cStr());
#endif
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

void reportAndExit(const char* side) {
  std::string why = describeCurrentException();
  std::fprintf(stderr, "wirebench-cpp: %s: %s\n", side, why.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace wb
