package wirebench.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import wirebench.Driver;
import wirebench.codec.CodecSuite;

/**
 * Golden messages: this driver checks every language's files in testdata/golden/, still
 * writes its own (testdata/golden/java) byte for byte, and names the file when one is
 * corrupt or truncated. Like drivers/rust/tests/golden.rs.
 */
class GoldenTest {
  private static Path golden(String lang) {
    return Driver.TESTDATA.resolve("golden").resolve(lang);
  }

  private static String[] names(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
    }
  }

  @Test
  void writeReproducesTheCommittedFilesByteForByte(@TempDir Path tmp) throws Exception {
    Driver.Result r = Driver.run("golden", "write", tmp.toString());
    assertEquals(0, r.status, r.toString());
    String[] committed = names(golden("java"));
    assertEquals(committed.length, r.lines().size(), r.stdout);
    assertArrayEquals(committed, names(tmp));
    for (String n : names(tmp)) {
      assertArrayEquals(
          Files.readAllBytes(golden("java").resolve(n)), Files.readAllBytes(tmp.resolve(n)), n);
    }
  }

  @Test
  void checkPassesOnEveryLanguagesFiles() throws Exception {
    String[] langs = names(Driver.TESTDATA.resolve("golden"));
    assertTrue(Arrays.asList(langs).containsAll(Arrays.asList("cpp", "java")), Arrays.toString(langs));
    for (String lang : langs) {
      Driver.Result r = Driver.run("golden", "check", golden(lang).toString());
      assertEquals(0, r.status, lang + ": " + r);
      // Every language writes the same files: this driver supports and checks every one.
      assertEquals(names(golden(lang)).length, r.lines().size(), lang + ": " + r.stdout);
      for (String line : r.lines()) {
        // rpc: 5 messages each; codec: its records (<case>.<format>), or a format this driver
        // lacks (another language's own) skipped.
        assertTrue(
            line.endsWith("\"messages\": 5, \"ok\": true}")
                || line.matches("\\{\"file\": \"logs?\\.[a-z]+\", \"libs\": \\[.*\\], \"records\": 1(000)?, "
                    + "\"same_bytes\": (true|false), \"ok\": true}")
                || line.matches("\\{\"file\": \"logs?\\.[a-z]+\", \"skipped\": true}"),
            lang + ": " + line);
      }
      if (lang.equals("java")) {
        // Each file is checked with every library of its format, in registry order.
        assertTrue(
            r.stdout.contains(
                "\"file\": \"logs.json\", \"libs\": " + codecLibs("json")
                    + ", \"records\": 1000, \"same_bytes\": true"),
            r.stdout);
        assertTrue(
            r.stdout.contains("\"file\": \"logs.kryo\", \"libs\": " + codecLibs("kryo")),
            r.stdout);
      }
    }
  }

  /** The codec libraries of `format`, as a JSON list in registry order. */
  private static String codecLibs(String format) {
    List<String> names = new ArrayList<>();
    for (CodecSuite.CodecLib lib : CodecSuite.SUITE.libs) {
      if (lib.format.equals(format)) {
        names.add("\"" + lib.name + "\"");
      }
    }
    return "[" + String.join(", ", names) + "]";
  }

  /** A copy of the committed Java files, for damaging. */
  private static void copyGolden(Path to) throws Exception {
    for (String n : names(golden("java"))) {
      Files.copy(golden("java").resolve(n), to.resolve(n));
    }
  }

  @Test
  void aCorruptOrTruncatedFileFailsNamingIt(@TempDir Path tmp) throws Exception {
    String[][] damages = {
      {"eval.capnp.none.responses", "truncate"},
      {"catrank.protobuf.none.requests", "truncate"},
      {"carsales.null.none.responses", "flip"},
      {"eval.capnp.packed.requests", "flip"},
    };
    String[][] codecDamages = {
      {"logs.json", "truncate", "logs.json: jackson"},
      {"logs.protobuf", "flip", "logs.protobuf: protobuf"},
      {"log.null", "truncate", "log.null: null"},
      {"logs.msgpack", "flip", "logs.msgpack: msgpack-java"},
    };
    for (String[] d : codecDamages) {
      Path dir = Files.createDirectory(tmp.resolve(d[0] + "-" + d[1]));
      copyGolden(dir);
      Path f = dir.resolve(d[0]);
      byte[] b = Files.readAllBytes(f);
      if (d[1].equals("truncate")) {
        b = Arrays.copyOf(b, b.length - 3);
      } else {
        b[b.length - 2] ^= 0x5a; // a character of the last record's ray id
      }
      Files.write(f, b);
      Driver.Result r = Driver.run("golden", "check", dir.toString());
      assertEquals(1, r.status, d[0] + " " + d[1] + ": " + r);
      assertTrue(r.stderr.contains(d[2]), r.stderr);
      assertFalse(r.stdout.contains(d[0]), "a damaged file is not reported ok: " + r.stdout);
    }
    for (String[] d : damages) {
      Path dir = Files.createDirectory(tmp.resolve(d[0] + "-" + d[1]));
      copyGolden(dir);
      Path f = dir.resolve(d[0]);
      byte[] b = Files.readAllBytes(f);
      if (d[1].equals("truncate")) {
        b = Arrays.copyOf(b, b.length - 3);
      } else {
        // An answer or a value in the last message: the check must notice.
        b[b.length - 2] ^= 0x5a;
      }
      Files.write(f, b);
      Driver.Result r = Driver.run("golden", "check", dir.toString());
      assertEquals(1, r.status, d[0] + " " + d[1] + ": " + r);
      assertTrue(r.stderr.contains(d[0] + ": message 4: "), r.stderr);
      assertFalse(r.stdout.contains(d[0]), "a damaged file is not reported ok: " + r.stdout);
    }
    try (Stream<Path> s = Files.walk(tmp)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
