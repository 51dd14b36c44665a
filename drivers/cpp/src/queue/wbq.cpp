// The wbq queue (docs/queue-format.md), everything but the inline write path of wbq.h: cycle
// files (creation through a .tmp file and a rename, header checks, mapping), the appender's
// lock, recovery, roll-over and pretouch, the tailer; and at the end the queue suite's
// library `wbq`, the benchmark's appender and tailer over it.

#include "wbq.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "../common.h"
#include "loops.h"

namespace wb::queue::wbq {
namespace {

constexpr char kMagic[8] = {'w', 'b', 'q', 'u', 'e', 'u', 'e', '1'};

std::string errnoText() { return std::strerror(errno); }

// Closes a file descriptor when it goes out of scope.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string at(const std::string& path, uint64_t offset) {
  return path + " offset " + std::to_string(offset);
}

// A cycle file's header, checked field by field.
struct Header {
  uint64_t size = 0;
  ClockId clock = ClockId::mono;
};

Header checkHeader(const std::string& path, int fd, uint64_t cycle) {
  struct stat st;
  if (fstat(fd, &st) != 0) fail(path + ": fstat: " + errnoText());
  uint8_t h[kHeaderSize];
  ssize_t got = pread(fd, h, sizeof h, 0);
  if (got < 0) fail(path + ": read: " + errnoText());
  if (static_cast<uint64_t>(got) < kHeaderSize) {
    fail(at(path, static_cast<uint64_t>(got)) + ": truncated: shorter than its 64-byte header");
  }
  if (std::memcmp(h, kMagic, sizeof kMagic) != 0) {
    fail(at(path, 0) + ": bad magic, not a wbq cycle file");
  }
  if (uint32_t v = load<uint32_t>(h + 8); v != kVersion) {
    fail(at(path, 8) + ": format version " + std::to_string(v) + ", this reader knows 1");
  }
  if (uint32_t v = load<uint32_t>(h + 12); v != kHeaderSize) {
    fail(at(path, 12) + ": header size " + std::to_string(v) + ", expected 64");
  }
  Header r;
  r.size = load<uint64_t>(h + 16);
  if (std::string why = badCycleSize(r.size); !why.empty()) {
    fail(at(path, 16) + ": file size " + std::to_string(r.size) + ": " + why);
  }
  if (uint64_t n = load<uint64_t>(h + 24); n != cycle) {
    fail(at(path, 24) + ": cycle number " + std::to_string(n) + ", the file's name says " +
         std::to_string(cycle));
  }
  uint32_t clock = load<uint32_t>(h + 32);
  if (clock != 1 && clock != 2) fail(at(path, 32) + ": unknown clock " + std::to_string(clock));
  r.clock = static_cast<ClockId>(clock);
  if (static_cast<uint64_t>(st.st_size) < r.size) {
    fail(at(path, static_cast<uint64_t>(st.st_size)) + ": truncated: the file ends here, its " +
         "header (offset 16) says " + std::to_string(r.size) + " bytes");
  }
  return r;
}

// Maps the cycle file `cycle` of `dir` after checking its header, and against the queue's
// clock and size where they are known. An empty Mapping if the file does not exist.
Mapping mapCycle(const std::string& dir, uint64_t cycle, bool writable,
                 std::optional<ClockId> clock, std::optional<uint64_t> size) {
  Mapping m;
  std::string path = dir + "/" + cycleName(cycle);
  Fd fd{::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC)};
  if (fd.fd < 0) {
    if (errno == ENOENT) return m;
    fail(path + ": open: " + errnoText());
  }
  Header h = checkHeader(path, fd.fd, cycle);
  if (clock && h.clock != *clock) {
    fail(at(path, 32) + ": clock " + clockName(h.clock) + ", the queue's is " + clockName(*clock));
  }
  if (size && h.size != *size) {
    fail(at(path, 16) + ": file size " + std::to_string(h.size) + ", the queue's is " +
         std::to_string(*size));
  }
  void* base = mmap(nullptr, h.size, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
                    fd.fd, 0);
  if (base == MAP_FAILED) fail(path + ": mmap: " + errnoText());
  m.base = static_cast<uint8_t*>(base);
  m.size = h.size;
  m.cycle = cycle;
  m.path = path;
  return m;
}

