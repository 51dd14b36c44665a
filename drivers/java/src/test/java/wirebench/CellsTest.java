package wirebench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs the driver as the harness does: `list`, every listed cell briefly (verified, digest
 * against testdata/rpc/checks.json), the server role on stdin/stdout (clean end of file,
 * corrupt and truncated messages) and usage errors. Like drivers/rust/tests/cells.rs.
 */
class CellsTest {
  private static final int ITERS = 3;
  private static final int SAMPLES = 2;
  private static final int WARMUP = 1;

  @Test
  void listStartsLikeTheOtherDrivers() throws Exception {
    // How many cells is the registry's business: the harness holds every driver to the
    // C++ driver's list (tests/test_drivers.py).
    Driver.Result r = Driver.run("list");
    assertEquals(0, r.status, r.toString());
    assertEquals(
        "{\"suite\": \"rpc\", \"case\": \"carsales\", \"lib\": \"capnp\", \"params\": "
            + "{\"mode\": \"object\", \"compression\": \"none\", \"reuse\": \"reuse\"}}",
        r.lines().get(0));
  }

  @TestFactory
  Stream<DynamicTest> everyListedCellRunsVerifiedWithTheRightDigest() throws Exception {
    Map<String, Map<Long, Long>> checks = Driver.checks();
    List<DynamicTest> tests = new ArrayList<>();
    // Two driver processes at a time (the machine has two CPUs): each test waits for its own.
    ExecutorService pool = Executors.newFixedThreadPool(2);
    for (String line : Driver.run("list").lines()) {
      List<String> args = new ArrayList<>(List.of("run"));
      String suite = Driver.field(line, "suite");
      String kase = Driver.field(line, "case");
      for (String k : List.of("suite", "case", "lib")) {
        args.add("--" + k);
        args.add(Driver.field(line, k));
      }
      for (String p : suite.equals("rpc") ? List.of("mode", "compression", "reuse") : List.of("block")) {
        args.add("--" + p);
        args.add(Driver.field(line, p));
      }
      args.addAll(
          List.of(
              "--iters", "" + ITERS, "--samples", "" + SAMPLES, "--warmup", "" + WARMUP));
      Future<Driver.Result> running = pool.submit(() -> Driver.run(args.toArray(new String[0])));
      tests.add(
          DynamicTest.dynamicTest(
              String.join(" ", args),
              () -> {
                Driver.Result r = running.get();
                assertEquals(0, r.status, r.toString());
                List<String> out = r.lines();
                assertEquals(1, out.size(), r.toString());
                String result = out.get(0);
                assertEquals("true", Driver.field(result, "verified"));
                assertEquals("java", Driver.field(result, "lang"));
                assertEquals("openjdk", Driver.field(result, "toolchain"));
                assertEquals("2", Driver.field(result, "protocol"));
                String time = result.substring(result.indexOf("\"time\": {"));
                assertEquals("" + ITERS, Driver.field(time, "iters"));
                long warmup = Long.parseLong(Driver.field(result, "warmup"));
                assertTrue(warmup >= WARMUP, result);
                assertEquals(0, (warmup - WARMUP) % ITERS, "whole warm-up rounds: " + result);
                if (suite.equals("rpc")) {
                  long digest = checks.get(kase).get((long) ITERS);
                  assertEquals("[" + digest + ", " + digest + "]", Driver.field(result, "check"));
                  assertEquals(
                      warmup + (long) ITERS * SAMPLES,
                      Long.parseLong(Driver.field(result, "responses_checked")),
                      result);
                  String[] bytes = Driver.field(result.substring(result.indexOf("\"bytes\": {")), "samples").replaceAll("[\\[\\] ]", "").split(",");
                  assertEquals(bytes[0], bytes[1], "every sample moves the same bytes");
                }
              }));
    }
    pool.shutdown();
    return tests.stream();
  }

  /** Runs a server on stdin/stdout with `input` as the whole request stream. */
  private static Driver.Result serve(String lib, String kase, String compression, byte[] input)
      throws Exception {
    return Driver.run(
        input, "run", "--suite", "rpc", "--case", kase, "--lib", lib, "--mode", "pipe", "--compression",
        compression, "--reuse", "reuse", "--role", "server", "--in-fd", "0", "--out-fd", "1");
  }

  @Test
  void serverStopsCleanlyAtEndOfFile() throws Exception {
    for (String[] lc : new String[][] {{"capnp", "none"}, {"capnp", "packed"}, {"protobuf", "none"}, {"null", "none"}}) {
      Driver.Result r = serve(lc[0], "eval", lc[1], new byte[0]);
      assertEquals(0, r.status, lc[0] + " " + lc[1] + ": " + r);
      assertEquals("server", Driver.field(r.stdout, "role"));
      assertEquals("0", Driver.field(r.stdout, "requests"));
    }
  }

  @Test
  void serverAnswersAGoldenStream() throws Exception {
    byte[] requests =
        java.nio.file.Files.readAllBytes(
            Driver.TESTDATA.resolve("golden/cpp/eval.capnp.packed.requests"));
    Driver.Result r = serve("capnp", "eval", "packed", requests);
    assertEquals(0, r.status, r.toString());
    String json = r.stdout.substring(r.stdout.lastIndexOf("{\"protocol\""));
    assertEquals("5", Driver.field(json, "requests"));
    assertEquals("" + requests.length, Driver.field(json, "bytes_in"));
  }

