// Strategy `ifstream_get`: std::ifstream::get(), one formatted-input call per byte (a sentry,
// the filebuf's sbumpc, the stream state), over the filebuf's default buffer (libstdc++:
// BUFSIZ, 8 KiB).

#include <fstream>
#include <string>

#include "readbytes.h"

namespace wb::readbytes {
namespace {

struct IfstreamGet {
  std::string path;
  explicit IfstreamGet(const std::string& p) : path(p) {}

  class Source {
   public:
    explicit Source(const IfstreamGet& lib)
        : path_(lib.path), in_(lib.path, std::ios::in | std::ios::binary) {
      if (!in_.is_open()) cannotOpen(path_);
    }
    bool next(uint8_t& b) {
      std::ifstream::int_type c = in_.get();
      if (c == std::ifstream::traits_type::eof()) return false;
      b = static_cast<uint8_t>(c);
      return true;
    }
    void close() {
      // At the end get() sets eofbit and failbit; badbit is a read error.
      if (in_.bad()) readError(path_, "read");
      if (in_.rdbuf()->close() == nullptr) readError(path_, "close");
    }

   private:
    const std::string& path_;
    std::ifstream in_;
  };
};

}  // namespace

std::unique_ptr<ReadCell> makeIfstreamGet(Case kase, const std::string& path) {
  return makeCell<IfstreamGet>(kase, path);
}

}  // namespace wb::readbytes
