package wirebench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import wirebench.codec.CodecSuite;

/**
 * Runs every cell that `list` prints (but the queue and readbytes suites': queue.QueueCellsTest,
 * readbytes.ReadbytesCellsTest), as the
 * harness does (through the launcher), briefly, and checks its protocol 2 result: verified, the metrics' form, the rpc digests against
 * testdata/rpc/checks.json, the byte counts, the codec digests against testdata/codec. Like
 * drivers/rust/tests/cells.rs.
 */
class CellsTest {
  private static final int ITERS = 3;
  private static final int SAMPLES = 2;
  private static final int WARMUP = 1;

  /** A metric's samples: `iters` and one total per sample. */
  private static List<Long> samples(String result, String metric) {
    String m = Driver.object(result, metric);
    assertEquals("" + ITERS, Driver.field(m, "iters"), result);
    List<Long> values = Driver.longs(Driver.field(m, "samples"));
    assertEquals(SAMPLES, values.size(), result);
    return values;
  }

  /** "16KiB", "1MiB", "64MiB" in bytes. */
  private static long blockBytes(String block) {
    long n = Long.parseLong(block.replaceAll("[^0-9]", ""));
    return block.endsWith("MiB") ? n << 20 : n << 10;
  }

  private static void checkResult(String line, String result, Map<String, Map<Long, Long>> checks)
      throws Exception {
    String suite = Driver.field(line, "suite");
    Map<String, String> params = Driver.params(line);
    assertEquals("true", Driver.field(result, "verified"));
    assertEquals("2", Driver.field(result, "protocol"));
    assertEquals("java", Driver.field(result, "lang"));
    assertEquals("openjdk", Driver.field(result, "toolchain"));
    assertEquals("local", Driver.field(result, "role"));
    assertEquals(params, Driver.params(result), "the cell's parameters");
    long warmup = Long.parseLong(Driver.field(result, "warmup"));
    assertTrue(warmup >= WARMUP, result);
    assertEquals(0, (warmup - WARMUP) % ITERS, "whole warm-up rounds: " + result);
    if (suite.equals("codec")) {
      checkCodec(line, result);
      return;
    }
    for (long ns : samples(result, "time")) {
      assertTrue(ns > 0, result);
    }
    assertEquals("ns", Driver.field(Driver.object(result, "time"), "unit"));
    assertEquals("B", Driver.field(Driver.object(result, "bytes"), "unit"));
    List<Long> bytes = samples(result, "bytes");
    List<Long> check = Driver.longs(Driver.field(result, "check"));
    if (suite.equals("rpc")) {
      long digest = checks.get(Driver.field(line, "case")).get((long) ITERS);
      assertEquals(Collections.nCopies(SAMPLES, digest), check, result);
      assertEquals(
          warmup + (long) ITERS * SAMPLES,
          Long.parseLong(Driver.field(result, "responses_checked")),
          result);
      assertEquals(bytes.get(0), bytes.get(1), "every sample moves the same bytes: " + result);
      if (params.get("mode").equals("object")) {
        assertEquals(0, bytes.get(0), "object mode serializes nothing: " + result);
      } else {
        // At least a request and a response of one byte each, per iteration.
        assertTrue(bytes.get(0) >= 2L * ITERS, result);
      }
    } else {
      long block = blockBytes(params.get("block"));
      assertEquals(Collections.nCopies(SAMPLES, block * ITERS), bytes, result);
      assertEquals(Collections.nCopies(SAMPLES, block), check, result);
      assertEquals("" + SAMPLES, Driver.field(result, "responses_checked"), result);
    }
  }

  /** testdata/codec/checks.json's sizes: the formats whose bytes docs/workloads.md fixes. */
  private static final Map<String, String> FIXED_FORMATS =
      Map.of("null", "null", "jackson", "json", "dsl-json", "json", "msgpack-java", "msgpack");

  /**
   * A codec result: the operations the cell measures (CodecSuite.ops), each with samples, an
   * allocation count and (but populate) digests of sizes or folds; the size of the formats
   * testdata/codec fixes.
   */
  private static void checkCodec(String line, String result) throws Exception {
    String kase = Driver.field(line, "case");
    String lib = Driver.field(line, "lib");
    String checks = Files.readString(Driver.TESTDATA.resolve("codec/checks.json"));
    String entry = checks.substring(checks.indexOf("\"" + kase + "\": {"));
    long fold = Long.parseLong(Driver.field(entry, "fold"));
    long size = Long.parseLong(Driver.field(Driver.object(result, "size"), "value"));
    if (FIXED_FORMATS.containsKey(lib)) {
      assertEquals(Driver.field(entry, FIXED_FORMATS.get(lib)).trim(), "" + size, result);
    }
    List<String> ops = CodecSuite.ops(CodecSuite.SUITE.lib(lib), Driver.params(line));
    for (String op : CodecSuite.OPS) {
      assertEquals(ops.contains(op), result.contains("\"" + op + "\": {"), op + ": " + result);
    }
    String check = Driver.object(result, "check");
    for (String op : ops) {
      assertEquals("ns", Driver.field(Driver.object(result, op), "unit"));
      for (long ns : samples(result, op)) {
        assertTrue(ns > 0, result);
      }
      double alloc =
          Double.parseDouble(Driver.field(Driver.object(result, op + "_alloc_bytes"), "value"));
      assertTrue(alloc >= 0, result);
      if (!op.equals("populate")) {
        long each = op.equals("serialize") ? size : fold;
        assertEquals(
            Collections.nCopies(SAMPLES, each * ITERS), Driver.longs(Driver.field(check, op)), op);
      }
    }
  }

  @TestFactory
  Stream<DynamicTest> everyListedCellRunsVerifiedWithTheRightDigest() throws Exception {
    Map<String, Map<Long, Long>> checks = Driver.checks();
    List<DynamicTest> tests = new ArrayList<>();
    // Two driver processes at a time (the machine has two CPUs): each test waits for its own.
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<String> lines = Driver.run("list").lines();
    assertTrue(!lines.isEmpty());
    for (String line : lines) {
      String suite = Driver.field(line, "suite");
      if (suite.equals("queue") || suite.equals("readbytes")) {
        continue; // their own counts, fixtures and evidence: QueueCellsTest, ReadbytesCellsTest
      }
      List<String> args = new ArrayList<>(List.of("run"));
      for (String k : List.of("suite", "case", "lib")) {
        args.add("--" + k);
        args.add(Driver.field(line, k));
      }
      for (Map.Entry<String, String> p : Driver.params(line).entrySet()) {
        args.add("--" + p.getKey());
        args.add(p.getValue());
      }
      args.addAll(
          List.of("--iters", "" + ITERS, "--samples", "" + SAMPLES, "--warmup", "" + WARMUP));
      Future<Driver.Result> running = pool.submit(() -> Driver.run(args.toArray(new String[0])));
      tests.add(
          DynamicTest.dynamicTest(
              String.join(" ", args),
              () -> {
                Driver.Result r = running.get();
                assertEquals(0, r.status, r.toString());
                List<String> out = r.lines();
                assertEquals(1, out.size(), r.toString());
                checkResult(line, out.get(0), checks);
              }));
    }
    pool.shutdown();
    return tests.stream();
  }
}
