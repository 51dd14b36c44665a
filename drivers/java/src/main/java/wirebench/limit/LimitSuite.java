package wirebench.limit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import wirebench.Failure;
import wirebench.Json;
import wirebench.Output;
import wirebench.Run;
import wirebench.Suite;
import wirebench.Timing;
import wirebench.Usage;

/**
 * The limit suite (docs/protocol.md, suite limit): how fast this machine does what every
 * library's work is bounded by. Its one case is memcpy: how fast it copies a block.
 */
public final class LimitSuite extends Suite<LimitSuite.LimitLib> {
  /** A library of the limit suite: its factory, a sampler that copies blocks of a size. */
  public static final class LimitLib extends Suite.Lib {
    final IntFunction<Timing.Sampler> factory;

    LimitLib(String name, IntFunction<Timing.Sampler> factory) {
      super(name, Map.of(), Map.of());
      this.factory = factory;
    }
  }

  /** The library registry, in the order of `list`. */
  static final List<LimitLib> LIBS = List.of(new LimitLib("memcpy", Memcpy::new));

  /** The block sizes, in the order of `list`. */
  static final List<String> BLOCKS = List.of("16KiB", "1MiB", "64MiB");

  private static final List<Integer> BLOCK_BYTES = List.of(16 << 10, 1 << 20, 64 << 20);

  public static final LimitSuite SUITE = new LimitSuite();

  private LimitSuite() {
    super("limit", List.of("memcpy"), List.of(new Param("block", BLOCKS)), LIBS, List.of());
  }

  /** A limit cell runs in one process, with no peer. */
  @Override
  public void prepare(Run<LimitLib> run) throws Usage {
    if (run.role.isEmpty()) {
      run.role = "local";
    } else if (!run.role.equals("local")) {
      throw new Usage(
          "--role " + run.role + " is not possible in suite limit (its cells are local)");
    }
  }

  @Override
  public void run(Run<LimitLib> run) throws Failure {
    int block = BLOCK_BYTES.get(BLOCKS.indexOf(run.param("block")));
    Timing.Measured m = Timing.measure(run, run.lib.factory.apply(block));
    List<Long> bytes = Collections.nCopies((int) run.samples, run.iters * block);
    List<Long> check = Collections.nCopies((int) run.samples, (long) block);
    Output.printResult(
        run,
        "local",
        m,
        new Json().raw("bytes", Output.samples("B", run.iters, new ArrayList<>(bytes))),
        // One comparison of the copy with its source per sample.
        new Json().list("check", check).num("responses_checked", run.samples));
  }
}
