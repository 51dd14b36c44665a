package wirebench.rpc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import wirebench.Failure;
import wirebench.Rng;

/**
 * Library-independent parts of the rpc cases (docs/workloads.md): the tables the generator
 * indexes, the car valuation, the eval arithmetic and the catrank scoring, as in the C++
 * driver's rpc/cases.h. Each library reads its own message types and calls these. Unsigned
 * 32-bit quantities are ints; {@link #u32} widens them where they enter 64-bit sums.
 */
final class Cases {
  private Cases() {}

  // ---- carsales -------------------------------------------------------------------------

  static final String[] MAKES = {"Toyota", "GM", "Ford", "Honda", "Tesla"};
  static final String[] MODELS = {"Camry", "Prius", "Volt", "Accord", "Leaf", "Model S"};
  static final byte[][] MAKE_BYTES = ascii(MAKES);
  static final byte[][] MODEL_BYTES = ascii(MODELS);
  static final int COLORS = 9;

  static long u32(int v) {
    return v & 0xffffffffL;
  }

  static int wheelValue(int diameter, boolean snowTires) {
    return diameter * diameter + (snowTires ? 100 : 0);
  }

  /**
   * A car's value with the C++ driver's 32-bit intermediate arithmetic (each product wraps
   * at 32 bits, the volume is divided unsigned), summed in 64 bits.
   */
  static long carValue(
      int seats,
      int doors,
      int wheelSum,
      int length,
      int width,
      int height,
      int horsepower,
      boolean usesGas,
      boolean usesElectric,
      boolean powerWindows,
      boolean powerSteering,
      boolean cruiseControl,
      boolean navSystem,
      int cupHolders) {
    long v = u32(seats * 200);
    v += u32(doors * 350);
    v += u32(wheelSum);
    v += u32(Integer.divideUnsigned(length * width * height, 50));
    v += u32(horsepower * 40);
    if (usesElectric) {
      v += usesGas ? 5000 : 3000;
    }
    v += powerWindows ? 100 : 0;
    v += powerSteering ? 200 : 0;
    v += cruiseControl ? 400 : 0;
    v += navSystem ? 2000 : 0;
    v += u32(cupHolders * 25);
    return v;
  }

  // ---- catrank --------------------------------------------------------------------------

  static final String URL_PREFIX = "http://example.com/";
  static final byte[] URL_PREFIX_BYTES = URL_PREFIX.getBytes(StandardCharsets.US_ASCII);
  static final String[] WORDS = {
    "foo ", "bar ", "baz ", "qux ", "quux ", "corge ", "grault ", "garply ", "waldo ", "fred ",
    "plugh ", "xyzzy ", "thud "
  };
  static final byte[][] WORD_BYTES = ascii(WORDS);
  static final byte[] CAT = ascii(new String[] {"cat "})[0];
  static final byte[] DOG = ascii(new String[] {"dog "})[0];

  /**
   * Appends the snippet's bytes to `out`, drawing in the documented order; returns whether
   * the result is "good" (cat, no dog).
   */
  static boolean appendSnippet(Rng rng, Bytes out) {
    boolean isCat = rng.rand(8) == 0;
    boolean isDog = rng.rand(8) == 0;
    out.add((byte) ' ');
    for (int n = rng.rand(20); n > 0; --n) {
      out.add(WORD_BYTES[rng.rand(13)]);
    }
    if (isCat) {
      out.add(CAT);
    }
    if (isDog) {
      out.add(DOG);
    }
    for (int n = rng.rand(20); n > 0; --n) {
      out.add(WORD_BYTES[rng.rand(13)]);
    }
    return isCat && !isDog;
  }

  /** The same snippet as a String (protobuf-java's string fields are Strings). */
  static boolean appendSnippet(Rng rng, StringBuilder out) {
    boolean isCat = rng.rand(8) == 0;
    boolean isDog = rng.rand(8) == 0;
    out.append(' ');
    for (int n = rng.rand(20); n > 0; --n) {
      out.append(WORDS[rng.rand(13)]);
    }
    if (isCat) {
      out.append("cat ");
    }
    if (isDog) {
      out.append("dog ");
    }
    for (int n = rng.rand(20); n > 0; --n) {
      out.append(WORDS[rng.rand(13)]);
    }
    return isCat && !isDog;
  }

