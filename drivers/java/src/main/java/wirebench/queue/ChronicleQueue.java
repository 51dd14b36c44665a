package wirebench.queue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.Jvm;
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
 * <p>Configured for latency as Chronicle's documentation and its own benchmark builds do; the
 * flags are in the launcher (drivers/java/wirebench-java, which gives each one's reason):
 *
 * <ul>
 *   <li>The disk space monitor is off (-Dchronicle.disk.monitor.disable=true, read by
 *       chronicle-threads' DiskSpaceMonitor). On, it is a "disk~space~checker" thread that wakes
 *       every 10 s to check the file store, on the process's one pinned CPU, in the middle of
 *       timed writes. The constructor refuses to run without the property.
 *   <li>Its other thread stays as shipped: chronicle-core's "background~resource~releaser"
 *       sleeps on a queue and wakes when a file or a mapped chunk is released (the tailer
 *       leaving a file, in readBack) to unmap it and call the StoreFileListener. On the pinned
 *       CPU that work takes the CPU from what runs then: readBack, or the next run's first
 *       writes. (wbq's appender unmaps on the writing thread, in the write that rolls.)
 *       `evidence()` lists the threads the queue started, so every result states them.
 * </ul>
 *
 * <p>Enterprise-only in the open-source 2026.4, so not here: pretouching. Its
 * ExcerptAppender.pretouch() asks PretouchUtil for a pretoucher; without Chronicle Queue
 * Enterprise on the class path PretouchUtil's fallback calls back into queue.createPretoucher(),
 * which recurses until the stack overflows (read in the 2026.4 class files), hence `--pretouch
 * off` only. The builder also names as Enterprise-only (it warns and ignores them): the
 * preloader (out-of-process pretouching), buffering (the async ring buffer), encoding,
 * encryption and a non-UTC roll time zone. The open-source appender's microTouch() touches the
 * one page after the last write: not a pretouch of a run (50,000 writes of 20 bytes span some
 * 240 pages) nor of the next file; not used.
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

  /** The JVM's threads before Chronicle's classes start any (the first field initialised). */
  private final Set<Thread> threadsBefore = Set.copyOf(Thread.getAllStackTraces().keySet());

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

  /** The property Chronicle's DiskSpaceMonitor reads, once, when its class loads. */
  static final String DISK_MONITOR_OFF = "chronicle.disk.monitor.disable";

  ChronicleQueue(Path dir) throws IOException {
    // Parsed as Chronicle parses it (set, empty, "true" or "yes"), before any queue exists.
    if (!Jvm.getBoolean(DISK_MONITOR_OFF)) {
      throw new IOException(
          "Chronicle's disk space monitor is on: start the driver through drivers/java/"
              + "wirebench-java, which sets -D" + DISK_MONITOR_OFF + "=true");
    }
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

  /** The live threads started since this object was made (Chronicle's), by name. */
  private List<String> chronicleThreads() {
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (!threadsBefore.contains(t)) {
        names.add(t.getName());
      }
    }
    names.sort(null);
    return names;
  }

  @Override
  public Json evidence() {
    return new Json()
        .num("cycle_size", ROLL_BYTES)
        .num("cycles", acquired.size())
        .strings("threads", chronicleThreads());
  }

  @Override
  public void close() {
    tailer.close();
    appender.close();
    queue.close();
  }
}
