package wirebench.readbytes;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.file.Path;

/**
 * Strategy `nio_underflow`: file_channel's 64 KiB heap ByteBuffer refilled by FileChannel.read,
 * but read() calls get() without asking hasRemaining() first: the buffer's own bound check
 * throws BufferUnderflowException when it runs dry, and that refills it (the seed's java-3,
 * "nio and terminating with BufferUnderflowException", whose loop ended on the exception). One
 * exception per 64 KiB and one at the end of the file, in place of a check per byte. Only read()
 * differs from file_channel's.
 */
final class NioUnderflowSource extends FileChannelSource {
  NioUnderflowSource(Path file) {
    super(file);
  }

  @Override
  public int read() throws IOException {
    try {
      return buf.get() & 0xff;
    } catch (BufferUnderflowException e) {
      return fill() ? buf.get() & 0xff : -1;
    }
  }
}
