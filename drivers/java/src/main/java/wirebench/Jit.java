package wirebench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM warm-up rule (docs/methodology.md, "Java"). After the requested warm-up the
 * client keeps warming up in rounds, each replaying one sample's workload (the sample's
 * iterations from a reset generator, through the very code a sample runs), until the JIT
 * has settled: {@link #QUIET} consecutive quiet rounds. A round is quiet when HotSpot
 * completed no compilation during it (any tier, OSR included) and its JIT compiler threads
 * used less than {@link #QUIET_CPU_NS} of CPU during it (no compilation in progress). Any
 * other round, a recompilation after a deoptimization included, starts the count again.
 * The rounds stop unsettled after {@link #MAX_ROUNDS} rounds or once they have run for
 * {@link #MAX_NANOS}, whichever comes first (at least one round always runs).
 *
 * <p>Why both signals (measured, drivers/java/scripts/jit_evidence.py):
 *
 * <ul>
 *   <li>Completed compilations: HotSpot's count (sun.management's HotspotCompilationMBean,
 *       the perf counter sun.ci.totalCompiles), read through reflection; the launcher opens
 *       it with --add-exports java.management/sun.management=ALL-UNNAMED. The public
 *       CompilationMXBean.getTotalCompilationTime() would be the alternative, but it is
 *       whole milliseconds and only moves when a compilation completes: rounds of
 *       sub-millisecond C1 compilations leave it unchanged.
 *   <li>Compiler-thread CPU time (/proc/self/task/TID/schedstat of the "C1/C2
 *       CompilerThread"s): a C2 compilation of the per-message code takes 200-900 ms, which
 *       at the quick counts spans several rounds during which no compilation completes. On
 *       one pinned CPU that compiler thread also takes the CPU from the benchmark.
 * </ul>
 *
 * <p>The reading code (reflection, /proc) is compiled at start-up, so that it does not show
 * up as compilations in the rounds; per-round results are kept in preallocated arrays for
 * the same reason (boxing would compile Long.valueOf mid-rounds).
 *
 * <p>For experiments the limits can be changed with system properties
 * (-Dwirebench.jit.quiet, .maxRounds, .maxSeconds, .minRounds; .maxRounds=0 turns the rule
 * off; .trace=true prints when each round ended), passed through WIREBENCH_JVM_OPTS to the
 * launcher.
 */
public final class Jit {
  private Jit() {}

  /**
   * Four, not two: tiered compilation moves a method up a tier after a count of calls, so
   * quiet rounds can still precede a tier-up. After two, rpc carsales capnp object
   * compiled 14 methods in its first sample in every process (3x that sample's time).
   */
  static final int QUIET = Integer.getInteger("wirebench.jit.quiet", 4);
  static final int MAX_ROUNDS = Integer.getInteger("wirebench.jit.maxRounds", 30);
  static final int MIN_ROUNDS = Integer.getInteger("wirebench.jit.minRounds", 0);
  /** Compiler-thread CPU per round below which a round without completed compiles is quiet. */
  static final long QUIET_CPU_NS = 1_000_000;

  /** -Dwirebench.jit.trace=true: the JVM uptime at the end of each round, on stderr. */
  static final boolean TRACE = Boolean.getBoolean("wirebench.jit.trace");

  static final long MAX_NANOS =
      (long) (Double.parseDouble(System.getProperty("wirebench.jit.maxSeconds", "15")) * 1e9);

  private static final CompilationMXBean COMPILATION = ManagementFactory.getCompilationMXBean();
  private static final java.lang.management.RuntimeMXBean UPTIME =
      ManagementFactory.getRuntimeMXBean();
  private static final Object HOTSPOT;
  private static final Method TOTAL_COMPILES;

  static {
    Object bean = null;
    Method total = null;
    try {
      Class<?> helper = Class.forName("sun.management.ManagementFactoryHelper");
      bean = helper.getMethod("getHotspotCompilationMBean").invoke(null);
      total =
          Class.forName("sun.management.HotspotCompilationMBean")
              .getMethod("getTotalCompileCount");
      total.invoke(bean);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      bean = null; // not exported to us: fall back to the compilation time
      total = null;
    }
    HOTSPOT = bean;
    TOTAL_COMPILES = total;
  }


  /** Which counter the rule watches: "compiles" (a count) or "compile_ms" (the fallback). */
  public static String signal() {
    return TOTAL_COMPILES != null ? "compiles" : "compile_ms";
  }

  /** The counter the rule watches: compilations completed, or else milliseconds spent. */
  public static long counter() {
    if (TOTAL_COMPILES != null) {
      try {
        return (Long) TOTAL_COMPILES.invoke(HOTSPOT);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    return compileMs();
  }

  // ---- the JIT compiler threads' CPU time, from /proc ----------------------------------

  /** How many compiler threads HotSpot may run (with dynamic threads, at most this many). */
  private static final int COMPILER_THREADS = compilerThreadCount();

  /** The compiler threads' /proc/self/task/TID/schedstat, kept open and re-read in place. */
  private static final java.util.Map<String, java.io.RandomAccessFile> SCHEDSTAT =
      new java.util.HashMap<>();
  /** Thread id -> CPU ns last seen, so that a compiler thread that exits loses nothing. */
  private static final java.util.Map<String, Long> SEEN = new java.util.HashMap<>();

  private static final byte[] STAT = new byte[128];
  private static long jitCpuTotal;

  private static int compilerThreadCount() {
    try {
      return Integer.parseInt(
          ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
              .getVMOption("CICompilerCount")
              .getValue());
    } catch (RuntimeException e) {
      return 2;
    }
  }

  /** Finds compiler threads not yet known ("C1 CompilerThre", "C2 CompilerThre"). */
  private static void findCompilerThreads() {
    String[] tids = new java.io.File("/proc/self/task").list();
    if (tids == null) {
      return;
    }
    for (String tid : tids) {
      if (SCHEDSTAT.containsKey(tid)) {
        continue;
      }
      String dir = "/proc/self/task/" + tid + "/";
      try (java.io.RandomAccessFile comm = new java.io.RandomAccessFile(dir + "comm", "r")) {
        String name = comm.readLine();
        if (name != null && name.matches("C[12] CompilerThre.*")) {
          SCHEDSTAT.put(tid, new java.io.RandomAccessFile(dir + "schedstat", "r"));
        }
      } catch (java.io.IOException e) {
        // gone already
      }
    }
  }

  /**
   * CPU time the JIT compiler threads have used so far, in ns (the first field of
   * /proc/self/task/TID/schedstat); -1 where /proc cannot tell. It counts compilations in
   * progress too, which the count of completed compilations cannot: a C2 compilation of
   * several hundred ms spans several short rounds before it completes. The few lines run
   * per call are compiled at start-up (see the end of the class), not during the rounds.
   */
  static synchronized long jitCpuNs() {
    if (SCHEDSTAT.size() < COMPILER_THREADS) {
      findCompilerThreads(); // HotSpot starts compiler threads on demand
    }
    if (SCHEDSTAT.isEmpty()) {
      return -1;
    }
    for (java.util.Iterator<java.util.Map.Entry<String, java.io.RandomAccessFile>> it =
            SCHEDSTAT.entrySet().iterator();
        it.hasNext(); ) {
      java.util.Map.Entry<String, java.io.RandomAccessFile> e = it.next();
      long ns = 0;
      try {
        java.io.RandomAccessFile f = e.getValue();
        f.seek(0);
        int n = f.read(STAT, 0, STAT.length);
        for (int i = 0; i < n && STAT[i] >= '0' && STAT[i] <= '9'; ++i) {
          ns = ns * 10 + (STAT[i] - '0');
        }
      } catch (java.io.IOException x) {
        it.remove(); // the thread has exited: what it used was counted when last seen
        continue;
      }
      Long before = SEEN.put(e.getKey(), ns);
      jitCpuTotal += ns - (before == null ? 0 : before);
    }
    return jitCpuTotal;
  }

  /** Total time the JIT compilers have spent so far, in ms (the public MXBean). */
  public static long compileMs() {
    return COMPILATION.isCompilationTimeMonitoringSupported()
        ? COMPILATION.getTotalCompilationTime()
        : -1;
  }

  /** One warm-up round: replays a sample's workload; returns its nanoseconds. */
  public interface Round {
    long run() throws Failure;
  }

  /** What the rounds did, for the result's "jit" object. */
  public static final class Report {
    // Plain arrays, filled in place: boxing a Long per round would itself compile code
    // (Long.valueOf) in the middle of the rounds and disturb the signal.
    final long[] roundNs = new long[Math.max(1, MAX_ROUNDS)];
    final long[] roundCompiles = new long[roundNs.length];
    /** The public MXBean's compilation milliseconds during each round, for comparison. */
    final long[] roundCompileMs = new long[roundNs.length];
    /** CPU time the compiler threads used during each round, in microseconds. */
    final long[] roundJitCpuUs = new long[roundNs.length];

    final long[] roundEndMs = new long[roundNs.length];
    int rounds;
    boolean settled;
    long compileMs;
    long wallNs;
    /** Counter deltas during each timed sample (measured after the fact, not timed). */
    public final List<Long> sampleCompiles = new ArrayList<>();

    public int rounds() {
      return rounds;
    }

    private List<Long> list(long[] a) {
      List<Long> out = new ArrayList<>();
      for (int i = 0; i < rounds; ++i) {
        out.add(a[i]);
      }
      return out;
    }

    public String json() {
      Json j = new Json();
      j.num("rounds", rounds)
          .bool("settled", settled)
          .str("signal", signal())
          .num("compile_ms", compileMs)
          .num("warmup_ms", wallNs / 1_000_000)
          .list("round_ns", list(roundNs))
          .list("round_compiles", list(roundCompiles))
          .list("round_jit_cpu_us", list(roundJitCpuUs))
          .list("round_compile_ms", list(roundCompileMs))
          .list("sample_compiles", sampleCompiles);
      return j.text();
    }
  }

  /** Runs rounds until the JIT has settled or a cap is reached (see the class comment). */
  public static Report settle(Round round) throws Failure {
    Report r = new Report();
    long start = System.nanoTime();
    int quiet = 0;
    long before = counter();
    long ms = compileMs();
    long cpu = jitCpuNs();
    while (r.rounds < MAX_ROUNDS) {
      long ns = round.run();
      long after = counter();
      long msAfter = compileMs();
      long cpuAfter = jitCpuNs();
      int k = r.rounds++;
      r.roundNs[k] = ns;
      r.roundCompiles[k] = after - before;
      r.roundCompileMs[k] = msAfter - ms;
      r.roundJitCpuUs[k] = (cpuAfter - cpu) / 1000;
      boolean busy = cpu >= 0 && cpuAfter - cpu >= QUIET_CPU_NS;
      cpu = cpuAfter;
      if (TRACE) {
        r.roundEndMs[k] = UPTIME.getUptime(); // printed after the rounds: printing compiles
      }
      ms = msAfter;
      quiet = after == before && !busy ? quiet + 1 : 0;
      before = after;
      if (quiet >= QUIET && r.rounds >= MIN_ROUNDS) {
        r.settled = true;
        break;
      }
      if (System.nanoTime() - start >= MAX_NANOS && r.rounds >= MIN_ROUNDS) {
        break;
      }
    }
    r.wallNs = System.nanoTime() - start;
    r.compileMs = compileMs();
    if (TRACE) {
      System.err.println(
          "wirebench-java: jit rounds ended at uptime ms "
              + java.util.Arrays.toString(java.util.Arrays.copyOf(r.roundEndMs, r.rounds)));
    }
    return r;
  }

  @SuppressWarnings("unused")
  private static final long SINK;

  // Last in the class, so that every field above is initialized first.
  static {
    // Reading the counters must not compile anything during the rounds: reflection
    // generates an accessor class at the 16th call, and the reading code reaches C1 after a
    // few hundred calls and C2 after some thousands. All of it happens here, at start-up.
    long sink = 0;
    for (int i = 0; i < 20000; ++i) {
      sink += counter() + compileMs();
    }
    for (int i = 0; i < 6000; ++i) {
      sink += jitCpuNs();
    }
    SINK = sink;
  }
}
