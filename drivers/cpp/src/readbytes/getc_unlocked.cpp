// Strategy `getc_unlocked`: POSIX's unlocked getc; glibc's <stdio.h> gives it the same
// inline body as fgetc_unlocked when optimising (kept as the seed's separate cell).

#include <stdio.h>

#include <string>

#include "cfile.h"
#include "readbytes.h"

namespace wb::readbytes {
namespace {

struct GetcUnlocked {
  std::string path;
  explicit GetcUnlocked(const std::string& p) : path(p) {}

  class Source {
   public:
    explicit Source(const GetcUnlocked& lib) : file_(lib.path) {}
    bool next(uint8_t& b) {
      int c = getc_unlocked(file_.get());
      if (c == EOF) return false;
      b = static_cast<uint8_t>(c);
      return true;
    }
    void close() { file_.close(); }

   private:
    CFile file_;
  };
};

}  // namespace

std::unique_ptr<ReadCell> makeGetcUnlocked(Case kase, const std::string& path) {
  return makeCell<GetcUnlocked>(kase, path);
}

}  // namespace wb::readbytes
