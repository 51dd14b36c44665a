package wirebench.codec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import wirebench.Failure;
import wirebench.fuzz.Mutator;

/**
 * Fuzz targets of the codec decoders (fuzz/README.md), one per library of the codec suite: the
 * input, after one selector byte, goes to the library's deserialize, as `golden check` feeds a
 * foreign golden file (Loops.deserialize), followed by the answer check `golden check` runs on
 * a success (Records.diff against the case's records); for the libraries with access (null,
 * capnp, flatbuffers) the selector may choose access instead (Loops.access), and for a library
 * with a packed encoding (capnp) its packed cell's decoder. The selector: byte % 2 the case
 * (log, logs), (byte / 2) % 2 == 1 access, (byte / 4) % 2 == 1 packed.
 *
 * <p>A clean error is a {@link Failure}; any other throwable, or an allocation over {@link
 * Mutator#allocationBound}, is a finding.
 */
class CodecFuzzTest {
  private static final Map<String, Codec<?>> CODECS = new ConcurrentHashMap<>();
  private static final Map<String, List<Log>> RECORDS = new ConcurrentHashMap<>();

  /** The target: see the class comment. True if the input decoded. */
  static boolean decode(String lib, byte[] data) {
    if (data.length == 0) {
      return false;
    }
    int sel = data[0] & 0xff;
    String kase = Records.CASES.get(sel % 2);
    CodecSuite.CodecLib l = CodecSuite.SUITE.lib(lib);
    boolean access = l.access && (sel / 2) % 2 == 1;
    boolean packed = l.packedFactory != null && (sel / 4) % 2 == 1;
    // One codec per (library, case, packing), kept across inputs as the loops keep it across
    // iterations.
    Codec<?> codec =
        CODECS.computeIfAbsent(
            lib + " " + kase + (packed ? " packed" : ""), k -> l.make(kase, true, packed));
    byte[] in = Arrays.copyOfRange(data, 1, data.length);
    return Mutator.bounded(data, () -> decode(lib, codec, kase, access, in));
  }

  private static boolean decode(
      String lib, Codec<?> codec, String kase, boolean access, byte[] in) {
    try {
      if (access) {
        Loops.access(codec, lib, in, 1);
      } else {
        Loops.deserialize(codec, lib, in, 1);
        Records.diff(RECORDS.computeIfAbsent(kase, Records::records), codec.deserialized());
      }
      return true;
    } catch (Failure e) {
      return false; // the clean error of a corrupt or truncated input
    }
  }

  @FuzzTest(maxDuration = "60s")
  void nullLib(byte[] data) {
    decode("null", data);
  }

  @FuzzTest(maxDuration = "60s")
  void jackson(byte[] data) {
    decode("jackson", data);
  }

  @FuzzTest(maxDuration = "60s")
  void dslJson(byte[] data) {
    decode("dsl-json", data);
  }

  @FuzzTest(maxDuration = "60s")
  void protobuf(byte[] data) {
    decode("protobuf", data);
  }

  @FuzzTest(maxDuration = "60s")
  void capnp(byte[] data) {
    decode("capnp", data);
  }

  @FuzzTest(maxDuration = "60s")
  void flatbuffers(byte[] data) {
    decode("flatbuffers", data);
  }

  @FuzzTest(maxDuration = "60s")
  void msgpack(byte[] data) {
    decode("msgpack-java", data);
  }

  @FuzzTest(maxDuration = "60s")
  void kryo(byte[] data) {
    decode("kryo", data);
  }

  /** Mutants of each target's committed corpus per short run (seeded, see Mutator). */
  static final int SHORT_RUN = 10_000;

  @ParameterizedTest
  @CsvSource({
    "null,nullLib", "jackson,jackson", "dsl-json,dslJson", "protobuf,protobuf", "capnp,capnp",
    "flatbuffers,flatbuffers", "msgpack-java,msgpack", "kryo,kryo"
  })
  void shortRun(String lib, String method) throws Exception {
    Mutator.run(
        "codec " + lib, Mutator.corpus(CodecFuzzTest.class, method), SHORT_RUN, d -> decode(lib, d));
  }

  // ---- the seeds --------------------------------------------------------------------------

  private static final String[][] TARGETS = {
    {"null", "nullLib"}, {"jackson", "jackson"}, {"dsl-json", "dslJson"}, {"protobuf", "protobuf"},
    {"capnp", "capnp"}, {"flatbuffers", "flatbuffers"}, {"msgpack-java", "msgpack"}, {"kryo", "kryo"}
  };

  /** The library's encoding of `records` in case `kase`, as its serialize writes it. */
  private static <N> byte[] encode(Codec<N> codec, List<Log> records) throws Exception {
    codec.serializeOnce(codec.populateOnce(records));
    return codec.output();
  }

  private static byte[] withSelector(int sel, byte[] in) {
    byte[] b = new byte[in.length + 1];
    b[0] = (byte) sel;
    System.arraycopy(in, 0, b, 1, in.length);
    return b;
  }

  /**
   * Writes the seed corpus of every target: the case log's golden encoding (the library's
   * encoding of the record, as `golden write` makes it) and a batch of the case logs' first 3
   * records (the whole golden batch of 1000 would make slow seeds), for deserialize and, where
   * the library has it, access. Run on purpose only: mvn test -Dtest=CodecFuzzTest#writeSeeds
   * -Dwirebench.fuzz.seeds=write.
   */
  @Test
  @EnabledIfSystemProperty(named = "wirebench.fuzz.seeds", matches = "write")
  void writeSeeds() throws Exception {
    Path root = Path.of("src/test/resources/wirebench/codec/CodecFuzzTestInputs");
    for (String[] t : TARGETS) {
      Path dir = root.resolve(t[1]);
      Files.createDirectories(dir);
      CodecSuite.CodecLib lib = CodecSuite.SUITE.lib(t[0]);
      byte[] log = encode(lib.factory.make("log", true), Records.records("log"));
      byte[] logs = encode(lib.factory.make("logs", true), Records.records("logs").subList(0, 3));
      Files.write(dir.resolve("log"), withSelector(0, log));
      Files.write(dir.resolve("logs-3"), withSelector(1, logs));
      if (lib.access) {
        Files.write(dir.resolve("log-access"), withSelector(2, log));
        Files.write(dir.resolve("logs-3-access"), withSelector(3, logs));
      }
    }
  }
}