  /** Whether bytes [off, off+len) of `b` (absolute positions) contain " cat " / " dog ". */
  static boolean containsWord(ByteBuffer b, int off, int len, byte c0, byte c1, byte c2) {
    // Looks for ' ' c0 c1 c2 ' ': every word is followed by a space, so scanning the
    // positions of c0 is enough.
    int end = off + len - 4;
    for (int i = off; i <= end; ++i) {
      if (b.get(i) == ' '
          && b.get(i + 1) == c0
          && b.get(i + 2) == c1
          && b.get(i + 3) == c2
          && b.get(i + 4) == ' ') {
        return true;
      }
    }
    return false;
  }

  static boolean containsWord(byte[] b, int off, int len, byte c0, byte c1, byte c2) {
    int end = off + len - 4;
    for (int i = off; i <= end; ++i) {
      if (b[i] == ' ' && b[i + 1] == c0 && b[i + 2] == c1 && b[i + 3] == c2 && b[i + 4] == ' ') {
        return true;
      }
    }
    return false;
  }

  /** The server's rescoring, given whether the snippet holds " cat " and " dog ". */
  static double rescore(double score, boolean cat, boolean dog) {
    double s = score;
    if (cat) {
      s *= 10000;
    }
    if (dog) {
      s /= 10000;
    }
    return s;
  }

  /**
   * Sorts `order[0..n)` (indices into `scores`) by score, highest first. A primitive
   * quicksort, not Arrays.sort with a comparator, so that no index is boxed. Scores of one
   * request are distinct (docs/workloads.md), so any correct sort gives the C++ order.
   */
  static void sortByScoreDescending(double[] scores, int[] order, int n) {
    for (int i = 0; i < n; ++i) {
      order[i] = i;
    }
    quicksort(scores, order, 0, n - 1);
  }

  private static void quicksort(double[] s, int[] o, int lo, int hi) {
    while (hi - lo > 16) {
      int mid = (lo + hi) >>> 1;
      double p = s[o[mid]];
      int i = lo;
      int j = hi;
      while (i <= j) {
        while (s[o[i]] > p) {
          ++i;
        }
        while (s[o[j]] < p) {
          --j;
        }
        if (i <= j) {
          int t = o[i];
          o[i] = o[j];
          o[j] = t;
          ++i;
          --j;
        }
      }
      // Recurse into the smaller half, loop on the larger: bounded stack depth.
      if (j - lo < hi - i) {
        quicksort(s, o, lo, j);
        lo = i;
      } else {
        quicksort(s, o, i, hi);
        hi = j;
      }
    }
    for (int i = lo + 1; i <= hi; ++i) {
      int v = o[i];
      double key = s[v];
      int j = i - 1;
      while (j >= lo && s[o[j]] < key) {
        o[j + 1] = o[j];
        --j;
      }
      o[j + 1] = v;
    }
  }

  // ---- eval -----------------------------------------------------------------------------

  static final int OPS = 5; // add, subtract, multiply, divide, modulus

  /** 32-bit two's complement with wrapping; x/0, x%0, MIN/-1, MIN%-1 give MAX_VALUE. */
  static int apply(int op, int left, int right) {
    switch (op) {
      case 0:
        return left + right;
      case 1:
        return left - right;
      case 2:
        return left * right;
      case 3:
        if (right == 0 || (left == Integer.MIN_VALUE && right == -1)) {
          return Integer.MAX_VALUE;
        }
        return left / right;
      default:
        if (right == 0 || (left == Integer.MIN_VALUE && right == -1)) {
          return Integer.MAX_VALUE;
        }
        return left % right;
    }
  }

  // ---- shared ---------------------------------------------------------------------------

  /** A library's object for the case called `kase` (its cell, in a factory), or null. */
  static <T> T byCase(String kase, Supplier<T> carsales, Supplier<T> catrank, Supplier<T> eval) {
    switch (kase) {
      case "carsales":
        return carsales.get();
      case "catrank":
        return catrank.get();
      case "eval":
        return eval.get();
      default:
        return null;
    }
  }

  /** The digest term of a response: its expectation, once its answer has matched it. */
  static long verified(long expected, long answer) throws Failure {
    if (answer != expected) {
      throw new Failure("incorrect response: expected " + expected + ", got " + answer);
    }
    return expected;
  }

  private static byte[][] ascii(String[] words) {
    byte[][] out = new byte[words.length][];
    for (int i = 0; i < words.length; ++i) {
      out[i] = words[i].getBytes(StandardCharsets.US_ASCII);
    }
    return out;
  }
}
