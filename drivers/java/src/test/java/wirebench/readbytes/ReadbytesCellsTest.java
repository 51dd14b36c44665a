package wirebench.readbytes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import wirebench.Driver;

/**
 * The readbytes suite through the launcher, as the harness runs it, on the data file the test
 * makes (ShopFile, 12,886,336 bytes): `list`'s cells in their order, a truncated file and a
 * corrupt tag (exit 1 naming pass, value and expectation, or the byte offset), an input that
 * cannot be opened (exit 1 naming it), and usage errors (exit 2). The listed cells' results are
 * judged by the harness (tests/, every listed cell of every driver).
 */
class ReadbytesCellsTest {
  private static final String JVM_OPTS = "-Dwirebench.jit.maxRounds=3";
  private static final List<String> LIBS =
      List.of(
          "null", "buffered_stream", "own_buffer", "file_channel", "mapped", "memory_segment",
          "nio_underflow", "mapped_underflow");
  private static final List<String> CASES = List.of("count", "sum", "varint");

  @TempDir static Path tmp;
  static byte[] data;
  static Path shop;

  @BeforeAll
  static void makeTheFile() throws Exception {
    data = ShopFile.bytes(ShopFile.IDS);
    assertEquals(12_886_336, data.length);
    shop = ShopFile.write(tmp.resolve("shop.pb"), data);
  }

