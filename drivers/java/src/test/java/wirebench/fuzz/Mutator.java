package wirebench.fuzz;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The seeded random-mutation fuzzer of the short runs inside `mvn test` (fuzz/README.md): a
 * fixed-seed java.util.Random mutates a target's seeds and named regressions with bit flips, byte insertions and deletions, truncations, splices, interesting
 * bytes and edits of 32-bit and varint length fields, and feeds every mutant to the target. The
 * same seed gives the same inputs on every machine: a failure names the seed and the iteration,
 * and {@link #mutant} rebuilds that input.
 */
public final class Mutator {
  private Mutator() {}

  /** The seed of every short run. */
  public static final long SEED = 0x77697265_62656e63L;

  /**
   * A target's named regressions: the files of src/test/resources/<its Inputs folder>/<method>
   * (the inputs Jazzer replays in `mvn test`), in name order; none if there is no folder.
   */
  public static List<byte[]> regressions(Class<?> test, String method) throws IOException {
    Path dir =
        Path.of("src/test/resources")
            .resolve(test.getName().replace('.', '/') + "Inputs")
            .resolve(method);
    List<byte[]> inputs = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return inputs;
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.sorted().toArray(Path[]::new)) {
        inputs.add(Files.readAllBytes(p));
      }
    }
    return inputs;
  }

  private static final int[] INTERESTING = {
    0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff,
    64 << 20, (64 << 20) + 1, 8 << 20, (8 << 20) + 1, 512, 513, -2
  };

  /** The `i`th input of a run: a seed with 1 to 4 mutations stacked on it. */
  public static byte[] mutant(Random rng, List<byte[]> seeds) {
    byte[] b = seeds.get(rng.nextInt(seeds.size())).clone();
    int n = 1 + rng.nextInt(4);
    for (int k = 0; k < n; ++k) {
      b = mutate(rng, b, seeds);
    }
    return b;
  }

  static byte[] mutate(Random rng, byte[] b, List<byte[]> seeds) {
    int len = b.length;
    int at = len == 0 ? 0 : rng.nextInt(len);
    switch (rng.nextInt(10)) {
      case 0: // bit flip
        if (len > 0) {
          b[at] ^= (byte) (1 << rng.nextInt(8));
        }
        return b;
      case 1: // random byte
        if (len > 0) {
          b[at] = (byte) rng.nextInt(256);
        }
        return b;
      case 2: // insertion of 1 to 8 bytes
        {
          int k = 1 + rng.nextInt(8);
          byte[] c = new byte[len + k];
          System.arraycopy(b, 0, c, 0, at);
          for (int i = 0; i < k; ++i) {
            c[at + i] = (byte) rng.nextInt(256);
          }
          System.arraycopy(b, at, c, at + k, len - at);
          return c;
        }
      case 3: // deletion of 1 to 16 bytes
        {
          int k = Math.min(len - at, 1 + rng.nextInt(16));
          byte[] c = new byte[len - k];
          System.arraycopy(b, 0, c, 0, at);
          System.arraycopy(b, at + k, c, at, len - at - k);
          return c;
        }
      case 4: // truncation (never the selector byte alone: keep at least 1)
        return Arrays.copyOf(b, Math.min(len, 1 + rng.nextInt(Math.max(1, len))));
      case 5: // splice: our head, another seed's tail
        {
          byte[] o = seeds.get(rng.nextInt(seeds.size()));
          int from = o.length == 0 ? 0 : rng.nextInt(o.length);
          byte[] c = Arrays.copyOf(b, at + o.length - from);
          System.arraycopy(o, from, c, at, o.length - from);
          return c;
        }
      case 6: // a 32-bit little-endian length field set to an interesting value
        if (len >= 4) {
          int p = rng.nextInt(len - 3);
          int v = INTERESTING[rng.nextInt(INTERESTING.length)];
          b[p] = (byte) v;
          b[p + 1] = (byte) (v >>> 8);
          b[p + 2] = (byte) (v >>> 16);
          b[p + 3] = (byte) (v >>> 24);
        }
        return b;
      case 7: // a varint set to an interesting value (1 to 5 bytes replacing 1 byte)
        {
          long v = INTERESTING[rng.nextInt(INTERESTING.length)] & 0xffffffffL;
          byte[] var = new byte[10];
          int k = 0;
          while (v >= 0x80) {
            var[k++] = (byte) (v | 0x80);
            v >>>= 7;
          }
          var[k++] = (byte) v;
          int p = len == 0 ? 0 : at;
          int cut = Math.min(1, len - p);
          byte[] c = new byte[len - cut + k];
          System.arraycopy(b, 0, c, 0, p);
          System.arraycopy(var, 0, c, p, k);
          System.arraycopy(b, p + cut, c, p + k, len - p - cut);
          return c;
        }
      case 8: // a run of one byte repeated (nesting, zero runs of packed capnp)
        if (len > 0) {
          int k = Math.min(len - at, 1 + rng.nextInt(64));
          Arrays.fill(b, at, at + k, b[at]);
        }
        return b;
      default: // a block of the input duplicated in place
        {
          int k = Math.min(len - at, 1 + rng.nextInt(64));
          byte[] c = new byte[len + k];
          System.arraycopy(b, 0, c, 0, at + k);
          System.arraycopy(b, at, c, at + k, len - at);
          return c;
        }
    }
  }

  /**
   * Feeds every seed, then `iterations` mutants, to `target`; a throw (anything but the
   * target's own clean errors, which it swallows) fails naming the seed and iteration.
   */
  public static long run(String name, List<byte[]> seeds, int iterations, Consumer<byte[]> target) {
    if (seeds.isEmpty()) {
      throw new AssertionError(name + ": no seeds");
    }
    for (int i = 0; i < seeds.size(); ++i) {
      try {
        target.accept(seeds.get(i));
      } catch (Throwable e) {
        throw new AssertionError(name + ": seed " + i + ": " + e, e);
      }
    }
    Random rng = new Random(SEED ^ name.hashCode());
    for (int i = 0; i < iterations; ++i) {
      byte[] input = mutant(rng, seeds);
      try {
        target.accept(input);
      } catch (Throwable e) {
        throw new AssertionError(
            name + ": mutant " + i + " (seed " + Long.toHexString(SEED) + ", " + input.length
                + " bytes: " + hex(input, 64) + "): " + e,
            e);
      }
    }
    return seeds.size() + (long) iterations;
  }

  static String hex(byte[] b, int max) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < Math.min(b.length, max); ++i) {
      s.append(String.format("%02x", b[i] & 0xff));
    }
    return b.length > max ? s + "..." : s.toString();
  }

  // ---- memory bound -------------------------------------------------------------------------

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** Bytes this thread has allocated so far. */
  public static long allocated() {
    return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
  }

  /** The most one input may make a decoder allocate: a refused 64 MiB frame may be allocated
   *  once (the frame limit), twice over for a copy, plus 4 KiB per input byte (capnp's packed
   *  zero runs expand 2 bytes into 2 KiB; answers grow with their requests). */
  public static long allocationBound(int inputBytes) {
    return 2L * (64 << 20) + (16L << 20) + 4096L * inputBytes;
  }

  /**
   * Runs `target` on `input`, failing if it allocated more than the bound for the input twice
   * in a row: the first run of a code path also allocates for class loading and, under Jazzer,
   * instrumentation (1.5 GB on one thread, seen), which a second run does not repeat.
   */
  public static <T> T bounded(byte[] input, java.util.function.Supplier<T> target) {
    long before = allocated();
    T result = target.get();
    if (allocated() - before > allocationBound(input.length)) {
      before = allocated();
      result = target.get();
      checkAllocation(allocated() - before, input);
    }
    return result;
  }

  /** Fails if `allocated` bytes exceed the bound for `input`. */
  public static void checkAllocation(long allocated, byte[] input) {
    if (allocated > allocationBound(input.length)) {
      throw new AssertionError(
          "unbounded allocation: " + allocated + " bytes for an input of " + input.length
              + " bytes (bound " + allocationBound(input.length) + ")");
    }
  }
}