// The header of a file mapped by mapCycle (so checked).
Header headerOf(const Mapping& m) {
  return {m.size, static_cast<ClockId>(load<uint32_t>(m.base + 32))};
}

// The length of the entry whose header word `w` is at offset p of `m` (0 for END), after
// checking the word and the room rule.
uint64_t checkWord(const Mapping& m, uint64_t p, uint64_t w) {
  uint64_t flags = w & kFlags, n = w & kLength;
  if ((w & ~(kFlags | kLength)) != 0 ||
      (flags != 0 && flags != kWorking && flags != kAbandoned && flags != kEnd)) {
    fail(at(m.path, p) + ": corrupt header word " + hex(w));
  }
  if (flags == kEnd) {
    if (n != 0) fail(at(m.path, p) + ": corrupt header word " + hex(w) + ": END with a length");
    return 0;
  }
  if (p + kEntryHeader + pad8(n) + 8 > m.size) {
    fail(at(m.path, p) + ": an entry of " + std::to_string(n) + " bytes runs past the room of a " +
         std::to_string(m.size) + "-byte file");
  }
  return n;
}

uint64_t* wordAt(const Mapping& m, uint64_t p) { return reinterpret_cast<uint64_t*>(m.base + p); }

// Touches one word of every page of `m` from `from` on, storing the zero that is there (the
// appender's own memory beyond its position: nobody else writes it, tailers only load it).
void touch(Mapping& m, uint64_t from) {
  for (uint64_t off = std::max(from, m.touched); off < m.size; off = (off & ~(kPage - 1)) + kPage) {
    __atomic_store_n(wordAt(m, off), uint64_t{0}, __ATOMIC_RELAXED);
  }
  m.touched = m.size;
}

}  // namespace

std::string cycleName(uint64_t cycle) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08" PRIu64 ".wbq", cycle);
  return buf;
}

std::vector<uint64_t> cycles(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) fail(dir + ": cannot list the queue's directory: " + errnoText());
  std::vector<uint64_t> v;
  while (dirent* e = readdir(d)) {
    const char* n = e->d_name;
    if (std::strlen(n) != 12 || std::strcmp(n + 8, ".wbq") != 0) continue;
    if (!std::all_of(n, n + 8, [](char c) { return c >= '0' && c <= '9'; })) continue;
    v.push_back(std::strtoull(std::string(n, 8).c_str(), nullptr, 10));
  }
  closedir(d);
  std::sort(v.begin(), v.end());
  return v;
}

std::string badCycleSize(uint64_t size) {
  if (size < kMinCycleSize) return "less than 64 KiB";
  if (size % kPage != 0) return "not a multiple of 4096";
  return "";
}

void removeCycles(const std::string& dir, uint64_t from, uint64_t to) {
  for (uint64_t c = from; c < to; ++c) {
    std::string path = dir + "/" + cycleName(c);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) fail(path + ": unlink: " + errnoText());
  }
}

Mapping& Mapping::operator=(Mapping&& o) noexcept {
  if (this != &o) {
    unmap();
    base = o.base;
    size = o.size;
    cycle = o.cycle;
    touched = o.touched;
    path = std::move(o.path);
    o.base = nullptr;
    o.size = 0;
  }
  return *this;
}

void Mapping::unmap() {
  if (base != nullptr) munmap(base, size);
  base = nullptr;
}

// ---- the appender ----------------------------------------------------------------------

