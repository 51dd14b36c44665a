// Strategy `mmap`: each pass maps the whole file (PROT_READ, MAP_PRIVATE) and walks the
// mapping; munmap at the end of the pass. The descriptor is closed once the mapping exists
// (the mapping keeps the file).

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "readbytes.h"

namespace wb::readbytes {
namespace {

struct Mmap {
  std::string path;
  explicit Mmap(const std::string& p) : path(p) {}

  class Source {
   public:
    explicit Source(const Mmap& lib) {
      int fd = ::open(lib.path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) cannotOpen(lib.path);
      struct stat st {};
      if (fstat(fd, &st) != 0) {
        ::close(fd);
        readError(lib.path, "fstat");
      }
      size_ = static_cast<size_t>(st.st_size);
      // mmap refuses a length of 0: an empty file is an empty source.
      if (size_ > 0) {
        void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
          ::close(fd);
          readError(lib.path, "mmap");
        }
        map_ = static_cast<const uint8_t*>(m);
      }
      ::close(fd);
      p_ = map_;
      end_ = map_ + size_;
    }
    ~Source() { close(); }
    Source(const Source&) = delete;
    Source& operator=(const Source&) = delete;

    bool next(uint8_t& b) {
      if (p_ == end_) return false;
      b = *p_++;
      return true;
    }
    void close() {
      if (map_ != nullptr) ::munmap(const_cast<uint8_t*>(map_), size_);
      map_ = nullptr;
    }

   private:
    const uint8_t* map_ = nullptr;
    size_t size_ = 0;
    const uint8_t* p_ = nullptr;
    const uint8_t* end_ = nullptr;
  };
};

}  // namespace

std::unique_ptr<ReadCell> makeMmap(Case kase, const std::string& path) {
  return makeCell<Mmap>(kase, path);
}

}  // namespace wb::readbytes
