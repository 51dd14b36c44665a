// Strategy `fread`: fread into an own 64 KiB buffer, refilled when it runs dry (the seed's
// "straight forward implementation using fread with buffering").

#include <cstdio>
#include <string>

#include "cfile.h"
#include "readbytes.h"

namespace wb::readbytes {
namespace {

struct Fread {
  std::string path;
  explicit Fread(const std::string& p) : path(p) {}

  class Source {
   public:
    explicit Source(const Fread& lib) : file_(lib.path) {}
    bool next(uint8_t& b) {
      if (p_ == end_ && !refill()) return false;
      b = *p_++;
      return true;
    }
    void close() { file_.close(); }

   private:
    bool refill() {
      size_t n = std::fread(buf_, 1, sizeof buf_, file_.get());
      p_ = buf_;
      end_ = buf_ + n;
      return n > 0;
    }

    CFile file_;
    uint8_t buf_[kBufferSize];
    const uint8_t* p_ = buf_;
    const uint8_t* end_ = buf_;
  };
};

}  // namespace

std::unique_ptr<ReadCell> makeFread(Case kase, const std::string& path) {
  return makeCell<Fread>(kase, path);
}

}  // namespace wb::readbytes