  private static List<String> cell(String kase, String lib, String cache, Path input) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run", "--suite", "readbytes", "--case", kase, "--lib", lib, "--cache", cache,
                "--iters", "1", "--samples", "1", "--warmup", "1"));
    if (input != null) {
      args.addAll(List.of("--input", input.toString()));
    }
    return args;
  }

  private static Driver.Result run(List<String> args) throws Exception {
    return Driver.runWith(null, JVM_OPTS, args.toArray(new String[0]));
  }

  @Test
  void listHasEveryCaseLibAndCacheInOrder() throws Exception {
    List<String> want = new ArrayList<>();
    for (String kase : CASES) {
      for (String lib : LIBS) {
        for (String cache : lib.equals("null") ? List.of("warm") : List.of("warm", "cold")) {
          want.add(
              "{\"suite\": \"readbytes\", \"case\": \"" + kase + "\", \"lib\": \"" + lib
                  + "\", \"params\": {\"cache\": \"" + cache + "\"}}");
        }
      }
    }
    assertEquals(45, want.size());
    List<String> got = new ArrayList<>();
    for (String line : Driver.run("list").lines()) {
      if (line.contains("\"suite\": \"readbytes\"")) {
        got.add(line);
      }
    }
    assertEquals(want, got);
  }

  /** A failed run: exit 1 and the error line, which must contain `message`. */
  private static void fails(String message, List<String> args) throws Exception {
    Driver.Result r = run(args);
    assertEquals(1, r.status, args + ": " + r);
    assertEquals("", r.stdout, "no result");
    assertTrue(r.stderr.startsWith("wirebench-java: error: "), r.stderr);
    assertTrue(r.stderr.contains(message), "want \"" + message + "\" in " + r.stderr);
  }

  @Test
  void aTruncatedFileFailsAtTheFirstPass() throws Exception {
    // The last id's varint (4 bytes from offset 12,886,332) loses its last byte.
    Path cut = ShopFile.write(tmp.resolve("truncated.pb"), Arrays.copyOf(data, data.length - 1));
    fails(
        "readbytes count lib mapped, " + cut + ", pass 1: count 12886335, want 12886336",
        cell("count", "mapped", "warm", cut));
    long lastByte = data[data.length - 1] & 0xff;
    fails(
        "readbytes sum lib own_buffer, " + cut + ", pass 1: sum " + (1_457_733_664L - lastByte - 1)
            + ", want 1457733664",
        cell("sum", "own_buffer", "cold", cut));
    fails(
        "readbytes varint lib file_channel, " + cut + ", pass 1: byte offset 12886335: end of file"
            + " inside the varint that starts at byte offset 12886332",
        cell("varint", "file_channel", "warm", cut));
    // The end inside a varint is an underflow of the last buffer, or of the mapping.
    for (String lib : List.of("nio_underflow", "mapped_underflow")) {
      fails(
          "readbytes varint lib " + lib + ", " + cut + ", pass 1: byte offset 12886335: end of"
              + " file inside the varint that starts at byte offset 12886332",
          cell("varint", lib, "warm", cut));
    }
  }

  @Test
  void aCorruptTagFailsNamingItsOffset() throws Exception {
    byte[] bad = data.clone();
    long tag = ShopFile.tagOffset(1_000_000);
    bad[(int) tag] = 0x10;
    Path corrupt = ShopFile.write(tmp.resolve("corrupt.pb"), bad);
    for (String lib :
        List.of("null", "memory_segment", "buffered_stream", "nio_underflow", "mapped_underflow")) {
      fails(
          "readbytes varint lib " + lib + ", " + corrupt + ", pass 1: byte offset " + tag
              + ": tag 0x10, want 0x08 (field 1, wire type varint)",
          cell("varint", lib, "warm", corrupt));
    }
  }

  @Test
  void anInputThatCannotBeOpenedFailsNamingIt() throws Exception {
    Path missing = tmp.resolve("missing.pb");
    fails(
        "cannot open --input " + missing + ": no such file",
        cell("count", "own_buffer", "warm", missing));
    fails(
        "cannot read --input " + tmp + ": it is a directory", cell("sum", "null", "warm", tmp));
    Path unreadable = ShopFile.write(tmp.resolve("unreadable.pb"), new byte[] {8, 0});
    assertTrue(unreadable.toFile().setReadable(false, false));
    if (!Files.isReadable(unreadable)) { // root reads anything
      fails(
          "cannot open --input " + unreadable + ": permission denied",
          cell("count", "mapped", "cold", unreadable));
    }
  }

  /** `run` with `args`: a usage error (exit 2) whose message is `message`. */
  private static void refused(String message, List<String> args) throws Exception {
    Driver.Result r = Driver.run(args.toArray(new String[0]));
    assertEquals(2, r.status, args + ": " + r);
    assertEquals(message, r.usageError(), args.toString());
  }

  @Test
  void usageErrorsNameTheFlagAndTheLegalValues() throws Exception {
    refused(
        "suite readbytes needs --input FILE (the file its passes read)",
        cell("count", "mapped", "warm", null));
    refused(
        "unknown lib 'fgetc' for suite readbytes (one of: null, buffered_stream, own_buffer, "
            + "file_channel, mapped, memory_segment, nio_underflow, mapped_underflow)",
        cell("count", "fgetc", "warm", shop));
    refused(
        "unknown value for --cache: 'cold' for lib null (one of: warm)",
        cell("count", "null", "cold", shop));
    refused(
        "unknown value for --cache: 'lukewarm' (one of: warm, cold)",
        cell("count", "mapped", "lukewarm", shop));
    refused(
        "unknown value for --case: 'lines' for suite readbytes (one of: count, sum, varint)",
        cell("lines", "mapped", "warm", shop));
    List<String> noCache = new ArrayList<>(cell("sum", "mapped", "warm", shop));
    noCache.subList(noCache.indexOf("--cache"), noCache.indexOf("--cache") + 2).clear();
    refused("missing --cache (one of: warm, cold)", noCache);
    List<String> workDir = new ArrayList<>(cell("sum", "mapped", "warm", shop));
    workDir.addAll(List.of("--work-dir", tmp.toString()));
    refused(
        "flag --work-dir is a fixture suite readbytes does not take (its fixtures: input)",
        workDir);
    List<String> role = new ArrayList<>(cell("sum", "mapped", "warm", shop));
    role.addAll(List.of("--role", "client"));
    refused("--role client is not possible in suite readbytes (its cells are local)", role);
    List<String> block = new ArrayList<>(cell("sum", "mapped", "warm", shop));
    block.addAll(List.of("--block", "1MiB"));
    refused(
        "flag --block is not a parameter of suite readbytes (its parameters: cache)", block);
  }
}
