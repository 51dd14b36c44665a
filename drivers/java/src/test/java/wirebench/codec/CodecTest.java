package wirebench.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import wirebench.Driver;

/**
 * The codec workload against testdata/codec (wirebench/codec_records.py), and every library
 * in-process: round trips, the operations' digests and checks, truncated input.
 */
class CodecTest {
  private static Path codec(String name) {
    return Driver.TESTDATA.resolve("codec").resolve(name);
  }

  /** testdata/codec/checks.json: case -> its fold. */
  static Map<String, Long> folds() throws Exception {
    String text = Files.readString(codec("checks.json"));
    Matcher m = Pattern.compile("\"(\\w+)\": \\{[^{]*\"fold\": (-?\\d+)").matcher(text);
    Map<String, Long> out = new java.util.HashMap<>();
    while (m.find()) {
      out.put(m.group(1), Long.parseLong(m.group(2)));
    }
    return out;
  }

  /** The size axis: the first records of the generator, with the folds of checks.json. */
  @Test
  void theSizeAxisIsTheGeneratorsFirstRecords() throws Exception {
    Map<String, Long> folds = folds();
    List<Log> logs = Records.records("logs");
    for (String kase : Records.CASES) {
      List<Log> records = Records.records(kase);
      assertEquals(folds.get(kase), Records.fold(records), kase);
      if (Records.isBatch(kase)) {
        int n = Math.min(records.size(), logs.size());
        assertEquals(Records.SIZES.get(kase), records.size(), kase);
        assertEquals(Records.fold(logs.subList(0, n)), Records.fold(records.subList(0, n)), kase);
      }
    }
  }

  @Test
  void theRecordsAreTheCanonicalJsonsAndTheirFoldsTheChecks() throws Exception {
    Map<String, Long> folds = folds();
    ObjectMapper mapper = new ObjectMapper();
    for (String kase : Records.GOLDEN) {
      List<Log> records = Records.records(kase);
      byte[] json = Files.readAllBytes(codec(kase + ".json"));
      // Parsed independently of any encoder, then compared field by field.
      List<Log> parsed =
          kase.equals("log")
              ? List.of(mapper.readValue(json, Log.class))
              : mapper.readValue(json, Logs.class).logs;
      assertNull(Records.diff(parsed, records), kase);
      assertEquals(folds.get(kase), Records.fold(records), kase);
    }
    assertEquals(1000, Records.records("logs").size());
  }

  @Test
  void everyJsonLibraryWritesTheCanonicalJsonByteForByte() throws Exception {
    for (CodecSuite.CodecLib lib : CodecSuite.LIBS) {
      if (!lib.format.equals("json")) {
        continue;
      }
      for (String kase : Records.GOLDEN) {
        for (boolean reuse : new boolean[] {true, false}) {
          byte[] got =
              new CodecSuite.Reference<>(lib.name, lib.factory.make(kase, reuse), kase).encoding;
          assertArrayEquals(
              Files.readAllBytes(codec(kase + ".json")), got, lib.name + " " + kase);
        }
      }
    }
  }

  /**
   * Every library, case and buffer mode: the reference round trip (populate, serialize, decode,
   * compared), then each operation it has through the suite's sampler, whose checks run.
   */
  @Test
  void everyLibraryRoundTripsAndItsOperationsPassTheirChecks() throws Exception {
    for (CodecSuite.CodecLib lib : CodecSuite.LIBS) {
      for (String kase : Records.GOLDEN) {
        for (boolean reuse : new boolean[] {true, false}) {
          String what = lib.name + " " + kase + (reuse ? " reused" : " fresh");
          CodecSuite.Reference<?> ref =
              new CodecSuite.Reference<>(lib.name, lib.factory.make(kase, reuse), kase);
          checkOps(lib, ref, what);
        }
      }
    }
  }

  private static <N> void checkOps(CodecSuite.CodecLib lib, CodecSuite.Reference<N> ref, String what)
      throws Exception {
    for (String op : CodecSuite.OPS) {
      if (op.equals("access") && !lib.access) {
        continue;
      }
      CodecSuite.Op<N> o = new CodecSuite.Op<>(op, ref);
      o.reset();
      o.iterate(3);
      o.done();
      o.sample();
      long want = op.equals("populate") ? 0 : op.equals("serialize") ? 3L * ref.encoding.length : 3 * ref.fold;
      assertEquals(List.of(want), o.digests, what + " " + op);
    }
  }

