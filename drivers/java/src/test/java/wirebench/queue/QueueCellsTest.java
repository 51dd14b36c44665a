package wirebench.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import wirebench.Driver;

/**
 * The queue suite's runs through the launcher, for what is this driver's own (each cell's
 * result is judged by the harness, over every listed cell of every driver): a cell of each
 * library leaves nothing on stderr (Chronicle's logging quieted by the launcher) and its work
 * directory with a few files (finished cycles deleted), and usage errors name the flag and the
 * legal values. The JIT's rounds are capped (3) to keep it quick.
 */
class QueueCellsTest {
  private static final String JVM_OPTS = "-Dwirebench.jit.maxRounds=3";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  /** The first listed bulk cell of every library: nothing on stderr, few files left. */
  @Test
  void aCellOfEveryLibraryIsQuietAndCleansUp() throws Exception {
    List<String> seen = new ArrayList<>();
    for (String line : Driver.run("list").lines()) {
      JsonNode cell = JSON.readTree(line);
      String lib = cell.get("lib").asText();
      if (!cell.get("suite").asText().equals("queue")
          || !cell.get("case").asText().equals("bulk")
          || seen.contains(lib)) {
        continue;
      }
      seen.add(lib);
      Path work = Files.createDirectory(tmp.resolve("work-" + lib));
      List<String> args = new ArrayList<>(List.of("run", "--suite", "queue", "--case", "bulk"));
      args.addAll(List.of("--lib", lib));
      cell.get("params").fields().forEachRemaining(p -> {
        args.add("--" + p.getKey());
        args.add(p.getValue().asText());
      });
      args.addAll(
          List.of(
              "--iters", "10000", "--samples", "2", "--warmup", "1", "--work-dir",
              work.toString(), "--out-dir", tmp.toString()));
      Driver.Result r = Driver.runWith(null, JVM_OPTS, args.toArray(new String[0]));
      assertEquals(0, r.status, r.toString());
      assertEquals(1, r.lines().size(), r.toString());
      assertEquals("", r.stderr, "nothing on stderr (Chronicle's logging)");
      long files;
      try (Stream<Path> s = Files.list(work)) {
        files = s.count();
      }
      if (QueueSuite.SUITE.lib(lib).files) {
        assertTrue(files >= 1 && files <= 4, lib + ": finished files deleted: " + files + " left");
      } else {
        assertEquals(0, files, lib);
      }
    }
    assertEquals(QueueSuite.SUITE.libNames(), seen);
  }

  /** `run` with a queue cell and `more`; must be a usage error whose message is `message`. */
  private static void refused(String message, String... more) throws Exception {
    List<String> args = new ArrayList<>(List.of("run", "--suite", "queue"));
    args.addAll(List.of(more));
    Driver.Result r = Driver.run(args.toArray(new String[0]));
    assertEquals(2, r.status, args + ": " + r);
    assertEquals(message, r.usageError(), args.toString());
  }

  @Test
  void usageErrorsNameTheFlagAndTheLegalValues() throws Exception {
    String dir = tmp.toString();
    refused(
        "unknown value for --clock: 'tsc' for lib wbq (one of: mono)",
        "--case", "single", "--lib", "wbq", "--ordering", "release", "--clock", "tsc",
        "--pretouch", "on", "--iters", "1", "--work-dir", dir);
    refused(
        "unknown value for --ordering: 'release' for lib chronicle (one of: lib)",
        "--case", "single", "--lib", "chronicle", "--ordering", "release", "--clock", "mono",
        "--pretouch", "off", "--iters", "1", "--work-dir", dir);
    refused(
        "unknown value for --pretouch: 'on' for lib chronicle (one of: off)",
        "--case", "single", "--lib", "chronicle", "--ordering", "lib", "--clock", "mono",
        "--pretouch", "on", "--iters", "1", "--work-dir", dir);
    refused(
        "flag --rate is not a parameter of case single of suite queue (its parameters: "
            + "ordering, clock, pretouch)",
        "--case", "single", "--lib", "wbq", "--ordering", "release", "--clock", "mono",
        "--pretouch", "on", "--rate", "1M", "--iters", "1", "--work-dir", dir);
    refused(
        "missing --rate (one of: 100k, 500k, 1M)",
        "--case", "paced", "--lib", "wbq", "--ordering", "release", "--clock", "mono",
        "--pretouch", "on", "--iters", "1", "--work-dir", dir);
    refused(
        "a paced cell of lib wbq runs its default variant (--ordering release --clock mono "
            + "--pretouch on), not --ordering seqcst",
        "--case", "paced", "--lib", "wbq", "--ordering", "seqcst", "--clock", "mono",
        "--pretouch", "on", "--rate", "1M", "--iters", "1", "--work-dir", dir);
    refused(
        "suite queue lib wbq needs --work-dir DIR (its queue's directory)",
        "--case", "bulk", "--lib", "wbq", "--ordering", "release", "--clock", "mono",
        "--pretouch", "on", "--iters", "1");
    refused(
        "bad value for --iters: 8388598 (a bulk entry of lib wbq holds at most 8388597 values)",
        "--case", "bulk", "--lib", "wbq", "--ordering", "release", "--clock", "mono",
        "--pretouch", "on", "--iters", "8388598", "--work-dir", dir);
    refused(
        "flag --input is a fixture suite queue does not take (its fixtures: work-dir, out-dir)",
        "--case", "bulk", "--lib", "null", "--ordering", "none", "--clock", "mono",
        "--pretouch", "on", "--iters", "1", "--input", dir);
  }

  @Test
  void aWorkDirThatIsNotEmptyIsRefused() throws Exception {
    Files.write(tmp.resolve("x"), new byte[1]);
    Driver.Result r =
        Driver.run(
            "run", "--suite", "queue", "--case", "single", "--lib", "wbq", "--ordering", "release",
            "--clock", "mono", "--pretouch", "on", "--iters", "1", "--work-dir", tmp.toString());
    assertEquals(1, r.status, r.toString());
    assertTrue(r.stderr.contains("is not empty"), r.stderr);
  }
}
