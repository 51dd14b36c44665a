package wirebench.readbytes;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Strategy `own_buffer`: FileInputStream.read(byte[]) into an own 64 KiB array (the source's,
 * allocated once), refilled when it runs dry; read() hands out its bytes one at a time.
 */
final class OwnBufferSource implements ByteSource {
  static final int BUFFER = 64 << 10;

  private final String file;
  private final byte[] buf = new byte[BUFFER];
  private FileInputStream in;
  private int pos;
  private int limit;

  OwnBufferSource(Path file) {
    this.file = file.toString();
  }

  @Override
  public void open() throws IOException {
    in = new FileInputStream(file);
    pos = 0;
    limit = 0;
  }

  @Override
  public int read() throws IOException {
    if (pos == limit && !fill()) {
      return -1;
    }
    return buf[pos++] & 0xff;
  }

  /** Refills the array; false at the end of the file. Out of line: read() stays small. */
  private boolean fill() throws IOException {
    int n;
    do {
      n = in.read(buf);
    } while (n == 0);
    if (n < 0) {
      return false;
    }
    pos = 0;
    limit = n;
    return true;
  }

  @Override
  public void close() throws IOException {
    in.close();
    in = null;
  }
}
