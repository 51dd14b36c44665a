package wirebench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The command line as the harness sees it: `list` from the registry, `info`, and usage errors
 * (exit 2, the message naming the flag or value and the legal ones, from the registry).
 */
class CliTest {
  @Test
  void listIsTheRegistrysCellsOnceEach() throws Exception {
    // How many cells is the registry's business: the harness holds every driver to the C++
    // driver's list (tests/test_drivers.py).
    Driver.Result r = Driver.run("list");
    assertEquals(0, r.status, r.toString());
    List<String> want = new ArrayList<>();
    for (Suite<?> s : Suites.ALL) {
      want.addAll(s.cells());
    }
    assertEquals(want, r.lines());
    assertEquals(want.size(), new HashSet<>(want).size(), "every cell once");
    assertEquals(
        "{\"suite\": \"rpc\", \"case\": \"carsales\", \"lib\": \"capnp\", \"params\": "
            + "{\"mode\": \"object\", \"compression\": \"none\", \"reuse\": \"reuse\"}}",
        r.lines().get(0));
    for (Suite<?> s : Suites.ALL) {
      for (String kase : s.cases) {
        for (String lib : s.libNames()) {
          String cell = "\"suite\": \"" + s.name + "\", \"case\": \"" + kase + "\", \"lib\": \"" + lib;
          assertTrue(r.stdout.contains(cell), "no cell of " + cell);
        }
      }
    }
  }

  /** A codec line names its library's format after "lib"; no other suite's line has one. */
  @Test
  void codecLinesNameTheirLibrarysFormat() throws Exception {
    List<String> lines = Driver.run("list").lines();
    for (wirebench.codec.CodecSuite.CodecLib lib : wirebench.codec.CodecSuite.SUITE.libs) {
      String want =
          "\"lib\": \"" + lib.name + "\", \"format\": \"" + lib.format + "\", \"params\": {";
      assertTrue(lines.stream().anyMatch(l -> l.contains(want)), want);
    }
    for (String line : lines) {
      assertEquals(
          line.startsWith("{\"suite\": \"codec\", "), line.contains("\"format\": "), line);
    }
    assertTrue(
        lines.contains(
            "{\"suite\": \"codec\", \"case\": \"log\", \"lib\": \"jackson\", \"format\": "
                + "\"json\", \"params\": {\"buffer\": \"reused\", \"strings\": \"owned\", "
                + "\"validation\": \"validated\", \"packing\": \"unpacked\"}}"),
        "jackson's first cell");
  }

  @Test
  void infoNamesTheDriverItsSuitesAndVersions() throws Exception {
    Driver.Result r = Driver.run("info");
    assertEquals(0, r.status, r.toString());
    assertEquals(1, r.lines().size(), r.stdout);
    assertEquals("2", Driver.field(r.stdout, "protocol"));
    assertEquals("java", Driver.field(r.stdout, "lang"));
    assertEquals("openjdk", Driver.field(r.stdout, "toolchain"));
    assertEquals("wirebench-java", Driver.field(r.stdout, "driver"));
    assertEquals(
        "[\"rpc\", \"limit\", \"codec\", \"queue\", \"readbytes\"]",
        Driver.field(r.stdout, "suites"));
    assertEquals("2026.4", Driver.field(r.stdout, "chronicle-queue"));
    assertEquals("2.2.2", Driver.field(r.stdout, "hdrhistogram"));
    assertEquals("2.17.2", Driver.field(r.stdout, "jackson"));
    assertEquals("0.9.12", Driver.field(r.stdout, "msgpack-java"));
    assertEquals("2.0.8", Driver.field(r.stdout, "flatbuffers"));
    assertEquals("0.1.16", Driver.field(r.stdout, "capnp"));
    assertEquals("3.21.12", Driver.field(r.stdout, "protobuf"));
    assertEquals("compiles", Driver.field(r.stdout, "jit_signal"));
    assertTrue(Driver.field(r.stdout, "jvm_flags").contains("-XX:+UseSerialGC"), r.stdout);
  }

  /** Runs `run` with `args`; it must be a usage error whose message is `message`. */
  private static void refused(String message, String... args) throws Exception {
    List<String> argv = new ArrayList<>(List.of("run"));
    argv.addAll(List.of(args));
    Driver.Result r = Driver.run(argv.toArray(new String[0]));
    assertEquals(2, r.status, argv + ": " + r);
    assertEquals(message, r.usageError(), argv.toString());
  }

