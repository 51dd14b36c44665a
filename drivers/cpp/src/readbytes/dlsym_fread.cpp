// Strategy `dlsym_fread`: fread found through dlopen("libc.so.6") and dlsym("fread"), once
// per process before timing, then called through the pointer into an own 64 KiB buffer (the
// seed's attempt at a call the compiler cannot see into).

#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "cfile.h"
#include "readbytes.h"

namespace wb::readbytes {
namespace {

using FreadFn = size_t (*)(void*, size_t, size_t, FILE*);

struct DlsymFread {
  std::string path;
  FreadFn fread = nullptr;

  explicit DlsymFread(const std::string& p) : path(p) {
    // Never dlclosed: the pointer stays valid for the process.
    void* libc = dlopen("libc.so.6", RTLD_NOW);
    if (libc == nullptr) fail(std::string("dlopen(\"libc.so.6\"): ") + dlerror());
    fread = reinterpret_cast<FreadFn>(dlsym(libc, "fread"));
    if (fread == nullptr) fail(std::string("dlsym(\"fread\"): ") + dlerror());
  }

  class Source {
   public:
    explicit Source(const DlsymFread& lib) : file_(lib.path), fread_(lib.fread) {}
    bool next(uint8_t& b) {
      if (p_ == end_ && !refill()) return false;
      b = *p_++;
      return true;
    }
    void close() { file_.close(); }

   private:
    bool refill() {
      size_t n = fread_(buf_, 1, sizeof buf_, file_.get());
      p_ = buf_;
      end_ = buf_ + n;
      return n > 0;
    }

    CFile file_;
    FreadFn fread_;
    uint8_t buf_[kBufferSize];
    const uint8_t* p_ = buf_;
    const uint8_t* end_ = buf_;
  };
};

}  // namespace

std::unique_ptr<ReadCell> makeDlsymFread(Case kase, const std::string& path) {
  return makeCell<DlsymFread>(kase, path);
}

}  // namespace wb::readbytes
