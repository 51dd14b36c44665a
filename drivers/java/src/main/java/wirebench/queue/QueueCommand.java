package wirebench.queue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import wirebench.Failure;
import wirebench.Json;
import wirebench.Output;
import wirebench.Suite;
import wirebench.Usage;

/**
 * `queue append DIR ...` and `queue tail DIR ...` (docs/protocol.md): the wbq queue itself,
 * for the interoperability and crash tests, with Wbq's appender and tailer: the queue suite's
 * own command (Suite.command).
 */
final class QueueCommand implements Suite.Command {
  private static final List<String> APPEND_FLAGS =
      List.of("entries", "longs", "first", "ordering", "clock", "cycle-size", "pause-us");
  private static final List<String> TAIL_FLAGS = List.of("expect", "timeout");
  /** Flags without a value. */
  private static final List<String> SWITCHES = List.of("die-mid-entry", "follow");

  @Override
  public String usage() {
    return "       wirebench-java queue append DIR --entries N [--longs K] [--first V]"
        + " [--ordering release|seqcst]\n"
        + "         [--clock mono] [--cycle-size B] [--pause-us U] [--die-mid-entry]\n"
        + "       wirebench-java queue tail DIR [--follow --expect N] [--timeout S]\n";
  }

  /** `argv`: the words after `queue`. */
  @Override
  public void run(List<String> argv) throws Failure, Usage {
    if (argv.isEmpty()) {
      throw new Usage("queue: missing subcommand (append or tail)");
    }
    String sub = argv.get(0);
    if (!sub.equals("append") && !sub.equals("tail")) {
      throw new Usage("queue: unknown subcommand '" + sub + "' (append or tail)");
    }
    if (argv.size() < 2 || argv.get(1).startsWith("--") || argv.get(1).isEmpty()) {
      throw new Usage("queue " + sub + ": missing DIR");
    }
    Path dir = Paths.get(argv.get(1));
    boolean append = sub.equals("append");
    Map<String, String> flags =
        parse(sub, argv.subList(2, argv.size()), append ? APPEND_FLAGS : TAIL_FLAGS,
            List.of(append ? "die-mid-entry" : "follow"));
    if (append) {
      append(dir, flags);
    } else {
      tail(dir, flags);
    }
  }