  @Test
  void serverWarmsItsJitUpBeforeItsFirstRequest() throws Exception {
    byte[] requests =
        java.nio.file.Files.readAllBytes(
            Driver.TESTDATA.resolve("golden/cpp/eval.capnp.none.requests"));
    Driver.Result r =
        Driver.run(
            requests, "run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "pipe",
            "--compression", "none", "--reuse", "reuse", "--role", "server", "--in-fd", "0",
            "--out-fd", "1", "--iters", "200", "--warmup", "20");
    assertEquals(0, r.status, r.toString());
    String json = r.stdout.substring(r.stdout.lastIndexOf("{\"protocol\""));
    // It answered only the client's requests; its own rounds are reported under jit.
    assertEquals("5", Driver.field(json, "requests"));
    assertTrue(Integer.parseInt(Driver.field(json, "rounds")) >= 2, json);
  }

  @Test
  void corruptOrTruncatedMessageToServerExits1() throws Exception {
    Object[][] cases = {
      // capnp: a segment table promising 16 words, then 3 bytes.
      {"capnp", "none", new byte[] {0, 0, 0, 0, 16, 0, 0, 0, 1, 2, 3}},
      // capnp: half a segment table.
      {"capnp", "none", new byte[] {0, 0, 0}},
      {"capnp", "packed", new byte[] {0x11, 0, 0x04, (byte) 0xff}},
      // protobuf: a size of 100 bytes, then 5.
      {"protobuf", "none", new byte[] {100, 1, 2, 3, 4, 5}},
      // protobuf: garbage that is not an Expression (wire type 7).
      {"protobuf", "none", new byte[] {2, 0x0f, 0x00}},
      // null: a size of 10 bytes, then 3.
      {"null", "none", new byte[] {10, 0, 0, 0, 1, 2, 3}},
      // null: an operation byte out of range.
      {"null", "none", new byte[] {10, 0, 0, 0, 9, 0, 1, 0, 0, 0, 1, 0, 0, 0}},
    };
    for (Object[] c : cases) {
      Driver.Result r = serve((String) c[0], "eval", (String) c[1], (byte[]) c[2]);
      assertEquals(1, r.status, c[0] + " " + c[1] + ": " + r);
      assertFalse(r.stderr.isEmpty());
    }
  }

  @Test
  void usageErrorsExit2AndNameTheProblem() throws Exception {
    Object[][] cases = {
      {new String[] {"frobnicate"}, "frobnicate"},
      {new String[] {"run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--bogus", "1"}, "--bogus"},
      {
        new String[] {"run", "--suite", "rpc", "--case", "eval", "--lib", "nope", "--mode", "bytes"},
        "unknown lib 'nope' for suite rpc (one of: capnp, protobuf, null)"
      },
      {new String[] {"run", "--case", "eval", "--lib", "capnp"}, "missing --suite"},
      {new String[] {"run", "--suite", "limit", "--case", "eval", "--lib", "capnp"}, "for suite limit"},
      {
        new String[] {"run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--out-dir", "/tmp"},
        "--out-dir is a fixture suite rpc does not take"
      },
      {
        new String[] {
          "run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "bytes",
          "--compression", "none", "--reuse", "reuse", "--block", "1MiB", "--iters", "1"
        },
        "--block is not a parameter of suite rpc"
      },
      {
        new String[] {
          "run", "--suite", "rpc", "--case", "eval", "--lib", "protobuf", "--mode", "bytes", "--compression",
          "packed", "--reuse", "reuse", "--iters", "1"
        },
        "packed"
      },
      {
        new String[] {
          "run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "bytes", "--compression", "none",
          "--reuse", "reuse", "--iters", "x"
        },
        "--iters"
      },
      {
        new String[] {
          "run", "--suite", "limit", "--case", "memcpy", "--lib", "memcpy", "--block", "3KiB", "--iters", "1"
        },
        "3KiB"
      },
      {
        new String[] {
          "run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "pipe", "--compression", "none",
          "--reuse", "reuse", "--role", "client", "--in-fd", "999", "--out-fd", "1",
          "--iters", "1"
        },
        "999"
      },
    };
    for (Object[] c : cases) {
      String[] args = (String[]) c[0];
      Driver.Result r = Driver.run(args);
      assertEquals(2, r.status, String.join(" ", args) + ": " + r);
      assertTrue(r.stderr.contains((String) c[1]), r.stderr);
    }
  }

  @Test
  void infoNamesTheVersions() throws Exception {
    Driver.Result r = Driver.run("info");
    assertEquals(0, r.status, r.toString());
    assertEquals("java", Driver.field(r.stdout, "lang"));
    assertEquals("openjdk", Driver.field(r.stdout, "toolchain"));
    assertEquals("2", Driver.field(r.stdout, "protocol"));
    assertEquals("0.1.16", Driver.field(r.stdout, "capnp"));
    assertEquals("3.21.12", Driver.field(r.stdout, "protobuf"));
    assertEquals("compiles", Driver.field(r.stdout, "jit_signal"));
    assertTrue(new String(r.stdout.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).contains("UseSerialGC"));
  }
}
