// Strategy `istreambuf_iterator`: std::istreambuf_iterator<char> over a std::ifstream opened
// in binary mode, with the filebuf's default buffer (libstdc++: BUFSIZ, 8 KiB); one
// dereference and one increment per byte.

#include <fstream>
#include <iterator>
#include <string>

#include "readbytes.h"

namespace wb::readbytes {
namespace {

struct IstreambufIterator {
  std::string path;
  explicit IstreambufIterator(const std::string& p) : path(p) {}

  class Source {
   public:
    explicit Source(const IstreambufIterator& lib)
        : path_(lib.path), in_(lib.path, std::ios::in | std::ios::binary) {
      if (!in_.is_open()) cannotOpen(path_);
      it_ = std::istreambuf_iterator<char>(in_);
    }
    bool next(uint8_t& b) {
      if (it_ == end_) return false;
      b = static_cast<uint8_t>(*it_);
      ++it_;
      return true;
    }
    void close() {
      // The iterator reads the filebuf directly: a read error looks like the end of the file
      // (and shows as a wrong count); only a failure to close can be told here.
      if (in_.rdbuf()->close() == nullptr) readError(path_, "close");
    }

   private:
    const std::string& path_;
    std::ifstream in_;
    std::istreambuf_iterator<char> it_, end_;
  };
};

}  // namespace

std::unique_ptr<ReadCell> makeIstreambufIterator(Case kase, const std::string& path) {
  return makeCell<IstreambufIterator>(kase, path);
}

}  // namespace wb::readbytes
