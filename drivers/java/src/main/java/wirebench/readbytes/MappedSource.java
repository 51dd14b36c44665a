package wirebench.readbytes;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Strategy `mapped`: FileChannel.map of the whole file, READ_ONLY, then MappedByteBuffer.get()
 * per byte. A pass unmaps the file when it closes it, with sun.misc.Unsafe.invokeCleaner (as the
 * queue suite's Wbq does): left to the garbage collector, the mappings would pile up, and a cold
 * pass's posix_fadvise cannot drop pages that a mapping still holds.
 */
class MappedSource implements ByteSource {
  private final Path file;
  private FileChannel ch;
  MappedByteBuffer map;

  MappedSource(Path file) {
    this.file = file;
  }

  @Override
  public final void open() throws IOException {
    ch = FileChannel.open(file, StandardOpenOption.READ);
    map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
  }

  @Override
  public int read() {
    MappedByteBuffer m = map;
    return m.hasRemaining() ? m.get() & 0xff : -1;
  }

  @Override
  public final void close() throws IOException {
    unmap(map);
    map = null;
    ch.close();
    ch = null;
  }

  /** sun.misc.Unsafe.invokeCleaner (module jdk.unsupported, open to the class path). */
  private static final MethodHandle INVOKE_CLEANER;

  static {
    try {
      Class<?> unsafe = Class.forName("sun.misc.Unsafe");
      Field f = unsafe.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      INVOKE_CLEANER =
          MethodHandles.lookup()
              .findVirtual(
                  unsafe, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
              .bindTo(f.get(null));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Unmaps `b` now; nothing may touch it afterwards. */
  private static void unmap(MappedByteBuffer b) {
    try {
      INVOKE_CLEANER.invokeExact((ByteBuffer) b);
    } catch (Throwable e) {
      throw new IllegalStateException("unmapping the input", e);
    }
  }
}
