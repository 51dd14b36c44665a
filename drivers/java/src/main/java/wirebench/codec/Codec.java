package wirebench.codec;

import java.util.List;

/**
 * One library's work on one codec case in one buffer mode: what a library file implements
 * (its factory, registered in CodecSuite.LIBS, makes one per cell). `N` is the library's
 * native form (a generated message, a builder, the plain classes). It holds what the library
 * keeps between iterations (builders, output buffers, the last results for the checks).
 * Everything else is written once: the loops (Loops), timing, checks and results
 * (CodecSuite), golden files (GoldenFiles).
 *
 * <p>Each `...Once` method is one iteration of one operation on the whole case (one record, or
 * the batch); the launcher keeps them from being inlined into their loops (see rpc.Impl and
 * Jit.java). The others are the untimed checks' view. A library's exceptions are its errors
 * (a corrupt or truncated input): the loops turn them into failures.
 */
interface Codec<N> {
  /** populate: the native form of `records` (case log: its one record) */
  N populateOnce(List<Log> records) throws Exception;

  /** serialize: `form` into the output buffer (kept or new, as the cell's buffer says); its size */
  int serializeOnce(N form) throws Exception;

  /** The bytes the last serializeOnce wrote (a copy). */
  byte[] output();

  /** deserialize: `len` bytes of `in` into the complete native form, owned strings; its fold */
  long deserializeOnce(byte[] in, int len) throws Exception;

  /** What the last deserializeOnce built, as plain records. */
  List<Log> deserialized();

  /** access (zero-copy libraries only): the fold read through the library's view of the bytes */
  default long accessOnce(byte[] in, int len) throws Exception {
    throw new UnsupportedOperationException("no access");
  }

  /** A native form as plain records. */
  List<Log> plain(N form);
}
