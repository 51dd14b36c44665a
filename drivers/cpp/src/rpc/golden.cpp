// Golden messages: the pipe client and server of each cell, run against files instead of
// pipes. `write` runs the client's writing side into DIR/X.requests (a fresh generator,
// reused builders, so the bytes are deterministic: single-segment capnp messages) and the
// server on X.requests into X.responses. `check` runs the server on X.requests (whoever
// wrote it) and the client's reading side on X.responses, and compares every answer with
// the expectation of the same request from a fresh generator.

#include "golden.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "../common.h"
#include "../io.h"
#include "../rng.h"
#include "rpc.h"

namespace wb::rpc {
namespace {

namespace fs = std::filesystem;

const char kRequests[] = ".requests";
const char kResponses[] = ".responses";

// An open fd, closed at scope end; close() reports a failed close (a lost write).
class Fd {
 public:
  Fd(const std::string& path, int flags) : path_(path) {
    fd_ = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(path + ": cannot open: " + std::strerror(errno));
  }
  // An anonymous in-memory file (for the responses a check computes).
  explicit Fd(const char* name) : path_(name) {
    fd_ = ::memfd_create(name, MFD_CLOEXEC);
    if (fd_ < 0) fail(std::string("memfd_create failed: ") + std::strerror(errno));
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  void rewind() {
    if (::lseek(fd_, 0, SEEK_SET) != 0) fail(path_ + ": lseek failed: " + std::strerror(errno));
  }
  void close() {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail(path_ + ": close failed: " + std::strerror(errno));
  }

 private:
  std::string path_;
  int fd_ = -1;
};

std::string join(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

uint64_t fileSize(const std::string& path) {
  std::error_code ec;
  uintmax_t size = fs::file_size(path, ec);
  if (ec) fail(path + ": " + ec.message());
  return size;
}

// The cell whose wire format a golden file of (case, lib, compression) is in, or nullptr if
// this driver does not support it. Builders are the reuse variant: deterministic bytes.
std::unique_ptr<RpcCell> goldenCell(const std::string& kase, const std::string& lib,
                                   const std::string& compression) {
  const auto& all = cases();
  if (std::find(all.begin(), all.end(), kase) == all.end()) return nullptr;
  const RpcLib* l = findLib(lib);
  if (l == nullptr) return nullptr;
  if (std::find(l->compressions.begin(), l->compressions.end(), compression) ==
      l->compressions.end()) {
    return nullptr;
  }
  return l->make(kase, compression, /*reuse=*/true);
}

// Runs fn; a failure in it becomes a Failure naming the file and the message index that
// index() returns at the time of the failure.
template <typename Fn, typename Index>
void atMessage(const std::string& path, Index&& index, Fn&& fn) {
  try {
    fn();
  } catch (...) {
    fail(path + ": message " + std::to_string(index()) + ": " + describeCurrentException());
  }
}

// The expectations of the first kGoldenMessages requests of a fresh generator.
std::vector<uint64_t> freshExpectations(RpcCell& cell) {
  Fd sink("/dev/null", O_WRONLY);
  resetRng();
  return cell.writeRequests(sink.get(), kGoldenMessages);
}

std::string answerText(uint64_t term) {
  return std::to_string(static_cast<int64_t>(term));  // every case's answer is signed 64-bit
}

void expectAnswers(const std::string& path, const char* whose,
                   const std::vector<uint64_t>& answers,
                   const std::vector<uint64_t>& expectations) {
  for (size_t i = 0; i < answers.size() && i < expectations.size(); ++i) {
    if (answers[i] != expectations[i]) {
      fail(path + ": message " + std::to_string(i) + ": " + whose + " answer is " +
           answerText(answers[i]) + ", but request " + std::to_string(i) +
           " of a fresh generator expects " + answerText(expectations[i]));
    }
  }
  if (answers.size() != expectations.size()) {
    fail(path + ": " + std::to_string(answers.size()) + " messages, expected " +
         std::to_string(expectations.size()));
  }
}

// The server side: decodes the requests, answers them, and the answers (read back from the
// responses it wrote) must be the expectations.
void checkRequests(RpcCell& cell, const std::string& path,
                   const std::vector<uint64_t>& expectations) {
  Fd in(path, O_RDONLY);
  Fd computed("wirebench-golden-responses");
  ServerStats stats;
  atMessage(path, [&] { return stats.requests; },
            [&] { cell.serve(in.get(), computed.get(), stats); });
  computed.rewind();
  std::vector<uint64_t> answers;
  atMessage(path, [&] { return answers.size(); }, [&] {
    try {
      cell.readResponses(computed.get(), answers);
    } catch (...) {
      fail("the server's own response does not read back: " + describeCurrentException());
    }
  });
  expectAnswers(path, "the server's", answers, expectations);
}

// The client side: decodes the responses, whose answers must be the expectations.
void checkResponses(RpcCell& cell, const std::string& path,
                    const std::vector<uint64_t>& expectations) {
  Fd in(path, O_RDONLY);
  std::vector<uint64_t> answers;
  atMessage(path, [&] { return answers.size(); },
            [&] { cell.readResponses(in.get(), answers); });
  expectAnswers(path, "the response's", answers, expectations);
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void goldenWrite(const std::string& dir, const GoldenReport& report) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail(dir + ": cannot create directory: " + ec.message());
  for (const std::string& kase : cases()) {
    for (const RpcLib& lib : libs()) {
      for (const std::string& compression : lib.compressions) {
        auto cell = goldenCell(kase, lib.name, compression);
        if (!cell) continue;
        std::string stem = kase + "." + lib.name + "." + compression;
        std::string requests = join(dir, stem + kRequests);
        std::string responses = join(dir, stem + kResponses);

        uint64_t written = 0;
        {
          Fd out(requests, O_WRONLY | O_CREAT | O_TRUNC);
          resetRng();
          try {
            written = cell->writeRequests(out.get(), kGoldenMessages).size();
          } catch (...) {
            fail(requests + ": " + describeCurrentException());
          }
          out.close();
        }
        report({stem + kRequests, written, fileSize(requests), false});

        ServerStats stats;
        {
          Fd in(requests, O_RDONLY);
          Fd out(responses, O_WRONLY | O_CREAT | O_TRUNC);
          atMessage(requests, [&] { return stats.requests; },
                    [&] { cell->serve(in.get(), out.get(), stats); });
          out.close();
        }
        if (stats.requests != kGoldenMessages) {
          fail(requests + ": the server answered " + std::to_string(stats.requests) +
               " requests, expected " + std::to_string(kGoldenMessages));
        }
        report({stem + kResponses, stats.requests, fileSize(responses), false});
      }
    }
  }
}

void goldenCheck(const std::string& dir, const GoldenReport& report) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) fail(dir + ": cannot read directory: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (endsWith(name, kRequests)) names.push_back(name);
  }
  if (ec) fail(dir + ": cannot read directory: " + ec.message());
  std::sort(names.begin(), names.end());

