// `queue append DIR ...` and `queue tail DIR ...` (docs/protocol.md): the wbq queue itself,
// for the interoperability and crash tests every language's driver takes part in.

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../common.h"
#include "../json.h"
#include "../registry.h"
#include "queue.h"
#include "wbq.h"

namespace wb::queue {
namespace {

struct Flags {
  std::string sub, dir;
  std::map<std::string, std::string> values;
  bool has(const std::string& k) const { return values.count(k) != 0; }
};

// `queue SUB DIR --flag value ... --switch ...`: `valued` flags take a value, `switches`
// none.
Flags parse(const std::vector<std::string>& args, const std::vector<std::string>& valued,
            const std::vector<std::string>& switches) {
  Flags f;
  f.sub = args[0];
  std::string who = "queue " + f.sub;
  if (args.size() < 2 || args[1].rfind("--", 0) == 0) throw UsageError(who + ": missing DIR");
  f.dir = args[1];
  if (f.dir.empty()) throw UsageError(who + ": DIR is empty");
  std::vector<std::string> all;
  for (const auto& v : valued) all.push_back("--" + v);
  for (const auto& s : switches) all.push_back("--" + s);
  for (size_t i = 2; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) throw UsageError(who + ": unexpected argument '" + a + "'");
    std::string name = a.substr(2);
    bool isSwitch = false, isValued = false;
    for (const auto& s : switches) isSwitch = isSwitch || s == name;
    for (const auto& v : valued) isValued = isValued || v == name;
    if (!isSwitch && !isValued) {
      throw UsageError(who + ": unknown flag " + a + " (its flags: " + joined(all) + ")");
    }
    if (f.has(name)) throw UsageError(who + ": flag " + a + " given twice");
    if (isValued) {
      if (i + 1 >= args.size()) throw UsageError(who + ": flag " + a + " needs a value");
      f.values[name] = args[++i];
    } else {
      f.values[name] = "";
    }
  }
  return f;
}

uint64_t count(const Flags& f, const std::string& name, uint64_t fallback) {
  if (!f.has(name)) return fallback;
  const std::string& s = f.values.at(name);
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError("bad value for --" + name + ": '" + s + "' (want a decimal integer)");
  }
  return std::stoull(s);
}

int64_t signedValue(const Flags& f, const std::string& name) {
  if (!f.has(name)) return 0;
  const std::string& s = f.values.at(name);
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno == ERANGE) {
    throw UsageError("bad value for --" + name + ": '" + s + "' (want a 64-bit integer)");
  }
  return v;
}

std::string oneOf(const Flags& f, const std::string& name, const std::vector<std::string>& legal) {
  if (!f.has(name)) return legal.front();
  const std::string& v = f.values.at(name);
  for (const auto& l : legal) {
    if (l == v) return v;
  }
  throw UsageError("unknown value for --" + name + ": '" + v + "' (one of: " + joined(legal) + ")");
}

