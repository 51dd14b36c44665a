// Suite `queue` (docs/protocol.md; the queue is docs/queue-format.md): its registry entry and
// its run. A sample is a run: `single` iters writes of one value (two runs: one timed whole,
// one timed write by write), `bulk` one write of iters values, `paced` iters writes of one
// value on a schedule of `rate` writes a second. Each run is read back by the library's
// tailer, outside the timed region.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../common.h"
#include "../registry.h"
#include "../result.h"
#include "histogram.h"
#include "loops.h"
#include "queue.h"
#include "wbq.h"

namespace wb::queue {
namespace {

const std::vector<std::pair<std::string, int64_t>> kRates = {
    {"100k", 100'000}, {"500k", 500'000}, {"1M", 1'000'000}};

// The suite's library registry: one line per library, with the orderings and pretouch
// values it can express (its default, the first cell of each case, first).
struct Library {
  std::string name;
  std::vector<std::string> orderings, pretouch;
  Pairs versions;
  std::unique_ptr<QueueCell> (*make)(const Plan& plan);
};

const std::vector<Library>& libraries() {
  static const std::vector<Library> v = {
      // The floor: a pretouched heap array, so pretouch is always on.
      {"null", {"none"}, {"on"}, {}, &makeNull},
      {"wbq", {"release", "seqcst"}, {"on", "off"}, {{"wbq", "format 1"}}, &makeWbq},
  };
  return v;
}

// A paced cell is its library's default variant (first ordering, clock mono, pretouch on)
// at each rate; single and bulk have every variant.
std::string refuse(const Run& run) {
  if (run.kase != "paced") return "";
  const Param* ordering = run.suite->findParam("ordering");
  std::vector<std::pair<std::string, std::string>> want = {
      {"ordering", run.lib->values(*ordering).front()}, {"clock", "mono"}, {"pretouch", "on"}};
  std::vector<std::string> off;
  std::string defaults;
  for (const auto& [name, value] : want) {
    defaults += (defaults.empty() ? "" : ", ") + name + " " + value;
    if (run.param(name) != value) off.push_back(name + " " + run.param(name));
  }
  if (off.empty()) return "";
  return "a paced cell is its library's default variant (" + defaults + "), not " + joined(off);
}

void prepare(Run& run) {
  if (run.role.empty()) run.role = "local";
  if (run.role != "local") {
    throw UsageError("--role " + run.role +
                     " is not possible in suite queue (its cells are local)");
  }
}

const std::string& fixture(const Run& run, const std::string& name) {
  static const std::string none;
  for (const auto& [flag, value] : run.fixtures) {
    if (flag == name) return value;
  }
  return none;
}

Plan planOf(const Run& run) {
  Plan plan;
  plan.kase = run.kase == "bulk" ? Case::bulk : run.kase == "paced" ? Case::paced : Case::single;
  plan.iters = run.iters;
  plan.clock = run.param("clock") == "tsc" ? ClockId::tsc : ClockId::mono;
  plan.ordering = run.param("ordering");
  plan.pretouch = run.param("pretouch") == "on";
  for (const auto& [name, rate] : kRates) {
    if (name == run.param("rate")) plan.period = 1'000'000'000 / rate;
  }
  plan.dir = fixture(run, "work-dir");
  if (run.lib->name == "wbq" && plan.dir.empty()) {
    throw UsageError("lib wbq needs --work-dir DIR (the queue's directory)");
  }
  // One entry must fit a cycle file, for every library alike.
  uint64_t most = wbq::capacity(wbq::kDefaultCycleSize) / 8;
  if (plan.kase == Case::bulk && plan.iters > most) {
    throw UsageError("bad value for --iters: " + std::to_string(plan.iters) +
                     " (a bulk write of that many values does not fit a 64 MiB cycle file: " +
                     "at most " + std::to_string(most) + ")");
  }
  return plan;
}

int runCell(const Run& run) {
  Plan plan = planOf(run);
  std::unique_ptr<QueueCell> cell;
  for (const Library& lib : libraries()) {
    if (lib.name == run.lib->name) cell = lib.make(plan);
  }
  Recorder rec(plan.kase == Case::paced);
  // single: a sample is two runs, one timed whole (its time: no timer read among the
  // writes) and then one timed write by write (its writes' latencies); bulk and paced: one
  // run gives both. The warm-up alternates the same way. Every run is read back.
  const bool twoRuns = plan.kase == Case::single;
  auto whole = [twoRuns](uint64_t k) { return twoRuns && k % 2 == 0; };
  for (uint64_t k = 0; k < run.warmup; ++k) {
    cell->prepare();
    cell->run(nullptr, whole(k) ? Timing::whole : Timing::perWrite);
    cell->verify();
  }
  std::vector<uint64_t> times;
  std::vector<int64_t> checks;
  const uint64_t runs = twoRuns ? 2 * run.samples : run.samples;
  for (uint64_t k = 0; k < runs; ++k) {
    cell->prepare();
    if (k == 0) rec.begin(monoNow());
    if (whole(k)) {
      times.push_back(cell->run(nullptr, Timing::whole));
    } else {
      uint64_t ns = cell->run(&rec, Timing::perWrite);
      if (!twoRuns) times.push_back(ns);
    }
    checks.push_back(cell->verify());
  }
  rec.finish();

  std::vector<RawMetric> histograms = {
      {"latency", "{\"unit\": \"ns\", \"counts\": " + rec.latency().countsJson() + "}"}};
  if (rec.hasService()) {
    histograms.push_back(
        {"service", "{\"unit\": \"ns\", \"counts\": " + rec.service().countsJson() + "}"});
  }
  QueueStats stats = cell->stats();
  Json queue;
  queue.num("cycle_size", stats.cycleSize).num("cycles", stats.cycles);
  Json evidence;
  evidence.list("check", checks)
      .num("entries_checked", cell->entriesChecked())
      .raw("intervals", rec.intervalsJson())
      .raw("queue", queue.text());
  printResult(run, "local", {{"time", "ns", run.iters, times}}, evidence, {}, histograms);
  return 0;
}

Suite declare() {
  Suite s;
  s.name = "queue";
  s.cases = {"single", "bulk", "paced"};
  Param rate{"rate", {}, {"paced"}};
  for (const auto& r : kRates) rate.values.push_back(r.first);
  s.params = {{"ordering", {"release", "seqcst", "none"}},
              {"clock", clockNames()},
              {"pretouch", {"on", "off"}},
              rate};
  for (const Library& lib : libraries()) {
    s.libs.push_back(
        {lib.name, {{"ordering", lib.orderings}, {"pretouch", lib.pretouch}}, lib.versions});
  }
  s.fixtures = {"work-dir", "out-dir"};  // the queue goes in work-dir; out-dir is unused
  s.refuse = &refuse;
  s.prepare = &prepare;
  s.run = &runCell;
  s.command = &command;
  s.commandUsage = commandUsage();
  return s;
}

}  // namespace

const Suite& suite() {
  static const Suite s = declare();
  return s;
}

}  // namespace wb::queue
