package wirebench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the driver as the harness does: through the launcher drivers/java/wirebench-java
 * (its JVM flags), from the test class path (the jar is built after the tests).
 */
public final class Driver {
  private Driver() {}

  /** drivers/java: Maven runs the tests there. */
  public static final Path PROJECT = Paths.get("").toAbsolutePath();

  public static final Path TESTDATA = PROJECT.resolve("../../testdata").normalize();
  public static final Path LAUNCHER = PROJECT.resolve("wirebench-java");

  public static final class Result {
    public final int status;
    public final String stdout;
    public final String stderr;

    Result(int status, String stdout, String stderr) {
      this.status = status;
      this.stdout = stdout;
      this.stderr = stderr;
    }

    public List<String> lines() {
      List<String> out = new ArrayList<>();
      for (String l : stdout.split("\n")) {
        if (!l.isEmpty()) {
          out.add(l);
        }
      }
      return out;
    }

    /** The message of a usage error: the first line on stderr, without the usage text. */
    public String usageError() {
      String first = stderr.split("\n", 2)[0];
      String prefix = "wirebench-java: usage error: ";
      if (!first.startsWith(prefix)) {
        throw new AssertionError("not a usage error: " + this);
      }
      return first.substring(prefix.length());
    }

    @Override
    public String toString() {
      return "exit " + status + "\nstdout: " + stdout + "\nstderr: " + stderr;
    }
  }

  private static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isEmpty() ? cp : System.getProperty("java.class.path");
  }

  /** Runs the driver with `args`, stdin from `stdin` (or nothing). */
  public static Result run(byte[] stdin, String... args) throws IOException, InterruptedException {
    return runWith(stdin, null, args);
  }

  /** The same with WIREBENCH_JVM_OPTS set to `jvmOpts` (null: unset). */
  public static Result runWith(byte[] stdin, String jvmOpts, String... args)
      throws IOException, InterruptedException {
    ProcessBuilder pb = process(args);
    if (jvmOpts != null) {
      pb.environment().put("WIREBENCH_JVM_OPTS", jvmOpts);
    }
    Path in = Files.createTempFile("wirebench-java-in", ".bin");
    Path out = Files.createTempFile("wirebench-java-out", ".txt");
    Path err = Files.createTempFile("wirebench-java-err", ".txt");
    try {
      Files.write(in, stdin == null ? new byte[0] : stdin);
      pb.redirectInput(in.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile());
      int status = pb.start().waitFor();
      return new Result(
          status,
          new String(Files.readAllBytes(out), StandardCharsets.UTF_8),
          withoutIncubatorWarning(new String(Files.readAllBytes(err), StandardCharsets.UTF_8)));
    } finally {
      Files.deleteIfExists(in);
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /**
   * What the JVM says at start-up on stderr, in every run, because the launcher adds the
   * incubating jdk.incubator.foreign (suite readbytes, lib memory_segment); it cannot be turned
   * off. The tests judge stderr without it.
   */
  public static final String INCUBATOR_WARNING =
      "WARNING: Using incubator modules: jdk.incubator.foreign\n";

  /** `stderr` less the JVM's incubator warning, which must be there (its first line). */
  static String withoutIncubatorWarning(String stderr) {
    if (!stderr.startsWith(INCUBATOR_WARNING)) {
      throw new AssertionError("no incubator warning first on stderr: " + stderr);
    }
    return stderr.substring(INCUBATOR_WARNING.length());
  }

  public static Result run(String... args) throws IOException, InterruptedException {
    return run(null, args);
  }

  /** The launcher's command line for `args`, for a test that starts the process itself. */
  public static ProcessBuilder process(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(LAUNCHER.toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("WIREBENCH_JAVA_CLASSPATH", classPath());
    pb.environment().remove("WIREBENCH_JVM_OPTS");
    return pb;
  }

  /** `"key": "value"` or `"key": value` (a number, list or literal) out of one JSON line. */
  public static String field(String line, String key) {
    String pat = "\"" + key + "\": ";
    int at = line.indexOf(pat);
    if (at < 0) {
      throw new AssertionError(key + " not in " + line);
    }
    String rest = line.substring(at + pat.length());
    if (rest.startsWith("\"")) {
      return rest.substring(1, rest.indexOf('"', 1));
    }
    if (rest.startsWith("[")) {
      return rest.substring(0, rest.indexOf(']') + 1);
    }
    int end = 0;
    while (end < rest.length() && rest.charAt(end) != ',' && rest.charAt(end) != '}') {
      ++end;
    }
    return rest.substring(0, end);
  }

  /** The data lines of a file of testdata/rpc (no blank lines, no comments). */
  public static List<String> rpcData(String name) throws IOException {
    List<String> out = new ArrayList<>();
    for (String l : Files.readAllLines(Driver.TESTDATA.resolve("rpc").resolve(name))) {
      if (!l.isBlank() && !l.startsWith("#")) {
        out.add(l.trim());
      }
    }
    return out;
  }
}
