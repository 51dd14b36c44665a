// Strategy `fgetc_unlocked`: fgetc without the stream's lock. When optimising, glibc's
// <stdio.h> defines it inline (a pointer compare and a load per byte, a call only to refill),
// so what the compiler makes of that inline body is measured.

#include <stdio.h>

#include <string>

#include "cfile.h"
#include "readbytes.h"

namespace wb::readbytes {
namespace {

struct FgetcUnlocked {
  std::string path;
  explicit FgetcUnlocked(const std::string& p) : path(p) {}

  class Source {
   public:
    explicit Source(const FgetcUnlocked& lib) : file_(lib.path) {}
    bool next(uint8_t& b) {
      int c = fgetc_unlocked(file_.get());
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

std::unique_ptr<ReadCell> makeFgetcUnlocked(Case kase, const std::string& path) {
  return makeCell<FgetcUnlocked>(kase, path);
}

}  // namespace wb::readbytes
