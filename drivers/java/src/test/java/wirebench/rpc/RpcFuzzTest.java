package wirebench.rpc;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
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
 * The fuzz target of the rpc server side (fuzz/README.md), one per library of the rpc suite's
 * registry (Targets: WIREBENCH_FUZZ_LIB picks the library): the input is the stream a `--role
 * server` reads on its pipe, after one selector byte, fed through the same code (the library's
 * Impl from its registry factory, Loops.serve) with the responses going to a discard sink. The
 * selector chooses the case (byte % 3: carsales, catrank, eval), reuse ((byte / 3) % 2 == 0)
 * and the library's compression ((byte / 6) % its count: capnp's none or packed).
 *
 * <p>A clean error is a {@link Failure} (exit status 1 with its message in the driver); any
 * other throwable (a runtime exception the library code let through, StackOverflowError,
 * OutOfMemoryError) is a finding, and so is an input that makes the server allocate more than
 * {@link Mutator#allocationBound}. `mvn test` replays the named regressions (Jazzer's regression
 * mode) and runs {@link #shortRun} on each library; fuzz/run.sh fuzzes each.
 */
public class RpcFuzzTest {
  private static final List<String> CASES = List.of("carsales", "catrank", "eval");

  private static final Map<String, Impl<?>> IMPLS = new ConcurrentHashMap<>();

  /** The target: see the class comment. Returns the requests served (a clean error: -1). */
  static long serve(String lib, byte[] data) {
    if (data.length == 0) {
      return 0;
    }
    int sel = data[0] & 0xff;
    String kase = CASES.get(sel % 3);
    boolean reuse = (sel / 3) % 2 == 0;
    RpcSuite.RpcLib l = RpcSuite.SUITE.lib(lib);
    String compression = l.compressions.get((sel / 6) % l.compressions.size());
    // One Impl per cell, kept across inputs as a server keeps it across requests.
    Impl<?> impl =
        IMPLS.computeIfAbsent(
            lib + " " + kase + " " + compression + " " + reuse,
            k -> l.factory.make(kase, compression, reuse));
    return Mutator.bounded(
        data, () -> serve(impl, new ByteArrayInputStream(data, 1, data.length - 1)));
  }

  private static <C> long serve(Impl<C> impl, ByteArrayInputStream in) {
    Loops.Served served = new Loops.Served();
    try {
      Loops.serve(impl, impl.connect(in, OutputStream.nullOutputStream()), served);
    } catch (Failure e) {
      return -1; // the clean error of a corrupt or truncated stream
    }
    return served.requests;
  }

  /** The target (Targets): the input to the library WIREBENCH_FUZZ_LIB names, or to each. */
  @FuzzTest
  void serve(byte[] data) {
    for (String lib : Targets.libs(RpcSuite.SUITE)) {
      serve(lib, data);
    }
  }

  static List<String> libs() {
    return RpcSuite.SUITE.libNames();
  }

  /** Mutants of each library's seeds and the named regressions per short run (see Mutator). */
  static final int SHORT_RUN = 10_000;

  @ParameterizedTest
  @MethodSource("libs")
  void shortRun(String lib) throws Exception {
    List<byte[]> inputs = new ArrayList<>(seeds(lib).values());
    inputs.addAll(Mutator.regressions(RpcFuzzTest.class, "serve"));
    Mutator.run("rpc " + lib, inputs, SHORT_RUN, d -> serve(lib, d));
  }

  // ---- the seeds --------------------------------------------------------------------------

  /** The selector byte of (case, reuse, compression); see the class comment. */
  static int selector(RpcSuite.RpcLib lib, String kase, boolean reuse, String compression) {
    return CASES.indexOf(kase) + (reuse ? 0 : 3) + 6 * lib.compressions.indexOf(compression);
  }

  private static byte[] withSelector(int sel, byte[] stream) {
    byte[] b = new byte[stream.length + 1];
    b[0] = (byte) sel;
    System.arraycopy(stream, 0, b, 1, stream.length);
    return b;
  }

  /** The first `n` requests a fresh client of the cell writes. */
  private static byte[] requests(RpcSuite.RpcLib lib, String kase, String compression, int n)
      throws Failure {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    GoldenFiles.writeRequests(lib.factory.make(kase, compression, true), n, out);
    return out.toByteArray();
  }

  /**
   * The seeds of a library's target, by name (the bytes of the golden files, as `golden write`
   * makes them: the client's requests from a fresh generator): per case and compression, the
   * first request alone (but catrank's, of 150 KB), the second alone (no reuse), and for eval
   * the whole 5-request stream; plus an empty stream.
   */
  public static Map<String, byte[]> seeds(String name) {
    RpcSuite.RpcLib lib = RpcSuite.SUITE.lib(name);
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    try {
      for (String compression : lib.compressions) {
        for (String kase : CASES) {
          byte[] first = requests(lib, kase, compression, 1);
          byte[] two = requests(lib, kase, compression, 2);
          byte[] second = Arrays.copyOfRange(two, first.length, two.length);
          String stem = kase + "-" + compression;
          if (!kase.equals("catrank")) {
            seeds.put(
                stem + "-reuse-1", withSelector(selector(lib, kase, true, compression), first));
          }
          seeds.put(
              stem + "-fresh-2", withSelector(selector(lib, kase, false, compression), second));
          if (kase.equals("eval")) {
            seeds.put(
                stem + "-reuse-stream",
                withSelector(
                    selector(lib, kase, true, compression), requests(lib, kase, compression, 5)));
          }
        }
      }
    } catch (Failure e) {
      throw new IllegalStateException("rpc " + name + ": its seeds: " + e.getMessage(), e);
    }
    seeds.put("empty", new byte[] {0});
    return seeds;
  }
}
