package wirebench.queue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import wirebench.Failure;
import wirebench.Jit;
import wirebench.Json;
import wirebench.Output;
import wirebench.Run;
import wirebench.Suite;
import wirebench.Usage;

/**
 * The queue suite (docs/protocol.md, suite queue; after ../shared/seeds/002): the append
 * latency of a memory-mapped queue. A sample is a run: `single` --iters writes of one value
 * (two runs: one timed whole, for `time`, then one timed write by write, for `latency`), `bulk`
 * one write of --iters values, `paced` --iters writes of one value at --rate writes per second. Before each run (when --pretouch on) the appender pretouches; after each run, outside
 * the timed region, the library's own reader reads every entry of the run back and checks it
 * (Check), and the files it has finished with are deleted.
 *
 * <p>Warm-up: the requested --warmup runs, then rounds of runs until the JIT has settled (Jit,
 * the rule of every suite of this driver), each run a whole run through the very code a timed
 * run takes (pretouch, loop, recording into a scratch histogram, read-back). A round is enough
 * runs to write {@link #ROUND_VALUES} values: the loops are entered once per run, so HotSpot
 * compiles them on their back-edges (on-stack replacement: C1 after 60,000, C2 after 40,000
 * more), and rounds of one short run would look quiet before those thresholds are reached, the
 * compilation then landing in a timed run (measured: bulk --iters 10000 "settled" in 4 rounds at
 * 53 ns per value, interpreted). The result's `warmup` counts every run; the values go on
 * across them, so every run's `check` is known.
 */
public final class QueueSuite extends Suite<QueueSuite.QueueLib> {
  /** Opens a library's queue for a run of `entries` entries of `longs` values each. */
  interface Factory {
    Impl open(Path dir, Run<QueueLib> run, long entries, long longs) throws IOException;
  }

  /** A library of the queue suite: the variants it can express, its factory and limits. */
  public static final class QueueLib extends Suite.Lib {
    final Factory factory;
    /** Whether it keeps files in --work-dir. */
    final boolean files;
    /** The most values one entry may hold (a bulk run's --iters). */
    final long maxLongs;

    QueueLib(
        String name,
        List<String> orderings,
        List<String> pretouch,
        boolean files,
        long maxLongs,
        Map<String, String> versions,
        Factory factory) {
      // Java cannot read the TSC: every library's clock is mono (System.nanoTime).
      super(
          name,
          Map.of("ordering", orderings, "clock", List.of("mono"), "pretouch", pretouch),
          versions);
      this.files = files;
      this.maxLongs = maxLongs;
      this.factory = factory;
    }
  }

  /** The library's own versions, and the histogram's every queue library records with. */
  private static Map<String, String> versions(Map<String, String> own) {
    Map<String, String> v = new LinkedHashMap<>(own);
    v.putAll(Lib.maven("hdrhistogram", "org.hdrhistogram", "HdrHistogram"));
    return v;
  }

  /**
   * The library registry, in the order of `list`. The factories are lambdas, so that Chronicle
   * Queue's classes load only in a chronicle cell.
   */
  static final List<QueueLib> LIBS =
      List.of(
          new QueueLib(
              "null", List.of("none"), List.of("on"), false, NullQueue.MAX_LONGS, versions(Map.of()),
              (dir, run, entries, longs) -> new NullQueue(entries, longs)),
          new QueueLib(
              "wbq", List.of("release", "seqcst"), List.of("on", "off"), true,
              WbqQueue.MAX_LONGS, versions(Map.of("wbq", "1")),
              (dir, run, entries, longs) ->
                  new WbqQueue(dir, run.param("ordering").equals("seqcst"))),
          new QueueLib(
              "chronicle", List.of("lib"), List.of("off"), true, ChronicleQueue.MAX_LONGS,
              versions(Lib.maven("chronicle-queue", "net.openhft", "chronicle-queue")),
              (dir, run, entries, longs) -> new ChronicleQueue(dir)));

  /** The fewest values a warm-up round writes (see the class comment). */
  static final long ROUND_VALUES = 20_000;

  static final List<String> CASES = List.of("single", "bulk", "paced");
  static final List<String> RATES = List.of("100k", "500k", "1M");
  private static final List<Long> RATE_PER_SECOND = List.of(100_000L, 500_000L, 1_000_000L);

