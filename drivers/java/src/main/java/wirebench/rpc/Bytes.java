package wirebench.rpc;

import java.util.Arrays;

/**
 * A growable byte string: the snippet being drawn, and the null library's text. Clearing
 * keeps the array (reuse); a fresh Bytes per message allocates (no-reuse).
 */
final class Bytes {
  byte[] a;
  int n;

  Bytes() {
    this(16);
  }

  Bytes(int capacity) {
    a = new byte[capacity];
  }

  /** Shares `bytes` (a constant) without copying, like the C++ null library's static text. */
  static Bytes constant(byte[] bytes) {
    Bytes b = new Bytes(0);
    b.a = bytes;
    b.n = bytes.length;
    return b;
  }

  void clear() {
    n = 0;
  }

  void add(byte b) {
    if (n == a.length) {
      a = Arrays.copyOf(a, Math.max(16, 2 * n));
    }
    a[n++] = b;
  }

  void add(byte[] s) {
    add(s, 0, s.length);
  }

  void add(byte[] s, int off, int len) {
    if (n + len > a.length) {
      a = Arrays.copyOf(a, Math.max(n + len, 2 * a.length));
    }
    System.arraycopy(s, off, a, n, len);
    n += len;
  }

  /** Makes room for `len` more bytes and returns the offset where they go. */
  int extend(int len) {
    if (n + len > a.length) {
      a = Arrays.copyOf(a, Math.max(n + len, 2 * a.length));
    }
    int at = n;
    n += len;
    return at;
  }
}
