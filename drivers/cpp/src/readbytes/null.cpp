// Strategy `null`, the floor: the file is read whole into memory once per process, before
// timing; a pass consumes that memory through the same byte-source interface, no I/O at all.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "readbytes.h"

namespace wb::readbytes {
namespace {

struct Null {
  std::vector<uint8_t> data;

  explicit Null(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) cannotOpen(path);
    struct stat st {};
    if (fstat(fd, &st) != 0) {
      ::close(fd);
      readError(path, "fstat");
    }
    data.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < data.size()) {
      ssize_t n = ::read(fd, data.data() + got, data.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        readError(path, "read");
      }
      got += static_cast<size_t>(n);
    }
    ::close(fd);
  }

  class Source {
   public:
    explicit Source(const Null& lib) : p_(lib.data.data()), end_(p_ + lib.data.size()) {}
    bool next(uint8_t& b) {
      if (p_ == end_) return false;
      b = *p_++;
      return true;
    }
    void close() {}

   private:
    const uint8_t* p_;
    const uint8_t* end_;
  };
};

}  // namespace

std::unique_ptr<ReadCell> makeNull(Case kase, const std::string& path) {
  return makeCell<Null>(kase, path);
}

}  // namespace wb::readbytes
