package wirebench.readbytes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Strategy `file_channel`: FileChannel.read into a 64 KiB heap ByteBuffer (the source's,
 * allocated once), then ByteBuffer.get() per byte; refilled when it runs dry. (The JDK reads
 * into a temporary direct buffer and copies into the heap buffer: part of this strategy's cost.)
 */
class FileChannelSource implements ByteSource {
  static final int BUFFER = 64 << 10;

  private final Path file;
  final ByteBuffer buf = ByteBuffer.allocate(BUFFER);
  private FileChannel ch;

  FileChannelSource(Path file) {
    this.file = file;
  }

  @Override
  public final void open() throws IOException {
    ch = FileChannel.open(file, StandardOpenOption.READ);
    buf.clear().limit(0);
  }

  @Override
  public int read() throws IOException {
    if (!buf.hasRemaining() && !fill()) {
      return -1;
    }
    return buf.get() & 0xff;
  }

  /** Refills the buffer; false at the end of the file. Out of line: read() stays small. */
  final boolean fill() throws IOException {
    buf.clear();
    int n;
    do {
      n = ch.read(buf);
    } while (n == 0);
    if (n < 0) {
      buf.limit(0);
      return false;
    }
    buf.flip();
    return true;
  }

  @Override
  public final void close() throws IOException {
    ch.close();
    ch = null;
  }
}