  private static Map<String, String> parse(
      String sub, List<String> argv, List<String> valued, List<String> switches) throws Usage {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 0; i < argv.size(); ++i) {
      String a = argv.get(i);
      String name = a.startsWith("--") ? a.substring(2) : null;
      String value = null;
      if (name != null && name.contains("=")) {
        value = name.substring(name.indexOf('=') + 1);
        name = name.substring(0, name.indexOf('='));
      }
      if (name == null || (!valued.contains(name) && !switches.contains(name))) {
        throw new Usage(
            "queue " + sub + ": unknown argument '" + a + "' (flags: --"
                + String.join(", --", valued) + ", --" + String.join(", --", switches) + ")");
      }
      if (switches.contains(name)) {
        if (value != null) {
          throw new Usage("queue " + sub + ": --" + name + " takes no value");
        }
        value = "";
      } else if (value == null) {
        if (i + 1 >= argv.size()) {
          throw new Usage("queue " + sub + ": flag --" + name + " needs a value");
        }
        value = argv.get(++i);
      }
      if (flags.put(name, value) != null) {
        throw new Usage("queue " + sub + ": flag --" + name + " given twice");
      }
    }
    return flags;
  }

  private static long count(Map<String, String> flags, String name, long dflt, long min, long max)
      throws Usage {
    String s = flags.get(name);
    if (s == null) {
      return dflt;
    }
    long v;
    try {
      v = Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new Usage("bad value for --" + name + ": '" + s + "' (want a decimal integer)");
    }
    if (v < min || v > max) {
      throw new Usage("bad value for --" + name + ": " + s + " (from " + min + " to " + max + ")");
    }
    return v;
  }

  private static String oneOf(Map<String, String> flags, String name, List<String> legal)
      throws Usage {
    String v = flags.getOrDefault(name, legal.get(0));
    if (!legal.contains(v)) {
      throw new Usage(
          "unknown value for --" + name + ": '" + v + "' (one of: " + String.join(", ", legal)
              + ")");
    }
    return v;
  }

  private static void append(Path dir, Map<String, String> flags) throws Failure, Usage {
    if (!flags.containsKey("entries")) {
      throw new Usage("queue append: missing --entries N");
    }
    long entries = count(flags, "entries", 0, 0, Long.MAX_VALUE);
    long maxLongs = (Wbq.MAX_CYCLE_SIZE - Wbq.HEADER - Wbq.ENTRY - 8) / 8;
    int longs = (int) count(flags, "longs", 1, 0, maxLongs);
    long first = count(flags, "first", 0, Long.MIN_VALUE, Long.MAX_VALUE);
    boolean seqcst = oneOf(flags, "ordering", List.of("release", "seqcst")).equals("seqcst");
    if ("tsc".equals(flags.get("clock"))) {
      throw new Usage(
          "unknown value for --clock: 'tsc' (Java cannot read the TSC; one of: mono)");
    }
    oneOf(flags, "clock", List.of("mono"));
    long cycleSize =
        count(flags, "cycle-size", Wbq.DEFAULT_CYCLE_SIZE, Wbq.MIN_CYCLE_SIZE, Wbq.MAX_CYCLE_SIZE);
    if (cycleSize % 4096 != 0) {
      throw new Usage("bad value for --cycle-size: " + cycleSize + " (a multiple of 4096)");
    }
    long pauseNs = count(flags, "pause-us", 0, 0, Long.MAX_VALUE / 1000) * 1000;
    boolean die = flags.containsKey("die-mid-entry");
    try {
      Files.createDirectories(dir);
      try (Wbq.Appender a = new Wbq.Appender(dir, Wbq.CLOCK_MONO, cycleSize, seqcst)) {
        long v = first;
        long sum = 0;
        for (long e = 0; e < entries; ++e) {
          a.start(8 * longs);
          for (int k = 0; k < longs; ++k) {
            a.writeLong(v);
            sum += v;
            ++v;
          }
          a.end();
          if (pauseNs > 0) {
            LockSupport.parkNanos(pauseNs);
          }
        }
        if (die) {
          // A process killed mid-write: half the values of one more entry, then no result, no
          // cleanup, no publication, no unlock (the kernel drops the flock with the process).
          System.err.println(
              "wirebench-java: queue append: dying in the middle of entry " + entries
                  + " as asked");
          System.err.flush();
          a.start(8 * longs);
          for (int k = 0; k < longs / 2; ++k) {
            a.writeLong(v++);
          }
          Runtime.getRuntime().halt(3);
        }
        Output.printLine(
            new Json()
                .num("entries", entries)
                .num("longs", entries * longs)
                .num("first", first)
                .num("sum", sum)
                .text());
      }
    } catch (IOException e) {
      throw new Failure("queue append " + dir + ": " + e.getMessage());
    }
  }

  private static void tail(Path dir, Map<String, String> flags) throws Failure, Usage {
    boolean follow = flags.containsKey("follow");
    if (follow != flags.containsKey("expect")) {
      throw new Usage("queue tail: --follow and --expect N go together");
    }
    long expect = count(flags, "expect", 0, 0, Long.MAX_VALUE);
    double timeout = 30;
    if (flags.containsKey("timeout")) {
      try {
        timeout = Double.parseDouble(flags.get("timeout"));
      } catch (NumberFormatException e) {
        timeout = -1;
      }
      if (!(timeout >= 0) || Double.isInfinite(timeout)) {
        throw new Usage(
            "bad value for --timeout: '" + flags.get("timeout") + "' (want seconds, at least 0)");
      }
    }
    long deadline = System.nanoTime() + (long) (timeout * 1e9);
    // A follower may start before its appender has made the queue: it waits for it.
    while (follow && !Files.isDirectory(dir) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (!Files.isDirectory(dir)) {
      throw new Failure("queue tail: " + dir + " is not a directory");
    }
    long entries = 0;
    long longs = 0;
    long firstValue = 0;
    long lastValue = 0;
    long sum = 0;
    boolean consecutive = true;
    boolean monotonic = true;
    long lastTimestamp = Long.MIN_VALUE;
    String stopped;
    try (Wbq.Tailer t = new Wbq.Tailer(dir)) {
      for (; ; ) {
        if (follow && entries >= expect) {
          stopped = "end";
          break;
        }
        Wbq.Next n = t.next();
        if (n == Wbq.Next.ENTRY) {
          ++entries;
          long ts = t.timestamp();
          monotonic &= ts >= lastTimestamp;
          lastTimestamp = Math.max(ts, lastTimestamp);
          long k = t.length() / 8;
          for (int i = 0; i < k; ++i) {
            long v = t.getLong(i);
            if (longs == 0) {
              firstValue = v;
            } else if (v != lastValue + 1) {
              consecutive = false;
            }
            lastValue = v;
            sum += v;
            ++longs;
          }
          continue;
        }
        if (!follow) {
          stopped = n == Wbq.Next.NONE ? "end" : "incomplete";
          break;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new Failure(
              "queue tail --follow " + dir + ": read " + entries + " of " + expect
                  + " entries in " + timeout + " s");
        }
        LockSupport.parkNanos(50_000); // an appender is coming: look again shortly
      }
      Output.printLine(
          new Json()
              .num("entries", entries)
              .num("longs", longs)
              .raw("first", longs == 0 ? "null" : Long.toString(firstValue))
              .raw("last", longs == 0 ? "null" : Long.toString(lastValue))
              .num("sum", sum)
              .bool("consecutive", consecutive)
              .bool("monotonic", monotonic)
              .num("abandoned", t.abandoned())
              .str("stopped", stopped)
              .raw("file", t.fileName() == null ? "null" : Json.quote(t.fileName()))
              .raw("offset", t.fileName() == null ? "null" : Long.toString(t.offset()))
              .text());
    } catch (IOException e) {
      throw new Failure("queue tail " + dir + ": " + e.getMessage());
    }
  }
}