  @Test
  void aTruncatedEncodingIsAnErrorForEveryCheckingLibrary() throws Exception {
    for (CodecSuite.CodecLib lib : CodecSuite.LIBS) {
      if (lib.values(CodecSuite.SUITE.param("validation")).get(0).equals("unchecked")) {
        continue; // flatbuffers: nothing checks its bytes
      }
      for (String kase : Records.GOLDEN) {
        Codec<?> codec = lib.factory.make(kase, true);
        byte[] whole = new CodecSuite.Reference<>(lib.name, codec, kase).encoding;
        for (int cut : new int[] {1, 7, whole.length / 2}) {
          byte[] part = Arrays.copyOf(whole, whole.length - cut);
          String what = lib.name + " " + kase + " less " + cut + " bytes";
          assertThrows(
              wirebench.Failure.class, () -> Loops.deserialize(codec, lib.name, part, 1), what);
          if (lib.access) {
            assertThrows(
                wirebench.Failure.class, () -> Loops.access(codec, lib.name, part, 1), what);
          }
        }
      }
    }
  }

  @Test
  void aCellVariesOneParameterOfItsLibrarysFirstCell() {
    for (CodecSuite.CodecLib lib : CodecSuite.LIBS) {
      List<String> params = CodecSuite.SUITE.paramNames();
      Map<String, String> first = new java.util.LinkedHashMap<>();
      params.forEach(p -> first.put(p, lib.values(CodecSuite.SUITE.param(p)).get(0)));
      assertEquals("owned", first.get("strings"), lib.name + ": Java strings are owned");
      assertTrue(CodecSuite.ops(lib, first).containsAll(List.of("populate", "serialize", "deserialize")));
      Map<String, String> fresh = new java.util.LinkedHashMap<>(first);
      fresh.put("buffer", "fresh");
      assertEquals(List.of("populate", "serialize"), CodecSuite.ops(lib, fresh), lib.name);
      List<String> packings = lib.values(CodecSuite.SUITE.param("packing"));
      // capnp packed, thrift compact (its compact protocol)
      String second =
          lib.format.equals("capnp") ? "packed" : lib.format.equals("thrift") ? "compact" : null;
      assertEquals(
          second == null ? List.of("unpacked") : List.of("unpacked", second), packings, lib.name);
      if (second != null) {
        Map<String, String> packed = new java.util.LinkedHashMap<>(first);
        packed.put("packing", second);
        assertEquals(
            lib.access
                ? List.of("serialize", "deserialize", "access")
                : List.of("serialize", "deserialize"),
            CodecSuite.ops(lib, packed),
            lib.name);
      }
    }
  }

  /** A format's libraries write the same bytes (avro-generic's are avro's). */
  @Test
  void theLibrariesOfAFormatWriteTheSameBytes() throws Exception {
    for (String kase : Records.GOLDEN) {
      Map<String, byte[]> first = new java.util.HashMap<>();
      Map<String, String> firstName = new java.util.HashMap<>();
      for (CodecSuite.CodecLib lib : CodecSuite.LIBS) {
        byte[] got = GoldenFiles.encode(lib, kase);
        if (first.putIfAbsent(lib.format, got) == null) {
          firstName.put(lib.format, lib.name);
          continue;
        }
        assertArrayEquals(
            first.get(lib.format), got, lib.name + " " + kase + " vs " + firstName.get(lib.format));
      }
    }
  }

  /**
   * thrift compact, both cases and buffer modes: the operations pass their checks, the bytes
   * differ from the binary protocol's and are fewer, each cell reads only its own protocol, and
   * a truncated encoding is an error.
   */
  @Test
  void thriftCompactIsItsOwnProtocol() throws Exception {
    CodecSuite.CodecLib lib = CodecSuite.SUITE.lib("thrift");
    for (String kase : Records.GOLDEN) {
      for (boolean reuse : new boolean[] {true, false}) {
        String what = "thrift compact " + kase + (reuse ? " reused" : " fresh");
        Codec<?> codec = lib.make(kase, reuse, true);
        CodecSuite.Reference<?> ref = new CodecSuite.Reference<>(lib.name, codec, kase);
        checkOps(lib, ref, what);
        Codec<?> binary = lib.make(kase, reuse, false);
        byte[] plain = new CodecSuite.Reference<>(lib.name, binary, kase).encoding;
        assertTrue(ref.encoding.length < plain.length, what);
        assertThrows(
            wirebench.Failure.class, () -> Loops.deserialize(binary, lib.name, ref.encoding, 1), what);
        assertThrows(
            wirebench.Failure.class, () -> Loops.deserialize(codec, lib.name, plain, 1), what);
        for (int cut : new int[] {1, 7, ref.encoding.length / 2}) {
          byte[] part = Arrays.copyOf(ref.encoding, ref.encoding.length - cut);
          assertThrows(
              wirebench.Failure.class, () -> Loops.deserialize(codec, lib.name, part, 1), what);
        }
      }
    }
  }

