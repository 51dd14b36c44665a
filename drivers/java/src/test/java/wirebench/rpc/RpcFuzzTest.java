package wirebench.rpc;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
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
 * Fuzz targets of the rpc server side (fuzz/README.md), one per library: the input is the
 * stream a `--role server` reads on its pipe, after one selector byte, fed through the same
 * code (the library's Impl from its registry factory, Loops.serve) with the responses going to
 * a discard sink. The selector chooses the case (byte % 3: carsales, catrank, eval), reuse
 * ((byte / 3) % 2 == 0) and, for capnp, packed ((byte / 6) % 2 == 1).
 *
 * <p>A clean error is a {@link Failure} (exit status 1 with its message in the driver); any
 * other throwable (a runtime exception the library code let through, StackOverflowError,
 * OutOfMemoryError) is a finding, and so is an input that makes the server allocate more than
 * {@link Mutator#allocationBound}. `mvn test` replays the committed inputs (Jazzer's regression
 * mode) and runs {@link #shortRun} on each target; JAZZER_FUZZ=1 fuzzes one target.
 */
class RpcFuzzTest {
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
    String compression = lib.equals("capnp") && (sel / 6) % 2 == 1 ? "packed" : "none";
    // One Impl per cell, kept across inputs as a server keeps it across requests.
    Impl<?> impl =
        IMPLS.computeIfAbsent(
            lib + " " + kase + " " + compression + " " + reuse,
            k -> RpcSuite.SUITE.lib(lib).factory.make(kase, compression, reuse));
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

  @FuzzTest(maxDuration = "60s")
  void capnp(byte[] data) {
    serve("capnp", data);
  }

  @FuzzTest(maxDuration = "60s")
  void protobuf(byte[] data) {
    serve("protobuf", data);
  }

  @FuzzTest(maxDuration = "60s")
  void nullLib(byte[] data) {
    serve("null", data);
  }

  /** Mutants of each target's committed corpus per short run (seeded, see Mutator). */
  static final int SHORT_RUN = 10_000;

  @ParameterizedTest
  @CsvSource({"capnp,capnp", "protobuf,protobuf", "null,nullLib"})
  void shortRun(String lib, String method) throws Exception {
    Mutator.run("rpc " + lib, Mutator.corpus(RpcFuzzTest.class, method), SHORT_RUN, d -> serve(lib, d));
  }

  // ---- the seeds --------------------------------------------------------------------------

  /** The selector byte of (case, reuse, packed); see the class comment. */
  static int selector(String kase, boolean reuse, boolean packed) {
    return CASES.indexOf(kase) + (reuse ? 0 : 3) + (packed ? 6 : 0);
  }

  private static byte[] withSelector(int sel, byte[] stream) {
    byte[] b = new byte[stream.length + 1];
    b[0] = (byte) sel;
    System.arraycopy(stream, 0, b, 1, stream.length);
    return b;
  }

  /**
   * Writes the seed corpus of every target (the bytes of the golden files, as `golden write`
   * makes them: the client's requests from a fresh generator): per case and compression, the
   * first request alone, the second alone (no reuse), and for eval the whole 5-request stream;
   * plus an empty stream. Run on purpose only: mvn test -Dtest=RpcFuzzTest#writeSeeds
   * -Dwirebench.fuzz.seeds=write.
   */
  @Test
  @EnabledIfSystemProperty(named = "wirebench.fuzz.seeds", matches = "write")
  void writeSeeds() throws Exception {
    Path root = Path.of("src/test/resources/wirebench/rpc/RpcFuzzTestInputs");
    for (String[] t : new String[][] {{"capnp", "capnp"}, {"protobuf", "protobuf"}, {"null", "nullLib"}}) {
      Path dir = root.resolve(t[1]);
      Files.createDirectories(dir);
      RpcSuite.RpcLib lib = RpcSuite.SUITE.lib(t[0]);
      for (String compression : lib.compressions) {
        boolean packed = compression.equals("packed");
        for (String kase : CASES) {
          Impl<?> impl = lib.factory.make(kase, compression, true);
          ByteArrayOutputStream one = new ByteArrayOutputStream();
          GoldenFiles.writeRequests(impl, 1, one);
          ByteArrayOutputStream two = new ByteArrayOutputStream();
          GoldenFiles.writeRequests(lib.factory.make(kase, compression, true), 2, two);
          byte[] first = one.toByteArray();
          byte[] second = Arrays.copyOfRange(two.toByteArray(), first.length, two.size());
          String stem = kase + "-" + compression;
          Files.write(dir.resolve(stem + "-reuse-1"), withSelector(selector(kase, true, packed), first));
          Files.write(
              dir.resolve(stem + "-fresh-2"), withSelector(selector(kase, false, packed), second));
          if (kase.equals("eval")) {
            ByteArrayOutputStream five = new ByteArrayOutputStream();
            GoldenFiles.writeRequests(lib.factory.make(kase, compression, true), 5, five);
            Files.write(
                dir.resolve(stem + "-reuse-stream"),
                withSelector(selector(kase, true, packed), five.toByteArray()));
          }
        }
      }
      Files.write(dir.resolve("empty"), new byte[] {0});
    }
  }
}
