// The limit suite as the registry sees it and its run: one local process per cell.

#include <gnu/libc-version.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../common.h"
#include "../registry.h"
#include "../result.h"
#include "../timing.h"
#include "memcpy.h"

namespace wb::limit {
namespace {

const std::vector<std::pair<std::string, size_t>> kBlocks = {
    {"16KiB", size_t{16} << 10}, {"1MiB", size_t{1} << 20}, {"64MiB", size_t{64} << 20}};

// The suite's library registry: one line per library.
struct Library {
  std::string name;
  Pairs versions;  // extra provenance: (key, version)
  std::unique_ptr<Copier> (*make)(size_t block);
};

const std::vector<Library>& libraries() {
  static const std::vector<Library> v = {
      {"memcpy", {{"libc", std::string("glibc ") + gnu_get_libc_version()}}, &makeMemcpy},
  };
  return v;
}

// The suite's side of the timing loop: the target is scrambled before the warm-up and
// every sample and compared with the source after each, outside the timed region.
class Sampler {
 public:
  explicit Sampler(Copier& copier) : copier_(copier) {}
  void reset() { copier_.scramble(); }
  void iterate(uint64_t iters) { copier_.copy(iters); }
  void done(bool sample) {
    if (!copier_.verify()) {
      fail(sample ? "memcpy: the copy differs from the source"
                  : "memcpy: the copy differs from the source after the warm-up");
    }
    if (sample) ++verified;
  }
  uint64_t verified = 0;  // one comparison per sample

 private:
  Copier& copier_;
};

int runCell(const Run& run) {
  size_t block = 0;
  for (const auto& b : kBlocks) {
    if (b.first == run.param("block")) block = b.second;
  }
  std::unique_ptr<Copier> copier;
  for (const Library& lib : libraries()) {
    if (lib.name == run.lib->name) copier = lib.make(block);
  }
  Sampler s(*copier);
  std::vector<uint64_t> ns = measure(run, s);
  Json evidence;
  evidence.list("check", std::vector<uint64_t>(run.samples, block))
      .num("responses_checked", s.verified);
  printResult(run, "local",
              {{"time", "ns", run.iters, ns},
               {"bytes", "B", run.iters, std::vector<uint64_t>(run.samples, run.iters * block)}},
              evidence);
  return 0;
}

// A limit cell runs in one process, with no peer.
void prepare(Run& run) {
  if (run.role.empty()) run.role = "local";
  if (run.role != "local") {
    throw UsageError("--role " + run.role +
                     " is not possible in suite limit (its cells are local)");
  }
}

Suite declare() {
  Suite s;
  s.name = "limit";
  s.cases = {"memcpy"};
  Param block{"block", {}};
  for (const auto& b : kBlocks) block.values.push_back(b.first);
  s.params = {block};
  for (const Library& lib : libraries()) s.libs.push_back({lib.name, {}, lib.versions});
  s.prepare = prepare;
  s.run = runCell;
  return s;
}

}  // namespace

const Suite& suite() {
  static const Suite s = declare();
  return s;
}

}  // namespace wb::limit