  public static final QueueSuite SUITE = new QueueSuite();

  private QueueSuite() {
    super(
        "queue",
        CASES,
        List.of(
            new Param("ordering", List.of("release", "seqcst", "none", "lib")),
            new Param("clock", List.of("mono", "tsc")),
            new Param("pretouch", List.of("on", "off")),
            new Param("rate", RATES, List.of("paced"))),
        LIBS,
        List.of("work-dir", "out-dir"));
  }

  /** `queue append|tail DIR ...`: the wbq queue itself (QueueCommand). */
  @Override
  public Command command() {
    return new QueueCommand();
  }

  /** A paced cell runs its library's default variant: the first value of each parameter. */
  @Override
  public String refuse(String kase, QueueLib lib, Map<String, String> params) {
    if (!kase.equals("paced")) {
      return null;
    }
    List<String> differ = new ArrayList<>();
    List<String> want = new ArrayList<>();
    for (Param p : params(kase)) {
      if (!p.name.equals("rate")) {
        String first = lib.values(p).get(0);
        want.add("--" + p.name + " " + first);
        if (!params.get(p.name).equals(first)) {
          differ.add("--" + p.name + " " + params.get(p.name));
        }
      }
    }
    return differ.isEmpty()
        ? null
        : "a paced cell of lib " + lib.name + " runs its default variant ("
            + String.join(" ", want) + "), not " + String.join(" ", differ);
  }

  /** A queue cell runs in one process; a library with files needs --work-dir. */
  @Override
  public void prepare(Run<QueueLib> run) throws Usage {
    if (run.role.isEmpty()) {
      run.role = "local";
    } else if (!run.role.equals("local")) {
      throw new Usage(
          "--role " + run.role + " is not possible in suite queue (its cells are local)");
    }
    if (run.lib.files && !run.fixtures.containsKey("work-dir")) {
      throw new Usage(
          "suite queue lib " + run.lib.name + " needs --work-dir DIR (its queue's directory)");
    }
  }

  @Override
  public void run(Run<QueueLib> run) throws Failure, Usage {
    boolean bulk = run.kase.equals("bulk");
    long entries = bulk ? 1 : run.iters;
    long longs = bulk ? run.iters : 1;
    if (longs > run.lib.maxLongs) {
      throw new Usage(
          "bad value for --iters: " + run.iters + " (a bulk entry of lib " + run.lib.name
              + " holds at most " + run.lib.maxLongs + " values)");
    }
    Path dir = null;
    if (run.lib.files) {
      dir = Paths.get(run.fixtures.get("work-dir"));
      emptyDir(dir);
    }
    Impl q;
    try {
      q = run.lib.factory.open(dir, run, entries, longs);
    } catch (IOException e) {
      throw Failure.of("opening the " + run.lib.name + " queue in " + dir, e);
    }
    try {
      new Runs(run, q, entries, longs).measure();
    } finally {
      q.close();
    }
  }

  private static void emptyDir(Path dir) throws Failure {
    if (!Files.isDirectory(dir)) {
      throw new Failure("--work-dir " + dir + " is not a directory");
    }
    try (Stream<Path> s = Files.list(dir)) {
      if (s.findAny().isPresent()) {
        throw new Failure(
            "--work-dir " + dir + " is not empty (the queue suite wants a new queue)");
      }
    } catch (IOException e) {
      throw Failure.of("--work-dir " + dir, e);
    }
  }

  /** One cell's runs: the warm-up, the JIT's rounds, the timed runs, the result. */
  private static final class Runs {
    private final Run<QueueLib> run;
    private final Impl q;
    private final long entries;
    private final boolean pretouch;
    private final long periodNs;
    private final int spares;
    private final Loops loops;
    private final Check check;
    /** The last run's wrapping sum of the values read back. */
    private long runSum;
    /** single: a sample is two runs, one timed whole and one timed write by write. */
    private final boolean twoRuns;
    /** The sums of a sample's runs before its last (single: the run timed whole). */
    private final List<Long> samplesChecks = new ArrayList<>();

