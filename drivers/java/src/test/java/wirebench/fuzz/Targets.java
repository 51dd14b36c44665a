package wirebench.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import wirebench.Suite;
import wirebench.codec.CodecFuzzTest;
import wirebench.rpc.RpcFuzzTest;

/**
 * The fuzz targets, derived from the registry (fuzz/README.md): one per library of the codec
 * and rpc suites, named SUITE_LIB (codec_jackson, rpc_capnp). Each suite has one generic
 * {@code @FuzzTest} (CodecFuzzTest#decode, RpcFuzzTest#serve); the environment variable
 * WIREBENCH_FUZZ_LIB picks the library it feeds, and without it the target feeds every library
 * (the replay of the named regressions in `mvn test`). A library added to a registry is a new
 * target with no edit here.
 *
 * <p>{@code java -cp <test class path> wirebench.fuzz.Targets DIR} (fuzz/run.sh) writes every
 * target's seeds into DIR/TARGET/ and prints one line per target: its name, its test class, its
 * {@code @FuzzTest} method and its library.
 */
public final class Targets {
  private Targets() {}

  /** The environment variable that picks the one library a target feeds. */
  public static final String LIB_VARIABLE = "WIREBENCH_FUZZ_LIB";

  /** The libraries a target feeds: the one WIREBENCH_FUZZ_LIB names, or all of the suite's. */
  public static List<String> libs(Suite<?> suite) {
    String lib = System.getenv(LIB_VARIABLE);
    if (lib == null || lib.isEmpty()) {
      return suite.libNames();
    }
    if (suite.lib(lib) == null) {
      throw new IllegalArgumentException(
          LIB_VARIABLE + "=" + lib + " is no library of suite " + suite.name + " (one of: "
              + String.join(", ", suite.libNames()) + ")");
    }
    return List.of(lib);
  }

  /** One suite's targets: its generic test, and the seed generator of a library. */
  private static final class Family {
    final Suite<?> suite;
    final Class<?> test;
    final String method;
    final Function<String, Map<String, byte[]>> seeds;

    Family(
        Suite<?> suite,
        Class<?> test,
        String method,
        Function<String, Map<String, byte[]>> seeds) {
      this.suite = suite;
      this.test = test;
      this.method = method;
      this.seeds = seeds;
    }
  }

  private static List<Family> families() {
    return List.of(
        new Family(wirebench.codec.CodecSuite.SUITE, CodecFuzzTest.class, "decode",
            CodecFuzzTest::seeds),
        new Family(wirebench.rpc.RpcSuite.SUITE, RpcFuzzTest.class, "serve", RpcFuzzTest::seeds));
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: wirebench.fuzz.Targets SEEDS_DIR");
      System.exit(2);
    }
    List<String> lines = new ArrayList<>();
    for (Family f : families()) {
      for (String lib : f.suite.libNames()) {
        String target = f.suite.name + "_" + lib;
        Path dir = Path.of(args[0], target);
        Files.createDirectories(dir);
        for (Map.Entry<String, byte[]> seed : f.seeds.apply(lib).entrySet()) {
          Files.write(dir.resolve(seed.getKey()), seed.getValue());
        }
        lines.add(target + " " + f.test.getName() + " " + f.method + " " + lib);
      }
    }
    lines.forEach(System.out::println);
  }
}
