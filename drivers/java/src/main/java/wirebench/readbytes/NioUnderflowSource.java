package wirebench.readbytes;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Strategy `nio_underflow`: file_channel's 64 KiB heap ByteBuffer refilled by FileChannel.read,
 * but read() calls get() without asking hasRemaining() first: the buffer's own bound check
 * throws BufferUnderflowException when it runs dry, and that refills it (the seed's java-3,
 * "nio and terminating with BufferUnderflowException", whose loop ended on the exception). One
 * exception per 64 KiB and one at the end of the file, in place of a check per byte.
 */
final class NioUnderflowSource implements ByteSource {
  static final int BUFFER = 64 << 10;

  private final Path file;
  private final ByteBuffer buf = ByteBuffer.allocate(BUFFER);
  private FileChannel ch;

  NioUnderflowSource(Path file) {
    this.file = file;
  }

  @Override
  public void open() throws IOException {
    ch = FileChannel.open(file, StandardOpenOption.READ);
    buf.clear().limit(0);
  }

  @Override
  public int read() throws IOException {
    try {
      return buf.get() & 0xff;
    } catch (BufferUnderflowException e) {
      return refill();
    }
  }

  /** Refills the buffer and returns its first byte; -1 at the end of the file. */
  private int refill() throws IOException {
    buf.clear();
    int n;
    do {
      n = ch.read(buf);
    } while (n == 0);
    if (n < 0) {
      buf.limit(0);
      return -1;
    }
    buf.flip();
    return buf.get() & 0xff;
  }

  @Override
  public void close() throws IOException {
    ch.close();
    ch = null;
  }
}
