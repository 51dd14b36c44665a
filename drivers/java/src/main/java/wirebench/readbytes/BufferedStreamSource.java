package wirebench.readbytes;

import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Strategy `buffered_stream`: BufferedInputStream.read() over a FileInputStream, with its
 * default 8 KiB buffer (allocated by each pass's stream, as the API does). In JDK 17 read() is
 * synchronized; that is part of what this strategy costs.
 */
final class BufferedStreamSource implements ByteSource {
  private final String file;
  private BufferedInputStream in;

  BufferedStreamSource(Path file) {
    this.file = file.toString();
  }

  @Override
  public void open() throws IOException {
    in = new BufferedInputStream(new FileInputStream(file));
  }

  @Override
  public int read() throws IOException {
    return in.read();
  }

  @Override
  public void close() throws IOException {
    in.close();
    in = null;
  }
}