Appender::Appender(const std::string& dir, std::optional<ClockId> clock,
                   std::optional<uint64_t> cycleSize)
    : dir_(dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) fail(dir + ": mkdir: " + errnoText());
  // flock(2): the kernel's lock, released however the holder dies, and held by the open
  // file description, so a second appender conflicts even within this process.
  std::string lockPath = dir + "/queue.lock";
  lockFd_ = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lockFd_ < 0) fail(lockPath + ": open: " + errnoText());
  try {
    if (flock(lockFd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) fail(lockPath + ": flock: " + errnoText());
      char pid[32] = {};
      ssize_t n = pread(lockFd_, pid, sizeof pid - 1, 0);
      std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "unknown";
      fail("queue " + dir + " already has an appender (pid " + holder +
           "): one appender at a time");
    }
    std::string pid = std::to_string(getpid());
    if (ftruncate(lockFd_, 0) != 0 ||
        pwrite(lockFd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
      fail(lockPath + ": write: " + errnoText());
    }

    // Recovery. A cycle file whose creation was interrupted:
    if (DIR* d = opendir(dir.c_str())) {
      while (dirent* e = readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > 8 && n.compare(n.size() - 8, 8, ".wbq.tmp") == 0) {
          ::unlink((dir + "/" + n).c_str());
        }
      }
      closedir(d);
    }
    std::vector<uint64_t> present = cycles(dir);
    if (present.empty()) {
      clock_ = clock.value_or(ClockId::mono);
      size_ = cycleSize.value_or(kDefaultCycleSize);
      if (std::string why = badCycleSize(size_); !why.empty()) {
        fail("cycle size " + std::to_string(size_) + ": " + why);
      }
      cur_ = create(0);
      pos_ = kHeaderSize;
      return;
    }
    uint64_t last = present.back();
    Mapping m = mapCycle(dir, last, true, {}, {});
    Header h = headerOf(m);
    if ((clock && *clock != h.clock) || (cycleSize && *cycleSize != h.size)) {
      fail("queue " + dir + " was made with clock " + clockName(h.clock) + " and cycle size " +
           std::to_string(h.size) + "; this appender asks for clock " +
           clockName(clock.value_or(h.clock)) + " and cycle size " +
           std::to_string(cycleSize.value_or(h.size)));
    }
    clock_ = h.clock;
    size_ = h.size;
    // An empty last file (a pretoucher's) means the append position is in the one before
    // it, unless that one ended.
    if (last > 0 && __atomic_load_n(wordAt(m, kHeaderSize), __ATOMIC_ACQUIRE) == 0) {
      Mapping prev = mapCycle(dir, last - 1, true, clock_, size_);
      if (prev) {
        if (uint64_t p = recover(prev); p != 0) {
          cur_ = std::move(prev);
          next_ = std::move(m);
          pos_ = p;
          return;
        }
      }
    }
    if (uint64_t p = recover(m); p != 0) {
      cur_ = std::move(m);
      pos_ = p;
      return;
    }
    cur_ = openOrCreate(last + 1);
    pos_ = kHeaderSize;
  } catch (...) {
    ::close(lockFd_);
    throw;
  }
}

Appender::~Appender() {
  retired_.clear();
  cur_.unmap();
  next_.unmap();
  ::close(lockFd_);
}

uint64_t Appender::recover(Mapping& m) {
  for (uint64_t p = kHeaderSize;;) {
    uint64_t w = __atomic_load_n(wordAt(m, p), __ATOMIC_ACQUIRE);
    if (w == 0) return p;
    uint64_t n = checkWord(m, p, w);
    if ((w & kFlags) == kEnd) return 0;
    if ((w & kFlags) == kWorking) {
      // The dead write's bytes are never read as data; tailers waiting on it move on.
      __atomic_store_n(wordAt(m, p), kAbandoned | n, __ATOMIC_RELEASE);
      ++recovered_;
    }
    p += kEntryHeader + pad8(n);
  }
}

