package wirebench.codec;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/** A reusable output stream whose bytes are read in place (reset() keeps its array). */
final class Sink extends ByteArrayOutputStream {
  Sink() {
    super(1 << 16);
  }

  byte[] copy() {
    return Arrays.copyOf(buf, count);
  }
}
