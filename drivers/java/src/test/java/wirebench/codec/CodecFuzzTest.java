package wirebench.codec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import wirebench.Failure;
import wirebench.fuzz.Mutator;
import wirebench.fuzz.Targets;

/**
 * The fuzz target of the codec decoders (fuzz/README.md), one per library of the codec suite's
 * registry (Targets: WIREBENCH_FUZZ_LIB picks the library): the input, after one selector byte,
 * goes to the library's deserialize, as `golden check` feeds a foreign golden file
 * (Loops.deserialize), followed by the answer check `golden check` runs on a success
 * (Records.diff against the case's records); for a library with access (a zero-copy view) the
 * selector may choose access instead (Loops.access), and for a library with a packed encoding
 * (capnp packed, thrift compact) its packed cell's decoder. The selector: byte % 2 the case
 * (log, logs), (byte / 2) % 2 == 1 access, (byte / 4) % 2 == 1 packed.
 *
 * <p>A clean error is a {@link Failure}; any other throwable, or an allocation over {@link
 * Mutator#allocationBound}, is a finding.
 */
public class CodecFuzzTest {
  private static final Map<String, Codec<?>> CODECS = new ConcurrentHashMap<>();
  private static final Map<String, List<Log>> RECORDS = new ConcurrentHashMap<>();

  /** The target: see the class comment. True if the input decoded. */
  static boolean decode(String lib, byte[] data) {
    if (data.length == 0) {
      return false;
    }
    int sel = data[0] & 0xff;
    String kase = Records.GOLDEN.get(sel % 2);
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

  /** The target (Targets): the input to the library WIREBENCH_FUZZ_LIB names, or to each. */
  @FuzzTest
  void decode(byte[] data) {
    for (String lib : Targets.libs(CodecSuite.SUITE)) {
      decode(lib, data);
    }
  }

  static List<String> libs() {
    return CodecSuite.SUITE.libNames();
  }

  /** Mutants of each library's seeds and the named regressions per short run (see Mutator). */
  static final int SHORT_RUN = 10_000;

  @ParameterizedTest
  @MethodSource("libs")
  void shortRun(String lib) throws Exception {
    List<byte[]> inputs = new ArrayList<>(seeds(lib).values());
    inputs.addAll(Mutator.regressions(CodecFuzzTest.class, "decode"));
    Mutator.run("codec " + lib, inputs, SHORT_RUN, d -> decode(lib, d));
  }

  // ---- the seeds --------------------------------------------------------------------------

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
   * The seeds of a library's target, by name: the case log's golden encoding (the library's
   * encoding of the record, as `golden write` makes it) and a batch of the case logs' first 3
   * records (the whole golden batch of 1000 would make slow seeds), for deserialize and, where
   * the library has it, access.
   */
  public static Map<String, byte[]> seeds(String name) {
    CodecSuite.CodecLib lib = CodecSuite.SUITE.lib(name);
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    try {
      byte[] log = encode(lib.factory.make("log", true), Records.records("log"));
      byte[] logs = encode(lib.factory.make("logs", true), Records.records("logs").subList(0, 3));
      seeds.put("log", withSelector(0, log));
      seeds.put("logs-3", withSelector(1, logs));
      if (lib.access) {
        seeds.put("log-access", withSelector(2, log));
        seeds.put("logs-3-access", withSelector(3, logs));
      }
    } catch (Exception e) {
      throw new IllegalStateException("codec " + name + ": its seeds: " + e, e);
    }
    return seeds;
  }
}