Mapping Appender::create(uint64_t cycle) {
  // Made under a temporary name and renamed, so that no reader sees a half-made header.
  std::string path = dir_ + "/" + cycleName(cycle), tmp = path + ".tmp";
  Fd fd{::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
  if (fd.fd < 0) fail(tmp + ": create: " + errnoText());
  uint8_t h[kHeaderSize] = {};
  std::memcpy(h, kMagic, sizeof kMagic);
  uint32_t version = kVersion, headerSize = kHeaderSize, clock = static_cast<uint32_t>(clock_);
  std::memcpy(h + 8, &version, 4);
  std::memcpy(h + 12, &headerSize, 4);
  std::memcpy(h + 16, &size_, 8);
  std::memcpy(h + 24, &cycle, 8);
  std::memcpy(h + 32, &clock, 4);
  if (ftruncate(fd.fd, static_cast<off_t>(size_)) != 0) fail(tmp + ": ftruncate: " + errnoText());
  if (pwrite(fd.fd, h, sizeof h, 0) != static_cast<ssize_t>(sizeof h)) {
    fail(tmp + ": write: " + errnoText());
  }
  void* base = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd, 0);
  if (base == MAP_FAILED) fail(tmp + ": mmap: " + errnoText());
  Mapping m;
  m.base = static_cast<uint8_t*>(base);
  m.size = size_;
  m.cycle = cycle;
  m.path = path;
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail(tmp + ": rename: " + errnoText());
  ++created_;
  return m;
}

Mapping Appender::openOrCreate(uint64_t cycle) {
  Mapping m = mapCycle(dir_, cycle, true, clock_, size_);
  return m ? std::move(m) : create(cycle);
}

void Appender::roll(uint64_t maxBytes) {
  if (maxBytes > capacity(size_)) {
    fail("an entry of " + std::to_string(maxBytes) + " bytes does not fit a cycle file of " +
         std::to_string(size_) + " bytes (capacity " + std::to_string(capacity(size_)) +
         " bytes)");
  }
  __atomic_store_n(wordAt(cur_, pos_), kEnd, __ATOMIC_RELEASE);
  Mapping next = next_ ? std::move(next_) : openOrCreate(cur_.cycle + 1);
  retired_.push_back(std::move(cur_));
  cur_ = std::move(next);
  pos_ = kHeaderSize;
}

void Appender::overflow() const {
  fail("writeLong past the end of the entry started at " + at(cur_.path, pos_) +
       " (it reserved " + std::to_string((limit_ - reinterpret_cast<int64_t*>(entry_ + 2)) * 8) +
       " bytes)");
}

void Appender::empty() const {
  fail("an empty entry at " + at(cur_.path, pos_) +
       ": an entry holds at least one byte (a header word of 0 means no entry)");
}

void Appender::pretouch() {
  release();
  if (!next_) next_ = openOrCreate(cur_.cycle + 1);
  touch(cur_, pos_);
  touch(next_, kHeaderSize);
}

void Appender::release() { retired_.clear(); }

// ---- the tailer ------------------------------------------------------------------------

Tailer::Tailer(const std::string& dir) : dir_(dir) {}

std::string Tailer::where() const { return at(dir_ + "/" + file(), offset()); }

bool Tailer::open() {
  if (!started_) {
    struct stat st;
    if (::stat(dir_.c_str(), &st) != 0 && errno == ENOENT) return false;  // not made yet
    std::vector<uint64_t> present = cycles(dir_);
    if (present.empty()) return false;
    cycle_ = present.front();
    pos_ = kHeaderSize;
    started_ = true;
  }
  cur_ = mapCycle(dir_, cycle_, false, clock_, size_);
  if (!cur_) return false;
  // The first file sets the clock and size every later one must have.
  clock_ = headerOf(cur_).clock;
  size_ = cur_.size;
  return true;
}

