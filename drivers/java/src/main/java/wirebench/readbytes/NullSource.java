package wirebench.readbytes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Strategy `null`, the floor: the file is read whole into an array once, before timing; a pass
 * consumes the array through the same interface as the I/O strategies (no I/O at all).
 */
final class NullSource implements ByteSource {
  private final byte[] data;
  private int pos;

  NullSource(byte[] data) {
    this.data = data;
  }

  /** Reads `file` whole (untimed: the suite does it before the warm-up). */
  static NullSource load(Path file) throws IOException {
    return new NullSource(Files.readAllBytes(file));
  }

  @Override
  public void open() {
    pos = 0;
  }

  @Override
  public int read() {
    int p = pos;
    if (p >= data.length) {
      return -1;
    }
    pos = p + 1;
    return data[p] & 0xff;
  }

  @Override
  public void close() {}
}
