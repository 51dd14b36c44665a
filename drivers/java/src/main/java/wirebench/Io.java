package wirebench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Streams that count bytes at the fd (every byte written plus every byte read), the buffered
 * channels Cap'n Proto's Java runtime reads and writes through, and the two threads of
 * pipe-async.
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

  static final int BUFFER_BYTES = 64 << 10;

  /**
   * A buffered reader for the Cap'n Proto runtime (its BufferedInputStream interface, which
   * PackedInputStream needs) over any InputStream, that can also tell a clean end of file
   * at a message boundary: the runtime's own BufferedInputStreamWrapper throws "premature
   * EOF" there, and Serialize.tryRead cannot see through a PackedInputStream.
   */
  static final class CapnpIn implements org.capnproto.BufferedInputStream {
    private final InputStream in;
    private final byte[] array = new byte[BUFFER_BYTES];
    private final ByteBuffer buf = ByteBuffer.wrap(array);

    CapnpIn(InputStream in) {
      this.in = in;
      buf.limit(0);
    }

    /** Fills the empty buffer with at least one byte; false at end of file. */
    private boolean fill() throws IOException {
      int n = in.read(array, 0, array.length);
      if (n < 0) {
        buf.limit(0);
        return false;
      }
      buf.position(0);
      buf.limit(n);
      return true;
    }

    /** True at a clean end of file (nothing buffered, nothing more to read). */
    boolean atCleanEnd() throws IOException {
      return !buf.hasRemaining() && !fill();
    }

    @Override
    public ByteBuffer getReadBuffer() throws IOException {
      if (!buf.hasRemaining() && !fill()) {
        throw new org.capnproto.DecodeException("premature end of file");
      }
      return buf;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      int want = dst.remaining();
      if (want == 0) {
        return 0;
      }
      int done = 0;
      while (done < want) {
        if (buf.hasRemaining()) {
          int k = Math.min(buf.remaining(), want - done);
          int pos = buf.position();
          dst.put(array, pos, k);
          buf.position(pos + k);
          done += k;
        } else if (want - done >= array.length && dst.hasArray()) {
          // A large read goes straight into the destination, without a copy.
          int n = in.read(dst.array(), dst.arrayOffset() + dst.position(), want - done);
          if (n < 0) {
            break;
          }
          dst.position(dst.position() + n);
          done += n;
        } else if (!fill()) {
          break;
        }
      }
      return done == 0 ? -1 : done;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  /**
   * A buffered writer for the Cap'n Proto runtime (its BufferedOutputStream interface,
   * which PackedOutputStream writes into) over any OutputStream; flush() sends the bytes.
   */
  static final class CapnpOut implements org.capnproto.BufferedOutputStream {
    private final OutputStream out;
    private final byte[] array = new byte[BUFFER_BYTES];
    private final ByteBuffer buf = ByteBuffer.wrap(array);

    CapnpOut(OutputStream out) {
      this.out = out;
    }

    @Override
    public ByteBuffer getWriteBuffer() {
      return buf;
    }

    private void drain() throws IOException {
      if (buf.position() > 0) {
        out.write(array, 0, buf.position());
        buf.clear();
      }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int size = src.remaining();
      if (size <= buf.remaining()) {
        buf.put(src);
      } else {
        drain();
        if (size <= buf.remaining()) {
          buf.put(src);
        } else if (src.hasArray()) {
          // A segment larger than the buffer goes straight to the stream, without a copy.
          out.write(src.array(), src.arrayOffset() + src.position(), size);
          src.position(src.limit());
        } else {
          while (src.hasRemaining()) {
            int k = Math.min(src.remaining(), array.length);
            src.get(array, 0, k);
            out.write(array, 0, k);
          }
        }
      }
      return size;
    }

    @Override
    public void flush() throws IOException {
      drain();
      out.flush();
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() throws IOException {
      flush();
      out.close();
    }
  }

  /**
   * The expectations the pipe-async sender posts and the receiver takes, in order: an
   * unbounded queue of longs (no boxing), guarded by its monitor.
   */
  static final class LongQueue {
    private long[] items = new long[1024];
    private int head;
    private int size;

    synchronized void post(long v) {
      if (size == items.length) {
        long[] bigger = new long[2 * items.length];
        for (int i = 0; i < size; ++i) {
          bigger[i] = items[(head + i) % items.length];
        }
        items = bigger;
        head = 0;
      }
      items[(head + size) % items.length] = v;
      ++size;
      if (size == 1) {
        notifyAll();
      }
    }

    synchronized long take() throws InterruptedException {
      while (size == 0) {
        wait();
      }
      long v = items[head];
      head = (head + 1) % items.length;
      --size;
      return v;
    }
  }

  /** Work that may fail; run by {@link #pipeAsync}. */
  interface Work {
    void run() throws Exception;
  }

  /**
   * pipe-async for every library: `sendOne` runs `iters` times on the calling thread while
   * `receiveOne` runs `iters` times on a second one. A failure on either side cannot be
   * unwound safely (the other side may be blocked on the pipe), so it ends the process with
   * exit status 1 after saying why, as the C++ and Rust drivers do.
   */
  static void pipeAsync(long iters, Work sendOne, Work receiveOne) {
    Thread receiver =
        new Thread(
            () -> {
              try {
                for (long i = 0; i < iters; ++i) {
                  receiveOne.run();
                }
              } catch (Throwable e) {
                Main.die("pipe-async receiver: " + Main.describe(e));
              }
            },
            "pipe-async-receiver");
    receiver.start();
    try {
      for (long i = 0; i < iters; ++i) {
        sendOne.run();
      }
    } catch (Throwable e) {
      Main.die("pipe-async sender: " + Main.describe(e));
    }
    try {
      receiver.join();
    } catch (InterruptedException e) {
      Main.die("pipe-async: interrupted");
    }
  }
}
