package wirebench.codec;

import java.util.List;
import wirebench.Failure;

/**
 * The loops of the codec operations, written once for every library: `n` iterations of one
 * operation, each a call of the library's `...Once` method, its result consumed (the digest
 * sums sizes and folds; populate keeps its last form, which the checks read). A library's
 * exception ends the loop as a failure naming the library and the operation.
 */
final class Loops {
  private Loops() {}

  private static Failure failure(String lib, String op, Exception e) {
    return Failure.of(lib + " " + op, e);
  }

  static <N> N populate(Codec<N> c, String lib, List<Log> records, long n) throws Failure {
    N last = null;
    try {
      for (long i = 0; i < n; ++i) {
        last = c.populateOnce(records);
      }
    } catch (Exception e) {
      throw failure(lib, "populate", e);
    }
    return last;
  }

  /** The sum of the sizes written. */
  static <N> long serialize(Codec<N> c, String lib, N form, long n) throws Failure {
    long sum = 0;
    try {
      for (long i = 0; i < n; ++i) {
        sum += c.serializeOnce(form);
      }
    } catch (Exception e) {
      throw failure(lib, "serialize", e);
    }
    return sum;
  }

  /** The sum of the folds, wrapping. */
  static long deserialize(Codec<?> c, String lib, byte[] in, long n) throws Failure {
    long sum = 0;
    try {
      for (long i = 0; i < n; ++i) {
        sum += c.deserializeOnce(in, in.length);
      }
    } catch (Exception e) {
      throw failure(lib, "deserialize", e);
    }
    return sum;
  }

  /** The sum of the folds, wrapping. */
  static long access(Codec<?> c, String lib, byte[] in, long n) throws Failure {
    long sum = 0;
    try {
      for (long i = 0; i < n; ++i) {
        sum += c.accessOnce(in, in.length);
      }
    } catch (Exception e) {
      throw failure(lib, "access", e);
    }
    return sum;
  }
}
