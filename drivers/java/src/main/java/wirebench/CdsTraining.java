package wirebench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Build time only, never a measurement: the class-data-sharing archive's training run
 * (wirebench/drivers.py runs it after Maven's package, through the launcher with
 * WIREBENCH_JAVA_CDS_DUMP set, which adds -XX:ArchiveClassesAtExit). In this one JVM it runs
 * the first cell of every case and library of every suite, and of every rpc mode (not the
 * codec size axis's cases: they run the code of `logs`), at one iteration, one sample and no
 * JIT rounds, so that the archive holds the classes those cells load, the JDK's and the
 * libraries' included. Their results go to stdout, which the build discards; their messages
 * are dropped, and a failing cell is passed over (a readbytes cell fails its check on the
 * stand-in input after its classes are loaded). A class not in the archive still loads from
 * the jar, as without one. -Dwirebench.cds.trace=true prints each cell's milliseconds.
 *
 * <p>Usage: CdsTraining SCRATCH_DIR (a directory for the fixtures: the queues, the input).
 */
public final class CdsTraining {
  private CdsTraining() {}

  private static final Pattern FIELD = Pattern.compile("\"([^\"]+)\": \"([^\"]*)\"");

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: CdsTraining SCRATCH_DIR");
      System.exit(2);
    }
    Path scratch = Paths.get(args[0]);
    Path input = scratch.resolve("readbytes.bin");
    Files.write(input, new byte[1 << 16]);
    PrintStream err = System.err;
    // The cells' own messages (a readbytes check failing on the stand-in input) go nowhere.
    System.setErr(new PrintStream(OutputStream.nullOutputStream()));
    int ran = 0;
    int failed = 0;
    for (List<String> argv : cells(scratch, input)) {
      long t0 = System.nanoTime();
      try {
        Main.realMain(argv);
        ++ran;
      } catch (Throwable e) {
        ++failed;
      }
      if (Boolean.getBoolean("wirebench.cds.trace")) {
        err.println((System.nanoTime() - t0) / 1000000 + " ms " + String.join(" ", argv));
      }
    }
    err.println("wirebench-java: CDS training ran " + ran + " cells, " + failed + " failed");
    err.flush();
    // Chronicle's threads would keep the JVM up; the archive is written at exit.
    System.exit(ran > 0 ? 0 : 1);
  }

  /** The `run` command lines: the first cell per suite, case, library (and rpc mode). */
  static List<List<String>> cells(Path scratch, Path input) throws IOException {
    List<List<String>> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    int n = 0;
    for (Suite<?> s : Suites.ALL) {
      for (String line : s.cells()) {
        Map<String, String> fields = new LinkedHashMap<>();
        Matcher m = FIELD.matcher(line);
        while (m.find()) {
          fields.putIfAbsent(m.group(1), m.group(2));
        }
        String kase = fields.get("case");
        String key = s.name + " " + kase + " " + fields.get("lib") + " " + fields.get("mode");
        // The codec size axis (logs1 .. logs10000) runs the code of `logs`.
        boolean sizeAxis = s.name.equals("codec") && kase.startsWith("logs") && !kase.equals("logs");
        if (sizeAxis || !seen.add(key)) {
          continue;
        }
        List<String> argv = new ArrayList<>(List.of("run", "--suite", s.name));
        argv.addAll(List.of("--case", kase, "--lib", fields.get("lib")));
        for (Map.Entry<String, String> f : fields.entrySet()) {
          if (s.param(f.getKey()) != null) {
            argv.addAll(List.of("--" + f.getKey(), f.getValue()));
          }
        }
        argv.addAll(List.of("--iters", "1", "--samples", "1", "--warmup", "0"));
        if (s.fixtures.contains("input")) {
          argv.addAll(List.of("--input", input.toString()));
        }
        if (s.fixtures.contains("work-dir")) {
          Path dir = Files.createDirectories(scratch.resolve("work-" + n++));
          argv.addAll(List.of("--work-dir", dir.toString()));
        }
        out.add(argv);
      }
    }
    return out;
  }
}
