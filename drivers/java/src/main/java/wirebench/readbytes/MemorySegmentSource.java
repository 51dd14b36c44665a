package wirebench.readbytes;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import jdk.incubator.foreign.MemoryAccess;
import jdk.incubator.foreign.MemorySegment;
import jdk.incubator.foreign.ResourceScope;

/**
 * Strategy `memory_segment`: JDK 17's incubating foreign memory API (module
 * jdk.incubator.foreign, added by the launcher, the compiler and surefire): the file mapped
 * whole as a MemorySegment (MemorySegment.mapFile, READ_ONLY) in a confined ResourceScope, read
 * with one MemoryAccess.getByteAtOffset per byte (bounds- and scope-checked); closing the scope
 * unmaps it.
 */
final class MemorySegmentSource implements ByteSource {
  private final Path file;
  private ResourceScope scope;
  private MemorySegment segment;
  private long size;
  private long offset;

  MemorySegmentSource(Path file) {
    this.file = file;
  }

  @Override
  public void open() throws IOException {
    size = Files.size(file);
    offset = 0;
    scope = ResourceScope.newConfinedScope();
    // An empty file is not mapped (mmap of 0 bytes fails); read() never touches the segment.
    segment =
        size == 0
            ? null
            : MemorySegment.mapFile(file, 0, size, FileChannel.MapMode.READ_ONLY, scope);
  }

  @Override
  public int read() {
    long o = offset;
    if (o >= size) {
      return -1;
    }
    offset = o + 1;
    return MemoryAccess.getByteAtOffset(segment, o) & 0xff;
  }

  @Override
  public void close() {
    scope.close();
    scope = null;
    segment = null;
  }
}
