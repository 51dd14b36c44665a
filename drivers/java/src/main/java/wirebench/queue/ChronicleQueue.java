package wirebench.queue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.StoreFileListener;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import wirebench.Failure;
import wirebench.Json;

/**
 * Lib `chronicle`: Chronicle Queue (open source) through its public API, beside wbq, not
 * interoperable with it. A write is writingDocument(), the timestamp (System.nanoTime) and the
 * values as writeLongs on the document's bytes, then close(), which completes the header
 * Chronicle reserved with a compare-and-swap (ordering `lib`). A tailer (createTailer) kept
 * across runs reads every document back.
 *
 * <p>Rolling and bounded disk. Chronicle rolls by time, not size: the queue keeps its default
 * FAST_DAILY roll cycle (and so its default indexing, every 256th entry) on a clock that is the
 * system's plus a shift. Once 64 MiB of entries (wbq's cycle size) are in the current file, the
 * shift moves on a day between runs, so that the next run's first write rolls into a new file,
 * within the timed region as any roll is. The StoreFileListener hears when a file is released;
 * a released file the tailer has moved past is deleted after the run.
 *
 * <p>No pretouch: in the open-source Chronicle Queue (2026.4) ExcerptAppender.pretouch() is an
 * Enterprise feature (its fallback recurses until the stack overflows), so the library lists
 * `--pretouch off` only.
 */
final class ChronicleQueue implements Impl {
  /** Entries per file before the clock moves on: wbq's cycle size. */
  static final long ROLL_BYTES = WbqQueue.CYCLE_SIZE;
  /** Chronicle's header of a document. */
  private static final int DOCUMENT_HEADER = 4;

  /** System.currentTimeMillis plus a shift of whole roll cycles (per write, as the default). */
  private static final class ShiftedTime implements TimeProvider {
    volatile long shiftMs;

    @Override
    public long currentTimeMillis() {
      return System.currentTimeMillis() + shiftMs;
    }
  }

  private final ShiftedTime time = new ShiftedTime();
  private final SingleChronicleQueue queue;
  private final ExcerptAppender appender;
  private final ExcerptTailer tailer;
  private final Set<Integer> acquired = ConcurrentHashMap.newKeySet();
  private final Map<Integer, File> released = new ConcurrentHashMap<>();
  private long cycleBytes;

  private DocumentContext document;
  private Bytes<?> bytes;

  /** Chronicle's mapping unit (its 64-bit default, stated). */
  static final long BLOCK_SIZE = 64L << 20;

  /**
   * The most values one entry may hold: Chronicle refuses a document over a block's quarter.
   * A constant, so that the registry reads it without loading this class (nor Chronicle's).
   */
  static final long MAX_LONGS = (BLOCK_SIZE / 4 - 64) / 8;

  ChronicleQueue(Path dir) {
    StoreFileListener files =
        new StoreFileListener() {
          @Override
          public void onAcquired(int cycle, File file) {
            acquired.add(cycle);
          }

          @Override
          public void onReleased(int cycle, File file) {
            released.put(cycle, file);
          }
        };
    queue =
        SingleChronicleQueueBuilder.binary(dir.toFile())
            .rollCycle(RollCycles.FAST_DAILY)
            .blockSize(BLOCK_SIZE)
            .timeProvider(time)
            .storeFileListener(files)
            .build();
    appender = queue.createAppender();
    tailer = queue.createTailer();
  }

  @Override
  public void start(int maxLength) {
    DocumentContext d = appender.writingDocument();
    Bytes<?> b = d.wire().bytes();
    b.writeLong(System.nanoTime());
    document = d;
    bytes = b;
  }

  @Override
  public void writeLong(long v) {
    bytes.writeLong(v);
  }

  @Override
  public void end() {
    document.close();
  }

  /** Not in the open-source library (see the class comment): never called. */
  @Override
  public void pretouch() {
    throw new UnsupportedOperationException("Chronicle Queue's pretouch is an Enterprise feature");
  }

  @Override
  public void readBack(Check check) throws IOException, Failure {
    for (; ; ) {
      try (DocumentContext d = tailer.readingDocument()) {
        if (!d.isPresent()) {
          break;
        }
        Bytes<?> b = d.wire().bytes();
        long length = b.readRemaining();
        if (length < 8) {
          throw new Failure("chronicle reader: a document of " + length + " bytes");
        }
        check.entry(b.readLong(), length - 8);
        for (long at = 8; at < length; at += 8) {
          check.value(b.readLong());
        }
        cycleBytes += DOCUMENT_HEADER + length;
      }
    }
    int current = tailer.cycle();
    for (Map.Entry<Integer, File> f : released.entrySet()) {
      if (f.getKey() < current && appender.cycle() > f.getKey()) {
        Files.deleteIfExists(f.getValue().toPath());
        released.remove(f.getKey());
      }
    }
    if (cycleBytes >= ROLL_BYTES) {
      time.shiftMs += RollCycles.FAST_DAILY.lengthInMillis();
      cycleBytes = 0;
    }
  }

  @Override
  public Json evidence() {
    return new Json().num("cycle_size", ROLL_BYTES).num("cycles", acquired.size());
  }

  @Override
  public void close() {
    tailer.close();
    appender.close();
    queue.close();
  }
}
