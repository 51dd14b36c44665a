package wirebench.readbytes;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Strategy `mapped_underflow`: the seed's java-3 as its ReadBytes3.java wrote it: the whole file
 * mapped (FileChannel.map, READ_ONLY), MappedByteBuffer.get() per byte with no hasRemaining()
 * check, and the BufferUnderflowException of the get() past the last byte is the end of the
 * file. `mapped` is the same mapping with the check, so the two differ by the check alone.
 */
final class MappedUnderflowSource implements ByteSource {
  private final Path file;
  private FileChannel ch;
  private MappedByteBuffer map;

  MappedUnderflowSource(Path file) {
    this.file = file;
  }

  @Override
  public void open() throws IOException {
    ch = FileChannel.open(file, StandardOpenOption.READ);
    map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
  }

  @Override
  public int read() {
    try {
      return map.get() & 0xff;
    } catch (BufferUnderflowException e) {
      return -1;
    }
  }

  @Override
  public void close() throws IOException {
    MappedSource.unmap(map);
    map = null;
    ch.close();
    ch = null;
  }
}