  uint64_t checked = 0;
  for (const std::string& name : names) {
    std::string stem = name.substr(0, name.size() - (sizeof(kRequests) - 1));
    std::string responsesName = stem + kResponses;
    std::string requests = join(dir, name), responses = join(dir, responsesName);
    std::unique_ptr<RpcCell> cell;
    size_t a = stem.find('.'), b = a == std::string::npos ? a : stem.find('.', a + 1);
    if (b != std::string::npos && stem.find('.', b + 1) == std::string::npos) {
      cell = goldenCell(stem.substr(0, a), stem.substr(a + 1, b - a - 1), stem.substr(b + 1));
    }
    if (!cell) {
      report({name, 0, 0, true});
      if (fs::exists(responses, ec)) report({responsesName, 0, 0, true});
      continue;
    }
    std::vector<uint64_t> expectations = freshExpectations(*cell);
    checkRequests(*cell, requests, expectations);
    report({name, expectations.size(), fileSize(requests), false});
    checkResponses(*cell, responses, expectations);
    report({responsesName, expectations.size(), fileSize(responses), false});
    checked += 2;
  }
  if (checked == 0) {
    fail(dir + ": no golden files that this driver supports "
               "(<case>.<lib>.<compression>.requests and .responses)");
  }
}

}  // namespace wb::rpc