Tailer::Read Tailer::next(Entry& e) {
  for (;;) {
    if (!cur_ && !open()) return Read::none;
    uint64_t w = __atomic_load_n(wordAt(cur_, pos_), __ATOMIC_ACQUIRE);
    if (w == 0) return Read::none;
    uint64_t n = checkWord(cur_, pos_, w);
    switch (w & kFlags) {
      case kEnd:
        cur_.unmap();
        ++cycle_;
        pos_ = kHeaderSize;
        continue;
      case kWorking:
        return Read::incomplete;
      case kAbandoned:
        ++abandoned_;
        pos_ += kEntryHeader + pad8(n);
        continue;
      default:
        e.offset = pos_;
        e.timestamp = load<int64_t>(cur_.base + pos_ + 8);
        e.payload = cur_.base + pos_ + kEntryHeader;
        e.length = n;
        pos_ += kEntryHeader + pad8(n);
        return Read::entry;
    }
  }
}

}  // namespace wb::queue::wbq

// ---- the queue suite's library `wbq` ---------------------------------------------------

namespace wb::queue {
namespace {

// The benchmark's queue: an appender on a new queue in --work-dir with 64 MiB cycle files,
// and a tailer of its own reading each run back, then deleting the files it has finished.
class WbqBench {
 public:
  explicit WbqBench(const Plan& plan)
      : dir_(emptyDir(plan.dir)),
        appender_(dir_, plan.clock, wbq::kDefaultCycleSize),
        tailer_(dir_) {}

  template <class Clock>
  void start(uint64_t maxBytes) {
    appender_.start<Clock>(maxBytes);
  }
  void writeLong(int64_t v) { appender_.writeLong(v); }
  void writeLongs(int64_t first, uint64_t n) { appender_.writeLongs(first, n); }
  template <wbq::Ordering O>
  void end() {
    appender_.end<O>();
  }

  void beginRun() {}
  void pretouch() { appender_.pretouch(); }

  bool read(Entry& e) {
    wbq::Tailer::Entry t;
    switch (tailer_.next(t)) {
      case wbq::Tailer::Read::entry:
        e = {t.timestamp, t.payload, t.length};
        lastFile_ = tailer_.cycle();
        lastOffset_ = t.offset;
        return true;
      case wbq::Tailer::Read::none:
        return false;
      case wbq::Tailer::Read::incomplete:
        break;
    }
    fail("incomplete entry at " + tailer_.where() + " after the run ended");
  }
  std::string where() const {
    return dir_ + "/" + wbq::cycleName(lastFile_) + " offset " + std::to_string(lastOffset_);
  }

  void finished() {
    if (tailer_.abandoned() != 0) {
      fail("the tailer skipped " + std::to_string(tailer_.abandoned()) +
           " abandoned entries, the appender wrote none");
    }
    appender_.release();
    wbq::removeCycles(dir_, lowest_, tailer_.cycle());
    lowest_ = tailer_.cycle();
  }

  QueueStats stats() const { return {appender_.cycleSize(), appender_.created()}; }

 private:
  static std::string emptyDir(const std::string& dir) {
    std::vector<uint64_t> present = wbq::cycles(dir);
    if (!present.empty()) {
      fail("--work-dir " + dir + " already holds a queue (" + wbq::cycleName(present.front()) +
           "): the benchmark needs an empty directory");
    }
    return dir;
  }

  std::string dir_;
  wbq::Appender appender_;
  wbq::Tailer tailer_;
  uint64_t lowest_ = 0;  // the lowest cycle file not yet deleted
  uint64_t lastFile_ = 0, lastOffset_ = 0;  // the last entry read
};

}  // namespace

std::unique_ptr<QueueCell> makeWbq(const Plan& plan) {
  if (plan.ordering == "seqcst") return makeCell<WbqBench, wbq::Ordering::seqcst>(plan);
  return makeCell<WbqBench, wbq::Ordering::release>(plan);
}

}  // namespace wb::queue