  /**
   * Lengths in the input far beyond its size are errors before the decoders allocate them: an
   * Avro string of 2^30 bytes and array of 2^30 items, a Thrift list of 2^30 records (binary
   * and compact) and string of 2^30 bytes.
   */
  @Test
  void hugeLengthsAreErrorsNotAllocations() throws Exception {
    // Log: timestamp, zoneId, zonePlan and http's five integers 0, then http.contentType's
    // length 2^30 (zigzag varint).
    byte[] avroString = {
      0, 0, 0, 0, 0, 0, 0, 0, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08
    };
    byte[] avroArray = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08, 0};
    byte[] thriftBinaryList = {0x0f, 0, 1, 0x0c, 0x40, 0, 0, 0, 0};
    byte[] thriftCompactList = {0x19, (byte) 0xfc, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x04};
    // Log's field 1 (i64 timestamp), then field 8 (serverIp) as a string of 2^30 bytes.
    byte[] thriftBinaryString = {
      0x0a, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x0b, 0, 8, 0x40, 0, 0, 0, 'x'
    };
    Object[][] cases = {
      {"avro", "log", false, avroString},
      {"avro-generic", "log", false, avroString},
      {"avro", "logs", false, avroArray},
      {"avro-generic", "logs", false, avroArray},
      {"thrift", "logs", false, thriftBinaryList},
      {"thrift", "logs", true, thriftCompactList},
      {"thrift", "log", false, thriftBinaryString},
    };
    for (Object[] c : cases) {
      CodecSuite.CodecLib lib = CodecSuite.SUITE.lib((String) c[0]);
      Codec<?> codec = lib.make((String) c[1], true, (Boolean) c[2]);
      byte[] in = (byte[]) c[3];
      long before = THREADS.getCurrentThreadAllocatedBytes();
      assertThrows(
          wirebench.Failure.class,
          () -> Loops.deserialize(codec, lib.name, in, 1),
          c[0] + " " + c[1]);
      long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
      assertTrue(allocated < 64L << 20, c[0] + " " + c[1] + " allocated " + allocated);
    }
  }

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

  /**
   * capnp packed, both cases and buffer modes: the operations pass their checks, the bytes are
   * the unpacked cell's message packed (the runtime unpacks them to the same bytes), fewer of
   * them, and a truncated packed encoding is an error.
   */
  @Test
  void capnpPackedIsTheUnpackedMessagePacked() throws Exception {
    CodecSuite.CodecLib lib = CodecSuite.SUITE.lib("capnp");
    for (String kase : Records.GOLDEN) {
      for (boolean reuse : new boolean[] {true, false}) {
        String what = "capnp packed " + kase + (reuse ? " reused" : " fresh");
        Codec<?> codec = lib.make(kase, reuse, true);
        CodecSuite.Reference<?> ref = new CodecSuite.Reference<>(lib.name, codec, kase);
        checkOps(lib, ref, what);
        byte[] plain =
            new CodecSuite.Reference<>(lib.name, lib.make(kase, reuse, false), kase).encoding;
        org.capnproto.MessageReader m =
            org.capnproto.SerializePacked.read(
                new org.capnproto.ArrayInputStream(java.nio.ByteBuffer.wrap(ref.encoding)));
        java.io.ByteArrayOutputStream unpacked = new java.io.ByteArrayOutputStream();
        org.capnproto.Serialize.write(java.nio.channels.Channels.newChannel(unpacked), m);
        assertArrayEquals(plain, unpacked.toByteArray(), what);
        assertTrue(ref.encoding.length < plain.length, what);
        for (int cut : new int[] {1, 7, ref.encoding.length / 2}) {
          byte[] part = Arrays.copyOf(ref.encoding, ref.encoding.length - cut);
          assertThrows(
              wirebench.Failure.class, () -> Loops.deserialize(codec, lib.name, part, 1), what);
          assertThrows(wirebench.Failure.class, () -> Loops.access(codec, lib.name, part, 1), what);
        }
      }
    }
  }
}