  private static final String[] RPC_CELL = {
    "--case", "eval", "--lib", "capnp", "--mode", "bytes", "--compression", "none", "--reuse",
    "reuse", "--iters", "1"
  };

  private static final String[] LIMIT_CELL = {
    "--case", "memcpy", "--lib", "memcpy", "--block", "16KiB", "--iters", "1"
  };

  private static final String[] CODEC_CELL = {
    "--case", "logs", "--lib", "null", "--buffer", "reused", "--strings", "owned",
    "--validation", "lazy", "--packing", "unpacked", "--iters", "1"
  };

  private static String[] with(String[] cell, String... more) {
    List<String> all = new ArrayList<>(List.of(more));
    all.addAll(List.of(cell));
    return all.toArray(new String[0]);
  }

  @Test
  void theSuiteIsRequiredAndLookedUp() throws Exception {
    refused("missing --suite (one of: rpc, limit, codec, queue, readbytes)", RPC_CELL);
    refused(
        "unknown suite 'readbits' (one of: rpc, limit, codec, queue, readbytes)",
        with(RPC_CELL, "--suite", "readbits"));
    // No code guesses the suite from the case: memcpy is not an rpc case.
    refused(
        "unknown value for --case: 'memcpy' for suite rpc (one of: carsales, catrank, eval)",
        "--suite", "rpc", "--case", "memcpy", "--lib", "memcpy", "--iters", "1");
    refused(
        "unknown value for --case: 'eval' for suite limit (one of: memcpy)",
        "--suite", "limit", "--case", "eval", "--lib", "memcpy", "--iters", "1");
  }

  @Test
  void anUnknownLibIsRefusedListingTheRegistrysLibraries() throws Exception {
    for (Suite<?> s : Suites.ALL) {
      refused(
          "unknown lib 'nope' for suite " + s.name + " (one of: " + String.join(", ", s.libNames())
              + ")",
          "--suite", s.name, "--case", s.cases.get(0), "--lib", "nope", "--iters", "1");
    }
    assertEquals(List.of("capnp", "protobuf", "null"), Suites.find("rpc").libNames());
  }

  @Test
  void aFixtureFlagIsRefusedBySuitesThatTakeNone() throws Exception {
    for (String fixture : Suite.FIXTURES) {
      refused(
          "flag --" + fixture + " is a fixture suite rpc does not take (its fixtures: none)",
          with(RPC_CELL, "--suite", "rpc", "--" + fixture, "/tmp"));
      refused(
          "flag --" + fixture + " is a fixture suite limit does not take (its fixtures: none)",
          with(LIMIT_CELL, "--suite", "limit", "--" + fixture, "/tmp"));
      if (!fixture.equals("out-dir")) {
        refused(
            "flag --" + fixture + " is a fixture suite codec does not take (its fixtures: out-dir)",
            with(CODEC_CELL, "--suite", "codec", "--" + fixture, "/tmp"));
      }
    }
  }

  @Test
  void aParameterOfTheOtherSuiteIsRefused() throws Exception {
    refused(
        "flag --block is not a parameter of suite rpc (its parameters: mode, compression, reuse)",
        with(RPC_CELL, "--suite", "rpc", "--block", "1MiB"));
    for (String p : List.of("mode", "compression", "reuse")) {
      refused(
          "flag --" + p + " is not a parameter of suite limit (its parameters: block)",
          with(LIMIT_CELL, "--suite", "limit", "--" + p, "none"));
    }
    refused("unknown flag --bogus", with(RPC_CELL, "--suite", "rpc", "--bogus", "1"));
  }

  @Test
  void parameterValuesAreCheckedAgainstTheSuiteAndTheLibrary() throws Exception {
    refused(
        "missing --mode (one of: object, bytes, pipe, pipe-async)",
        "--suite", "rpc", "--case", "eval", "--lib", "null", "--iters", "1");
    refused(
        "unknown value for --compression: 'packed' for lib protobuf (one of: none)",
        "--suite", "rpc", "--case", "eval", "--lib", "protobuf", "--mode", "bytes",
        "--compression", "packed", "--reuse", "reuse", "--iters", "1");
    refused(
        "unknown value for --compression: 'zstd' (one of: none, packed)",
        "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "bytes",
        "--compression", "zstd", "--reuse", "reuse", "--iters", "1");
    refused(
        "compression packed does not apply to mode object",
        "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "object",
        "--compression", "packed", "--reuse", "reuse", "--iters", "1");
    refused(
        "unknown value for --block: '3KiB' (one of: 16KiB, 1MiB, 64MiB)",
        "--suite", "limit", "--case", "memcpy", "--lib", "memcpy", "--block", "3KiB",
        "--iters", "1");
  }

