// Strategy `fgetc`: one fgetc call per byte (stdio's own buffer; the stream's lock taken
// and released for every byte).

#include <stdio.h>

#include <string>

#include "cfile.h"
#include "readbytes.h"

namespace wb::readbytes {
namespace {

struct Fgetc {
  std::string path;
  explicit Fgetc(const std::string& p) : path(p) {}

  class Source {
   public:
    explicit Source(const Fgetc& lib) : file_(lib.path) {}
    bool next(uint8_t& b) {
      int c = fgetc(file_.get());
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

std::unique_ptr<ReadCell> makeFgetc(Case kase, const std::string& path) {
  return makeCell<Fgetc>(kase, path);
}

}  // namespace wb::readbytes
