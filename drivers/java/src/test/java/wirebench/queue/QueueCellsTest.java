package wirebench.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import wirebench.Driver;

/**
 * Every queue cell that `list` prints, through the launcher with small counts: verified, the
 * metrics' forms (the histograms decoded), every run's check sum against the values 0, 1, 2,
 * ... written across the process, entries_checked, the intervals, the queue evidence, and the
 * work directory left with a few files. The JIT's rounds are capped (3) to keep it quick.
 */
class QueueCellsTest {
  private static final int SAMPLES = 2;
  private static final int WARMUP = 1;
  private static final String JVM_OPTS = "-Dwirebench.jit.maxRounds=3";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private static long iters(String kase) {
    return kase.equals("bulk") ? 10_000 : 1_000;
  }

  static Histogram histogram(String base64) throws Exception {
    return Histogram.decodeFromCompressedByteBuffer(
        ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
  }

  /** The wrapping sum of the values first .. first + n - 1. */
  private static long sum(long first, long n) {
    long s = 0;
    for (long v = first; v < first + n; ++v) {
      s += v;
    }
    return s;
  }

  private static void check(JsonNode cell, JsonNode r, Path work) throws Exception {
    String kase = cell.get("case").asText();
    String lib = cell.get("lib").asText();
    long iters = iters(kase);
    long entriesPerRun = kase.equals("bulk") ? 1 : iters;
    assertTrue(r.get("verified").asBoolean(), r.toString());
    assertEquals(2, r.get("protocol").asInt());
    assertEquals("local", r.get("role").asText());
    assertEquals(cell.get("params"), r.get("params"));
    long warmup = r.get("warmup").asLong();
    assertTrue(warmup >= WARMUP, r.toString());
    assertEquals(WARMUP, r.get("warmup_requested").asLong());

    JsonNode time = r.get("metrics").get("time");
    assertEquals("ns", time.get("unit").asText());
    assertEquals(iters, time.get("iters").asLong());
    assertEquals(SAMPLES, time.get("samples").size());
    time.get("samples").forEach(s -> assertTrue(s.asLong() > 0, r.toString()));

    List<String> histograms = new ArrayList<>(List.of("latency"));
    if (kase.equals("paced")) {
      histograms.add("service");
    }
    assertEquals(histograms.size(), r.get("metrics").size() - 1, "time and " + histograms);
    for (String m : histograms) {
      JsonNode metric = r.get("metrics").get(m);
      assertEquals("ns", metric.get("unit").asText());
      Histogram h = histogram(metric.get("histogram").asText());
      assertEquals(SAMPLES * entriesPerRun, h.getTotalCount(), m);
      assertEquals(3, h.getNumberOfSignificantValueDigits());
      assertEquals(1, h.getLowestDiscernibleValue());
      assertTrue(h.getHighestTrackableValue() >= 3_600_000_000_000L);
      long intervals = 0;
      long start = 0;
      for (JsonNode iv : r.get("intervals").get(m)) {
        assertEquals(start, iv.get("start_ms").asLong());
        assertEquals(1000, iv.get("length_ms").asLong());
        intervals += histogram(iv.get("histogram").asText()).getTotalCount();
        start += 1000;
      }
      assertEquals(h.getTotalCount(), intervals, "the intervals hold every value: " + m);
    }
    // Values 0, 1, 2, ... through the warm-up and every run: run g holds g*iters ... ; a
    // single sample is two runs (one timed whole, one write by write), both read back.
    long runs = kase.equals("single") ? 2 * SAMPLES : SAMPLES;
    List<Long> want = new ArrayList<>();
    for (long k = 0; k < runs; ++k) {
      want.add(sum((warmup + k) * iters, iters));
    }
    List<Long> got = new ArrayList<>();
    r.get("check").forEach(c -> got.add(c.asLong()));
    assertEquals(want, got, r.toString());
    assertEquals((warmup + runs) * entriesPerRun, r.get("entries_checked").asLong());

    JsonNode queue = r.get("queue");
    long files;
    try (Stream<Path> s = Files.list(work)) {
      files = s.count();
    }
    if (lib.equals("null")) {
      assertEquals(0, queue.get("cycle_size").asLong());
      assertEquals(0, files);
    } else {
      assertEquals(64L << 20, queue.get("cycle_size").asLong());
      assertTrue(queue.get("cycles").asLong() >= 1, r.toString());
      assertTrue(files <= 4, "finished files deleted: " + files + " left");
    }
    if (lib.equals("chronicle")) {
      assertTrue(r.get("versions").get("chronicle-queue").asText().matches("\\d.*"));
    }
  }

  @TestFactory
  Stream<DynamicTest> everyListedQueueCellRunsVerified() throws Exception {
    List<DynamicTest> tests = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<String> lines = Driver.run("list").lines();
    int n = 0;
    for (String line : lines) {
      JsonNode cell = JSON.readTree(line);
      if (!cell.get("suite").asText().equals("queue")) {
        continue;
      }
      Path work = Files.createDirectory(tmp.resolve("work" + n++));
      List<String> args = new ArrayList<>(List.of("run"));
      for (String k : List.of("suite", "case", "lib")) {
        args.add("--" + k);
        args.add(cell.get(k).asText());
      }
      cell.get("params").fields().forEachRemaining(p -> {
        args.add("--" + p.getKey());
        args.add(p.getValue().asText());
      });
      String kase = cell.get("case").asText();
      args.addAll(
          List.of(
              "--iters", "" + iters(kase), "--samples", "" + SAMPLES, "--warmup", "" + WARMUP,
              "--work-dir", work.toString(), "--out-dir", tmp.toString()));
      Future<Driver.Result> running =
          pool.submit(() -> Driver.runWith(null, JVM_OPTS, args.toArray(new String[0])));
      tests.add(
          DynamicTest.dynamicTest(
              String.join(" ", args),
              () -> {
                Driver.Result r = running.get();
                assertEquals(0, r.status, r.toString());
                assertEquals(1, r.lines().size(), r.toString());
                assertEquals("", r.stderr, "nothing on stderr (Chronicle's logging)");
                check(cell, JSON.readTree(r.lines().get(0)), work);
              }));
    }
    pool.shutdown();
    // for case in (single, bulk, paced): null, wbq's variants, chronicle.
    assertEquals(21, tests.size());
    return tests.stream();
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