  @Test
  void codecValuesAreCheckedAgainstTheSuiteAndTheLibrary() throws Exception {
    refused(
        "unknown value for --buffer: 'kept' (one of: reused, fresh)",
        "--suite", "codec", "--case", "log", "--lib", "null", "--buffer", "kept",
        "--strings", "owned", "--validation", "lazy", "--iters", "1");
    refused(
        "unknown value for --strings: 'borrowed' for lib null (one of: owned)",
        "--suite", "codec", "--case", "log", "--lib", "null", "--buffer", "reused",
        "--strings", "borrowed", "--validation", "lazy", "--iters", "1");
    refused(
        "unknown value for --validation: 'lazy' for lib jackson (one of: validated)",
        "--suite", "codec", "--case", "log", "--lib", "jackson", "--buffer", "reused",
        "--strings", "owned", "--validation", "lazy", "--iters", "1");
    refused(
        "unknown value for --validation: 'unchecked' for lib capnp (one of: lazy)",
        "--suite", "codec", "--case", "logs", "--lib", "capnp", "--buffer", "fresh",
        "--strings", "owned", "--validation", "unchecked", "--iters", "1");
    refused(
        "unknown value for --packing: 'packed' for lib jackson (one of: unpacked)",
        "--suite", "codec", "--case", "log", "--lib", "jackson", "--buffer", "reused",
        "--strings", "owned", "--validation", "validated", "--packing", "packed", "--iters", "1");
    refused(
        "unknown value for --case: 'carsales' for suite codec (one of: log, logs1, logs10, logs100, logs, logs10000)",
        "--suite", "codec", "--case", "carsales", "--lib", "null", "--iters", "1");
    refused(
        "flag --mode is not a parameter of suite codec (its parameters: buffer, strings, validation,"
            + " packing)",
        with(CODEC_CELL, "--suite", "codec", "--mode", "bytes"));
    refused(
        "--role server is not possible in suite codec (its cells are local)",
        with(CODEC_CELL, "--suite", "codec", "--role", "server"));
  }

  @Test
  void rolesCountsAndFdsAreChecked() throws Exception {
    refused(
        "bad value for --iters: 'x' (want a decimal integer)",
        "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "bytes",
        "--compression", "none", "--reuse", "reuse", "--iters", "x");
    refused(
        "--in-fd 999 is not an open fd",
        "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode", "pipe",
        "--compression", "none", "--reuse", "reuse", "--role", "client", "--in-fd", "999",
        "--out-fd", "1", "--iters", "1");
    refused(
        "--role server needs a pipe mode (pipe or pipe-async)",
        with(RPC_CELL, "--suite", "rpc", "--role", "server"));
    refused(
        "--role client is not possible in suite limit (its cells are local)",
        with(LIMIT_CELL, "--suite", "limit", "--role", "client"));
  }

  @Test
  void otherCommandsAreUsageErrors() throws Exception {
    Driver.Result r = Driver.run("frobnicate");
    assertEquals(2, r.status, r.toString());
    assertEquals("unknown command 'frobnicate'", r.usageError());
    // A suite without a command of its own is no command.
    assertEquals("unknown command 'codec'", Driver.run("codec", "x").usageError());
  }

  /** The usage names a suite's own command (queue's, through Suite.command) after golden. */
  @Test
  void theUsageHasTheSuitesOwnCommands() throws Exception {
    String usage = Driver.run("frobnicate").stderr;
    assertTrue(
        usage.contains(
            "       wirebench-java golden write|check DIR\n"
                + "       wirebench-java queue append DIR --entries N"),
        usage);
    assertTrue(
        usage.contains(
            "       wirebench-java queue tail DIR [--follow --expect N] [--timeout S]\n"),
        usage);
  }
}
