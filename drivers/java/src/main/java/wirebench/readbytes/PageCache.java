package wirebench.readbytes;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import java.nio.file.Path;
import wirebench.Failure;

/**
 * `--cache cold`: before every pass, outside the timed region, the file's pages leave the page
 * cache: open(2), posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), close(2), through JNA (direct
 * mapping; Java has no fadvise). The harness confirms beforehand that this empties the cache for
 * the file (not on tmpfs; it checks with mincore).
 */
final class PageCache {
  private PageCache() {}

  static final int O_RDONLY = 0;
  static final int O_CLOEXEC = 02000000;
  /** Linux's value. */
  static final int POSIX_FADV_DONTNEED = 4;

  static {
    Native.register("c");
  }

  private static native int open(String path, int flags) throws LastErrorException;

  /** Returns 0 or an error number (posix_fadvise does not set errno). */
  private static native int posix_fadvise(int fd, long offset, long len, int advice);

  private static native int close(int fd) throws LastErrorException;

  /** Drops `file`'s pages from the page cache. */
  static void drop(Path file) throws Failure {
    int fd;
    try {
      fd = open(file.toString(), O_RDONLY | O_CLOEXEC);
    } catch (LastErrorException e) {
      throw new Failure(
          "--cache cold: cannot open " + file + " (errno " + e.getErrorCode() + ")");
    }
    int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    try {
      close(fd);
    } catch (LastErrorException e) {
      throw new Failure("--cache cold: closing " + file + " (errno " + e.getErrorCode() + ")");
    }
    if (err != 0) {
      throw new Failure(
          "--cache cold: posix_fadvise(POSIX_FADV_DONTNEED) on " + file + " failed (errno "
              + err + ")");
    }
  }
}
