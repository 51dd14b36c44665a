package wirebench;

import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What this driver prints (docs/protocol.md): its identity, the protocol 2 results (named
 * metrics) of local, client and server runs on stdout, and failures on stderr.
 */
public final class Output {
  private Output() {}

  public static final int PROTOCOL = 2;
  public static final String LANG = "java";
  public static final String TOOLCHAIN = "openjdk";
  public static final String DRIVER = "wirebench-java";

  private static final PrintStream OUT =
      new PrintStream(
          new FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);

  public static void printLine(String line) {
    OUT.print(line);
    OUT.print('\n');
    OUT.flush();
  }

  public static void printLines(List<String> lines) {
    for (String line : lines) {
      OUT.print(line);
      OUT.print('\n');
    }
    OUT.flush();
  }

  public static void flush() {
    OUT.flush();
  }

  /** Says why on stderr and exits 1 (a failed run), from any thread. */
  public static void die(String message) {
    System.err.println("wirebench-java: error: " + message);
    System.err.flush();
    OUT.flush();
    System.exit(1);
  }

  public static String describe(Throwable e) {
    if (e instanceof Failure) {
      return e.getMessage();
    }
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }

  public static String compiler() {
    return System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
  }

  /** The driver's identity, as `info` and every result start. */
  public static Json identity() {
    return new Json()
        .num("protocol", PROTOCOL)
        .str("lang", LANG)
        .str("toolchain", TOOLCHAIN)
        .str("driver", DRIVER);
  }

  /** What every result starts with: the driver's identity, the cell, the role. */
  private static Json header(Run<?> run, String role) {
    return identity()
        .str("suite", run.suite.name)
        .str("case", run.kase)
        .str("lib", run.lib.name)
        .raw("params", Json.pairs(run.params))
        .str("role", role);
  }

  /** A metric of the samples form: one total per timed sample of `iters` iterations. */
  public static String samples(String unit, long iters, List<Long> samples) {
    return new Json().str("unit", unit).num("iters", iters).list("samples", samples).text();
  }

  /**
   * Prints a local or client result: the cell, the warm-up (every iteration run before the
   * first sample, and the JIT's rounds), the metrics (`time` from the timing loop, then the
   * suite's), the suite's evidence (rpc's check and responses_checked) and the provenance.
   * Only a verified run prints one.
   */
  public static void printResult(
      Run<?> run, String role, Timing.Measured m, Json metrics, Json evidence) {
    Json all = new Json().raw("time", samples("ns", run.iters, m.ns)).fields(metrics);
    printResult(run, role, m.warmup, all, evidence, m.jit.json());
  }

  /**
   * The same for a suite that times several operations, each with its own warm-up (codec):
   * `warmup` is the fewest iterations any of them ran before its first sample, `jit` the
   * warm-up evidence (per operation).
   */
  public static void printResult(
      Run<?> run, String role, long warmup, Json metrics, Json evidence, String jit) {
    printLine(
        header(run, role)
            .num("warmup", warmup)
            .num("warmup_requested", run.warmup)
            .bool("verified", true)
            .raw("metrics", metrics.text())
            .fields(evidence)
            .raw("jit", jit)
            .raw("versions", Json.pairs(run.versions()))
            .text());
  }

  /** A metric of the scalar form: one value per process (a size, a count). */
  public static String scalar(String unit, String value) {
    return new Json().str("unit", unit).raw("value", value).text();
  }

  /** Prints a server's result: the cell and the suite's counts. */
  public static void printServer(Run<?> run, Json counts) {
    printLine(
        header(run, "server")
            .fields(counts)
            .bool("verified", true)
            .raw("versions", Json.pairs(run.versions()))
            .text());
  }
}
