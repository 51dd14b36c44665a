package wirebench.readbytes;

import java.nio.BufferUnderflowException;
import java.nio.file.Path;

/**
 * Strategy `mapped_underflow`: the seed's java-3 as its ReadBytes3.java wrote it: the whole file
 * mapped (FileChannel.map, READ_ONLY), MappedByteBuffer.get() per byte with no hasRemaining()
 * check, and the BufferUnderflowException of the get() past the last byte is the end of the
 * file. `mapped` is the same mapping with the check: only read() differs.
 */
final class MappedUnderflowSource extends MappedSource {
  MappedUnderflowSource(Path file) {
    super(file);
  }

  @Override
  public int read() {
    try {
      return map.get() & 0xff;
    } catch (BufferUnderflowException e) {
      return -1;
    }
  }
}
