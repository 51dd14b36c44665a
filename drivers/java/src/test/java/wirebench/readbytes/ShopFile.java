package wirebench.readbytes;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The readbytes data (docs/workloads.md §8), made by the tests themselves: `Shop { repeated
 * int32 id = 1; }` with ids 0 .. n-1, not packed: per id the tag byte 0x08, then the id as a
 * base-128 varint, low groups first.
 */
final class ShopFile {
  private ShopFile() {}

  static final int IDS = 3_000_000;

  /** Appends the varint of `v` (as an unsigned 64-bit number). */
  static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) (v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** The file with ids 0 .. ids-1. */
  static byte[] bytes(int ids) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(ids * 5);
    for (int i = 0; i < ids; ++i) {
      out.write(0x08);
      varint(out, i);
    }
    return out.toByteArray();
  }

  /** The byte offset of id `id`'s tag. */
  static long tagOffset(int id) {
    ByteArrayOutputStream one = new ByteArrayOutputStream();
    long offset = 0;
    for (int i = 0; i < id; ++i) {
      one.reset();
      varint(one, i);
      offset += 1 + one.size();
    }
    return offset;
  }

  /** Writes `data` to `file` and syncs it, so that its pages are clean (a cold drop needs that). */
  static Path write(Path file, byte[] data) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(data);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    return file;
  }
}
