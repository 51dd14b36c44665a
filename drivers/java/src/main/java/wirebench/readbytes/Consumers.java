package wirebench.readbytes;

import java.io.IOException;
import wirebench.Failure;

/**
 * The readbytes cases (docs/protocol.md, suite readbytes): consumers that take one byte per step
 * from a {@link ByteSource} until its end, written once for every strategy. Each returns the
 * pass's value, which the suite compares with the case's expectation.
 */
final class Consumers {
  private Consumers() {}

  /** The tag every entry of the file starts with: field 1, wire type varint. */
  static final int TAG = 0x08;

  /** The longest varint: 10 bytes of 7 bits hold 64. */
  static final int MAX_VARINT_BYTES = 10;

  /**
   * Where count leaves the OR of the bytes it read. Nothing reads it; storing it keeps the JIT
   * from dropping the reads (see count).
   */
  static int countSeen;

  /**
   * count: the number of bytes read. Each byte is also ORed into {@link #countSeen}: a count
   * needs no byte's value, and without a use C2 drops the load of every byte from memory (the
   * result of `read()` is provably 0..255 until the end), so that a pass of the null, mapped or
   * memory_segment strategy read nothing at all (a cold pass left none of the file's pages in
   * the page cache: checked with fincore). One OR per byte makes each byte's read real work, as
   * the protocol's "consume every byte" asks.
   */
  static long count(ByteSource s) throws IOException {
    long n = 0;
    int seen = 0;
    int b;
    while ((b = s.read()) >= 0) {
      seen |= b;
      ++n;
    }
    countSeen = seen;
    return n;
  }

  /** sum: the sum of the bytes read (each 0..255) plus their count. */
  static long sum(ByteSource s) throws IOException {
    long sum = 0;
    long n = 0;
    int b;
    while ((b = s.read()) >= 0) {
      sum += b;
      ++n;
    }
    return sum + n;
  }

  /**
   * varint: the stream as protobuf, a tag byte (which must be 0x08) then a base-128 varint of at
   * most 10 bytes, low groups first, over and over; the wrapping sum of the decoded values (as
   * 64-bit numbers: a negative int32 is a 10-byte varint). A Failure names the byte offset of a
   * wrong tag, of a varint longer than 10 bytes, or of the end of the file inside a varint.
   */
  static long varint(ByteSource s) throws IOException, Failure {
    long total = 0;
    long offset = 0; // of the next byte
    int b;
    while ((b = s.read()) >= 0) {
      if (b != TAG) {
        throw badTag(offset, b);
      }
      long start = ++offset;
      long value = 0;
      for (int shift = 0; ; shift += 7) {
        if (shift == 7 * MAX_VARINT_BYTES) {
          throw overlong(start);
        }
        b = s.read();
        if (b < 0) {
          throw endInVarint(offset, start);
        }
        ++offset;
        value |= (long) (b & 0x7f) << shift;
        if (b < 0x80) {
          break;
        }
      }
      total += value;
    }
    return total;
  }

  // The failures are built out of line, so that the loop stays small.

  private static Failure badTag(long offset, int b) {
    return new Failure(
        "byte offset " + offset + ": tag 0x" + String.format("%02x", b)
            + ", want 0x08 (field 1, wire type varint)");
  }

  private static Failure overlong(long start) {
    return new Failure(
        "byte offset " + start + ": a varint longer than " + MAX_VARINT_BYTES
            + " bytes (its 10th byte, at byte offset " + (start + MAX_VARINT_BYTES - 1)
            + ", has the continuation bit)");
  }

  private static Failure endInVarint(long offset, long start) {
    return new Failure(
        "byte offset " + offset + ": end of file inside the varint that starts at byte offset "
            + start);
  }
}
