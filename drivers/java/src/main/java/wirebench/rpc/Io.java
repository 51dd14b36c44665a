package wirebench.rpc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Streams that count bytes at the fd (every byte written plus every byte read): what a pipe
 * client measures, and a server reports.
 */
final class Io {
  private Io() {}

  /** Counts every byte read from the stream beneath (an fd, a pipe or a file). */
  static final class CountingIn extends InputStream {
    private final InputStream inner;
    long count;

    CountingIn(InputStream inner) {
      this.inner = inner;
    }

    @Override
    public int read() throws IOException {
      int b = inner.read();
      if (b >= 0) {
        ++count;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = inner.read(b, off, len);
      if (n > 0) {
        count += n;
      }
      return n;
    }

    @Override
    public int available() throws IOException {
      return inner.available();
    }

    @Override
    public void close() throws IOException {
      inner.close();
    }
  }

  /** Counts every byte written to the stream beneath. Unbuffered: buffer above it. */
  static final class CountingOut extends OutputStream {
    private final OutputStream inner;
    long count;

    CountingOut(OutputStream inner) {
      this.inner = inner;
    }

    @Override
    public void write(int b) throws IOException {
      inner.write(b);
      ++count;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      inner.write(b, off, len);
      count += len;
    }

    @Override
    public void flush() throws IOException {
      inner.flush();
    }

    @Override
    public void close() throws IOException {
      inner.close();
    }
  }

  /** The buffers capnp and protobuf put over a pipe's streams: a Linux pipe's capacity. */
  static final int BUFFER_BYTES = 64 << 10;
}