    Runs(Run<QueueLib> run, Impl q, long entries, long longs) {
      this.run = run;
      this.q = q;
      this.entries = entries;
      this.pretouch = run.param("pretouch").equals("on");
      boolean paced = run.kase.equals("paced");
      this.periodNs =
          paced ? 1_000_000_000L / RATE_PER_SECOND.get(RATES.indexOf(run.param("rate"))) : 0;
      // Histograms for the seconds one run spans, so that a paced run never allocates one.
      this.spares =
          paced ? (int) Math.min(1000, run.iters / (Intervals.SECOND / periodNs) + 2) : 2;
      this.loops = new Loops(q);
      this.check = new Check(run.lib.name, longs);
      this.twoRuns = run.kase.equals("single");
    }

    /**
     * One run: pretouch, the timed loop (single: timed whole, or write by write), then the
     * read-back and its checks; the loop's ns.
     */
    private long once(Intervals latency, Intervals service, boolean whole) throws Failure {
      try {
        if (pretouch) {
          q.pretouch();
        }
        long entriesBefore = check.entries;
        long first = check.expected();
        long sumBefore = check.sum;
        long ns;
        switch (run.kase) {
          case "single":
            ns = whole ? loops.singleWhole(run.iters) : loops.single(run.iters, latency);
            break;
          case "bulk":
            ns = loops.bulk(run.iters, latency);
            break;
          default:
            ns = loops.paced(run.iters, periodNs, latency, service);
        }
        q.readBack(check);
        if (check.entries - entriesBefore != entries || check.expected() - first != run.iters) {
          throw new Failure(
              run.lib.name + " reader: read back " + (check.entries - entriesBefore)
                  + " entries of " + (check.expected() - first) + " values, want " + entries
                  + " of " + run.iters);
        }
        runSum = check.sum - sumBefore;
        latency.settle();
        if (service != null) {
          service.settle();
        }
        return ns;
      } catch (IOException e) {
        throw Failure.of(run.lib.name + " queue", e);
      }
    }

    /**
     * One sample: single's two runs (timed whole, then write by write), or one run; the ns of
     * the run timed whole (bulk and paced: of the run).
     */
    private long sample(Intervals latency, Intervals service) throws Failure {
      if (!twoRuns) {
        return once(latency, service, false);
      }
      long ns = once(latency, service, true);
      samplesChecks.add(runSum);
      once(latency, service, false);
      return ns;
    }

    void measure() throws Failure {
      boolean paced = periodNs > 0;
      Intervals scratch = new Intervals(spares);
      Intervals scratchService = paced ? new Intervals(spares) : null;
      // single alternates its two kinds of run through the warm-up too.
      for (long i = 0; i < run.warmup; ++i) {
        once(scratch, scratchService, twoRuns && i % 2 == 0);
      }
      long perRound = Math.max(1, (ROUND_VALUES + run.iters - 1) / run.iters);
      Jit.Report jit =
          Jit.settle(
              () -> {
                long ns = 0;
                for (long i = 0; i < perRound; ++i) {
                  ns += sample(scratch, scratchService);
                }
                samplesChecks.clear();
                return ns;
              });
      long warmup = run.warmup + jit.rounds() * perRound * (twoRuns ? 2 : 1);

      Intervals latency = new Intervals(spares);
      Intervals service = paced ? new Intervals(spares) : null;
      List<Long> times = new ArrayList<>();
      List<Long> checks = new ArrayList<>();
      long origin = System.nanoTime();
      latency.begin(origin);
      if (paced) {
        service.begin(origin);
      }
      for (long s = 0; s < run.samples; ++s) {
        long compiles = Jit.counter();
        times.add(sample(latency, service));
        jit.sampleCompiles.add(Jit.counter() - compiles);
        checks.addAll(samplesChecks); // single: the run timed whole
        samplesChecks.clear();
        checks.add(runSum);
      }
      latency.finish();
      Json metrics =
          new Json()
              .raw("time", Output.samples("ns", run.iters, times))
              .raw("latency", latency.metric());
      Json intervals = new Json().raw("latency", latency.intervals());
      if (paced) {
        service.finish();
        metrics.raw("service", service.metric());
        intervals.raw("service", service.intervals());
      }
      Json evidence =
          new Json()
              .list("check", checks)
              .num("entries_checked", check.entries)
              .raw("intervals", intervals.text())
              .raw("queue", q.evidence().text());
      Output.printResult(run, "local", warmup, metrics, evidence, jit.json());
    }
  }
}