void sleepMicros(uint64_t us) {
  timespec ts{static_cast<time_t>(us / 1'000'000), static_cast<long>(us % 1'000'000) * 1000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

template <class Clock>
void appendEntries(wbq::Appender& app, const Flags& f, bool seqcst) {
  const uint64_t entries = count(f, "entries", 0), longs = count(f, "longs", 1);
  const uint64_t pause = count(f, "pause-us", 0);
  const int64_t first = signedValue(f, "first");
  uint64_t v = static_cast<uint64_t>(first), sum = 0;  // wrapping, as two's complement
  for (uint64_t i = 0; i < entries; ++i) {
    app.start<Clock>(8 * longs);
    for (uint64_t j = 0; j < longs; ++j, ++v) {
      app.writeLong(static_cast<int64_t>(v));
      sum += v;
    }
    if (seqcst) {
      app.end<wbq::Ordering::seqcst>();
    } else {
      app.end<wbq::Ordering::release>();
    }
    app.release();
    if (pause > 0) sleepMicros(pause);
  }
  Json j;
  j.num("entries", entries)
      .num("longs", entries * longs)
      .raw("first", std::to_string(first))
      .raw("sum", std::to_string(static_cast<int64_t>(sum)));
  printLine(j.text());
  if (f.has("die-mid-entry")) {
    // As a process killed in the middle of a write: the entry stays WORKING, half written.
    app.start<Clock>(8 * longs);
    for (uint64_t j = 0; j < longs / 2; ++j) app.writeLong(static_cast<int64_t>(v++));
    std::fflush(nullptr);
    _exit(3);
  }
}

int append(const std::vector<std::string>& args) {
  Flags f = parse(args,
                  {"entries", "longs", "first", "ordering", "clock", "cycle-size", "pause-us"},
                  {"die-mid-entry"});
  if (!f.has("entries")) throw UsageError("queue append: missing --entries");
  count(f, "entries", 0);
  count(f, "longs", 1);
  count(f, "pause-us", 0);
  signedValue(f, "first");
  const Suite& s = suite();
  std::string ordering = oneOf(f, "ordering", s.findLib("wbq")->values(*s.findParam("ordering")));
  // Unset, mono and 64 MiB, as in every driver: an existing queue made otherwise is refused.
  std::optional<ClockId> clock = ClockId::mono;
  if (f.has("clock")) {
    clock = oneOf(f, "clock", s.findParam("clock")->values) == "tsc" ? ClockId::tsc : ClockId::mono;
  }
  std::optional<uint64_t> size = wbq::kDefaultCycleSize;
  if (f.has("cycle-size")) {
    size = count(f, "cycle-size", 0);
    if (std::string why = wbq::badCycleSize(*size); !why.empty()) {
      throw UsageError("bad value for --cycle-size: " + std::to_string(*size) + " (" + why + ")");
    }
  }
  uint64_t longs = count(f, "longs", 1);
  if (longs == 0) {
    throw UsageError("bad value for --longs: 0 (at least 1: a complete entry of 0 bytes would "
                     "read as the end of the queue)");
  }
  if (longs > (wbq::kLength / 8)) {
    throw UsageError("bad value for --longs: " + std::to_string(longs) + " (an entry's length " +
                     "is 32 bits: at most " + std::to_string(wbq::kLength / 8) + ")");
  }
  wbq::Appender app(f.dir, clock, size);
  bool seqcst = ordering == "seqcst";
#ifdef WB_HAVE_TSC
  if (app.clock() == ClockId::tsc) {
    appendEntries<TscClock>(app, f, seqcst);
    return 0;
  }
#endif
  if (app.clock() != ClockId::mono) {
    fail("queue " + f.dir + " has clock " + clockName(app.clock()) +
         ", which this build cannot read");
  }
  appendEntries<MonoClock>(app, f, seqcst);
  return 0;
}

int tail(const std::vector<std::string>& args) {
  Flags f = parse(args, {"expect", "timeout"}, {"follow"});
  bool follow = f.has("follow");
  if (follow != f.has("expect")) {
    throw UsageError("queue tail: --follow and --expect N go together");
  }
  uint64_t expect = count(f, "expect", 0);
  double timeout = 30;
  if (f.has("timeout")) {
    const std::string& s = f.values.at("timeout");
    char* end = nullptr;
    timeout = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !(timeout >= 0)) {
      throw UsageError("bad value for --timeout: '" + s + "' (want seconds, a number >= 0)");
    }
  }
  const int64_t deadline = monoNow() + static_cast<int64_t>(timeout * 1e9);

  // A follower may start before the appender has made the directory; a reader may not.
  struct stat st;
  if (!follow && ::stat(f.dir.c_str(), &st) != 0) {
    fail(f.dir + ": " + std::strerror(errno));
  }
  wbq::Tailer t(f.dir);
  uint64_t entries = 0, longs = 0, sum = 0, last = 0;
  int64_t first = 0, lastTimestamp = INT64_MIN;
  bool consecutive = true, monotonic = true;
  std::string stopped = "end";
  wbq::Tailer::Entry e;
  while (!(follow && entries >= expect)) {
    wbq::Tailer::Read r = t.next(e);
    if (r == wbq::Tailer::Read::entry) {
      if (e.length % 8 != 0) {
        fail(f.dir + "/" + t.file() + " offset " + std::to_string(e.offset) + ": an entry of " +
             std::to_string(e.length) + " bytes is not whole 64-bit values");
      }
      for (uint64_t j = 0; j < e.length / 8; ++j) {
        uint64_t v;
        std::memcpy(&v, e.payload + 8 * j, 8);
        if (longs == 0) {
          first = static_cast<int64_t>(v);
        } else if (v != last + 1) {
          consecutive = false;
        }
        last = v;
        sum += v;
        ++longs;
      }
      monotonic = monotonic && e.timestamp >= lastTimestamp;
      lastTimestamp = e.timestamp;
      ++entries;
      continue;
    }
    if (!follow) {
      if (r == wbq::Tailer::Read::incomplete) stopped = "incomplete";
      break;
    }
    if (monoNow() > deadline) {
      fail("queue tail: timed out after " + (f.has("timeout") ? f.values.at("timeout") : "30") +
           " s: read " + std::to_string(entries) + " of " + std::to_string(expect) +
           " entries (waiting at " + (t.file().empty() ? f.dir : t.where()) + ")");
    }
    sleepMicros(50);
  }
  Json j;
  j.num("entries", entries)
      .num("longs", longs)
      .raw("first", longs ? std::to_string(first) : "null")
      .raw("last", longs ? std::to_string(static_cast<int64_t>(last)) : "null")
      .raw("sum", std::to_string(static_cast<int64_t>(sum)))
      .boolean("consecutive", consecutive)
      .boolean("monotonic", monotonic)
      .num("abandoned", t.abandoned())
      .str("stopped", stopped)
      .raw("file", t.file().empty() ? "null" : quote(t.file()))
      .raw("offset", t.file().empty() ? "null" : std::to_string(t.offset()));
  printLine(j.text());
  return 0;
}

}  // namespace

std::string commandUsage() {
  return "       wirebench-cpp queue append DIR --entries N [--longs K] [--first V]\n"
         "         [--ordering release|seqcst] [--clock mono|tsc] [--cycle-size B]\n"
         "         [--pause-us U] [--die-mid-entry]\n"
         "       wirebench-cpp queue tail DIR [--follow --expect N] [--timeout S]\n";
}

int command(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("queue: missing subcommand (append or tail)");
  if (args[0] == "append") return append(args);
  if (args[0] == "tail") return tail(args);
  throw UsageError("queue: unknown subcommand '" + args[0] + "' (append or tail)");
}

}  // namespace wb::queue
