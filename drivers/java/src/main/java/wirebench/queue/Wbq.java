package wirebench.queue;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The wirebench queue, wbq (docs/queue-format.md, version 1): cycle files of a fixed size,
 * each a 64-byte header and then entries (a header word, a timestamp, a payload), mapped into
 * MappedByteBuffers. The header word publishes an entry: the appender stores WORKING | max,
 * the payload with plain stores, then the length with a release store (or a volatile one:
 * sequentially consistent, the seed's Java); tailers read it with an acquire load. Every
 * implementation of the format (C++, Rust, Go, the harness's Python) reads what this writes.
 */
public final class Wbq {
  private Wbq() {}

  // ---- the format -------------------------------------------------------------------------

  public static final long WORKING = 1L << 63;
  public static final long ABANDONED = 1L << 62;
  public static final long END = 1L << 61;
  static final long FLAGS = WORKING | ABANDONED | END;
  static final long LENGTH = 0xffff_ffffL;
  /** Bits 32-60: set in no valid header word. */
  static final long RESERVED = ~(FLAGS | LENGTH);

  static final byte[] MAGIC = "wbqueue1".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  public static final int HEADER = 64;
  /** An entry's header word and timestamp, before its payload. */
  public static final int ENTRY = 16;

  public static final int CLOCK_MONO = 1;
  public static final int CLOCK_TSC = 2;

  public static final long DEFAULT_CYCLE_SIZE = 64L << 20;
  public static final long MIN_CYCLE_SIZE = 64L << 10;
  /** A MappedByteBuffer holds at most Integer.MAX_VALUE bytes: this side's largest cycle file. */
  public static final long MAX_CYCLE_SIZE = Integer.MAX_VALUE & ~4095L;

  static final int PAGE = 4096;

  /** Little-endian 64-bit access to a buffer at a byte offset (the format is little-endian). */
  static final VarHandle LONG =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  static final VarHandle INT =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  public static String clockName(int clock) {
    return clock == CLOCK_MONO ? "mono" : clock == CLOCK_TSC ? "tsc" : "unknown";
  }

  /** `00000042.wbq`. */
  public static String fileName(long cycle) {
    return String.format("%08d.wbq", cycle);
  }

  static long roundUp8(long n) {
    return (n + 7) & ~7L;
  }

  /** Whether an entry of `length` bytes fits at `at` in a file of `size` (the room rule). */
  static boolean fits(long at, long length, long size) {
    return at + ENTRY + roundUp8(length) + 8 <= size;
  }

  /** A corrupt, truncated or mismatched queue file, an entry that cannot fit, a held lock. */
  public static final class WbqException extends IOException {
    private static final long serialVersionUID = 1L;

    public WbqException(String message) {
      super(message);
    }

    /** An error at a place in a file: `FILE offset P: why`. */
    static WbqException at(Path file, long offset, String why) {
      return new WbqException(file + " offset " + offset + ": " + why);
    }
  }

  /** The cycle files present in `dir`, by number (other names, the lock, .tmp are ignored). */
  static TreeMap<Long, Path> cycleFiles(Path dir) throws IOException {
    TreeMap<Long, Path> files = new TreeMap<>();
    try (Stream<Path> s = Files.list(dir)) {
      s.forEach(
          p -> {
            String n = p.getFileName().toString();
            if (n.length() == 12 && n.endsWith(".wbq") && n.substring(0, 8).matches("[0-9]{8}")) {
              files.put(Long.parseLong(n.substring(0, 8)), p);
            }
          });
    }
    return files;
  }

  /** A cycle file's header, validated (docs/queue-format.md: "Before it reads anything"). */
  static final class Header {
    final long fileSize;
    final int clock;

    private Header(long fileSize, int clock) {
      this.fileSize = fileSize;
      this.clock = clock;
    }

    /** Reads and checks the header of `file`, whose name says it is cycle `cycle`. */
    static Header read(Path file, FileChannel ch, long cycle) throws IOException {
      long actual = ch.size();
      ByteBuffer h = ByteBuffer.allocate(HEADER);
      while (h.hasRemaining() && ch.read(h, h.position()) > 0) {}
      if (h.position() < HEADER || actual < HEADER) {
        throw WbqException.at(
            file, Math.min(actual, h.position()),
            "truncated: the file ends inside its 64-byte header");
      }
      for (int i = 0; i < MAGIC.length; ++i) {
        if (h.get(i) != MAGIC[i]) {
          byte[] got = new byte[MAGIC.length];
          h.get(0, got);
          throw WbqException.at(
              file, 0,
              "bad magic " + printable(got) + " (want \"wbqueue1\"): not a wbq cycle file");
        }
      }
      int version = (int) INT.get(h, 8);
      if (version != VERSION) {
        throw WbqException.at(file, 8, "format version " + version + " (this reader knows 1)");
      }
      int headerSize = (int) INT.get(h, 12);
      if (headerSize != HEADER) {
        throw WbqException.at(file, 12, "header size " + headerSize + " (want 64)");
      }
      long size = (long) LONG.get(h, 16);
      if (size < MIN_CYCLE_SIZE || size % PAGE != 0) {
        throw WbqException.at(
            file, 16, "file size " + size + " is not a multiple of 4096 of at least 65536");
      }
      if (size > MAX_CYCLE_SIZE) {
        throw WbqException.at(
            file, 16,
            "file size " + size + " is more than Java can map (" + MAX_CYCLE_SIZE + " bytes)");
      }
      if (actual < size) {
        throw WbqException.at(
            file, actual, "truncated: the file is " + actual + " bytes, its header says " + size);
      }
      long number = (long) LONG.get(h, 24);
      if (number != cycle) {
        throw WbqException.at(file, 24, "cycle number " + number + " in a file named " + cycle);
      }
      int clock = (int) INT.get(h, 32);
      if (clock != CLOCK_MONO && clock != CLOCK_TSC) {
        throw WbqException.at(file, 32, "unknown clock " + clock + " (1 mono, 2 tsc)");
      }
      for (int i = 36; i < HEADER; ++i) {
        if (h.get(i) != 0) {
          throw WbqException.at(file, i, "reserved header byte is not zero");
        }
      }
      return new Header(size, clock);
    }

    static ByteBuffer make(long size, long cycle, int clock) {
      ByteBuffer h = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
      h.put(MAGIC).putInt(VERSION).putInt(HEADER).putLong(size).putLong(cycle).putInt(clock);
      return h.clear();
    }
  }

  private static String printable(byte[] b) {
    StringBuilder s = new StringBuilder("\"");
    for (byte c : b) {
      s.append(c >= 0x20 && c < 0x7f ? Character.toString(c) : String.format("\\x%02x", c & 0xff));
    }
    return s.append('"').toString();
  }

  /** Maps `file` whole (its header's size); the mapping outlives the channel. */
  static MappedByteBuffer map(FileChannel ch, long size, boolean write) throws IOException {
    return ch.map(write ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY, 0, size);
  }

  // ---- unmapping ----------------------------------------------------------------------------

  /**
   * sun.misc.Unsafe.invokeCleaner (module jdk.unsupported, open to the class path): unmaps a
   * MappedByteBuffer now. Left to the garbage collector, the mappings of finished cycle files
   * (and with them the deleted files' pages) would pile up: 10,000 bulk runs write 40 GB.
   */
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

  /** Unmaps `b`; nothing may touch it afterwards (that would be a crash, not an exception). */
  static void unmap(MappedByteBuffer b) {
    if (b == null) {
      return;
    }
    try {
      INVOKE_CLEANER.invokeExact((ByteBuffer) b);
    } catch (Throwable e) {
      throw new IllegalStateException("unmapping a cycle file", e);
    }
  }

  // ---- the appender's lock: flock(2) ----------------------------------------------------------

  /**
   * flock(2) through JNA. Java's own FileChannel.tryLock takes an fcntl(F_SETLK) record lock,
   * which on Linux neither sees nor blocks a flock(2) lock: the C++, Rust and Go appenders
   * would not keep a Java appender out, nor it them. The lock belongs to the open file
   * description of `fd`, so closing other descriptors of queue.lock (writing the pid) keeps it.
   */
  interface LibC extends Library {
    LibC C = Native.load("c", LibC.class);

    int O_RDWR = 02;
    int O_CREAT = 0100;
    int O_CLOEXEC = 02000000;
    int LOCK_EX = 2;
    int LOCK_NB = 4;
    int EWOULDBLOCK = 11;

    int open(String path, int flags, int mode) throws LastErrorException;

    int flock(int fd, int operation) throws LastErrorException;

    int close(int fd) throws LastErrorException;
  }

  /** The exclusive lock on DIR/queue.lock, held by an open appender. */
  static final class Lock implements Closeable {
    private int fd;

    Lock(Path dir) throws IOException {
      Path path = dir.resolve("queue.lock");
      try {
        fd = LibC.C.open(path.toString(), LibC.O_RDWR | LibC.O_CREAT | LibC.O_CLOEXEC, 0644);
      } catch (LastErrorException e) {
        throw new WbqException(
            path + ": cannot open the lock file (errno " + e.getErrorCode() + ")");
      }
      try {
        LibC.C.flock(fd, LibC.LOCK_EX | LibC.LOCK_NB);
      } catch (LastErrorException e) {
        LibC.C.close(fd);
        if (e.getErrorCode() != LibC.EWOULDBLOCK) {
          throw new WbqException(path + ": flock failed (errno " + e.getErrorCode() + ")");
        }
        String holder;
        try {
          holder = Files.readString(path, StandardCharsets.US_ASCII).trim();
        } catch (IOException x) {
          holder = "";
        }
        throw new WbqException(
            "queue " + dir + " already has an appender (pid "
                + (holder.isEmpty() ? "unknown" : holder)
                + ", holding " + path + "): one appender at a time");
      }
      Files.writeString(
          path, ProcessHandle.current().pid() + "\n", StandardCharsets.US_ASCII,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
    }

    @Override
    public void close() {
      if (fd >= 0) {
        LibC.C.close(fd); // releases the flock
        fd = -1;
      }
    }
  }

  // ---- appending ------------------------------------------------------------------------------

  /**
   * The one appender of a queue: open (lock, recover), then start, writeLong..., end per entry;
   * pretouch between bursts. Belongs to one thread.
   */
  public static final class Appender implements Closeable {
    private final Path dir;
    private final int clock;
    private final long size;
    private final boolean seqcst;
    private final Lock lock;

    private MappedByteBuffer buf;
    private long cycle;
    /** Where the next entry goes. */
    private int pos;
    /** The entry being written (its header word), its next payload store, its end. */
    private int entry = -1;

    private int write;
    private int limit;
    /** The next cycle file, made and touched ahead by pretouch(), or null. */
    private MappedByteBuffer next;
    /** Whether pretouch() has touched the rest of the current file. */
    private boolean restTouched;

    private long created;

    /**
     * Opens the queue in `dir` for append, creating it or recovering it (docs/queue-format.md,
     * "Recovery"). `seqcst` publishes each entry with a sequentially consistent store instead
     * of a release store.
     */
    public Appender(Path dir, int clock, long cycleSize, boolean seqcst) throws IOException {
      if (cycleSize < MIN_CYCLE_SIZE || cycleSize % PAGE != 0 || cycleSize > MAX_CYCLE_SIZE) {
        throw new WbqException(
            "cycle size " + cycleSize + ": want a multiple of 4096 from 65536 to "
                + MAX_CYCLE_SIZE);
      }
      this.dir = dir;
      this.clock = clock;
      this.size = cycleSize;
      this.seqcst = seqcst;
      this.lock = new Lock(dir);
      try {
        recover();
      } catch (IOException | RuntimeException e) {
        close();
        throw e;
      }
    }

    /** Recovery: the append position after the last entry; WORKING entries become ABANDONED. */
    private void recover() throws IOException {
      try (Stream<Path> s = Files.list(dir)) {
        for (Path p : (Iterable<Path>) s::iterator) {
          if (p.getFileName().toString().endsWith(".wbq.tmp")) {
            Files.delete(p); // a creation interrupted before its rename
          }
        }
      }
      TreeMap<Long, Path> files = cycleFiles(dir);
      if (files.isEmpty()) {
        cycle = 0;
        buf = create(0);
        pos = HEADER;
        return;
      }
      // The last file holding an entry; empty files after it were made by a pretoucher.
      List<Long> numbers = new ArrayList<>(files.keySet());
      int i = numbers.size() - 1;
      while (i > 0 && firstWord(files.get(numbers.get(i)), numbers.get(i)) == 0) {
        --i;
      }
      cycle = numbers.get(i);
      buf = open(cycle);
      pos = HEADER;
      Path file = dir.resolve(fileName(cycle));
      for (; ; ) {
        long w = (long) LONG.getAcquire(buf, pos);
        if (w == 0) {
          return;
        }
        long length = checkWord(file, pos, w, size);
        if ((w & FLAGS) == END) {
          unmap(buf);
          buf = null;
          ++cycle;
          buf = openOrCreate(cycle);
          file = dir.resolve(fileName(cycle));
          pos = HEADER;
          continue;
        }
        if ((w & FLAGS) == WORKING) {
          // The writer died mid-entry: its bytes are never data; waiting tailers move on.
          LONG.setRelease(buf, pos, ABANDONED | length);
        }
        pos += ENTRY + (int) roundUp8(length);
      }
    }

    /** The header word at offset 64 of a cycle file (0: the file holds no entry). */
    private long firstWord(Path file, long number) throws IOException {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
        checkHeader(file, Header.read(file, ch, number));
        ByteBuffer w = ByteBuffer.allocate(8);
        ch.read(w, HEADER);
        return (long) LONG.get(w, 0);
      }
    }

    private void checkHeader(Path file, Header h) throws WbqException {
      if (h.clock != clock) {
        throw new WbqException(
            "queue " + dir + " was made with clock " + clockName(h.clock) + " ("
                + file.getFileName() + "), this appender's is " + clockName(clock) + ": refused");
      }
      if (h.fileSize != size) {
        throw new WbqException(
            "queue " + dir + " was made with cycle size " + h.fileSize + " (" + file.getFileName()
                + "), this appender's is " + size + ": refused");
      }
    }

    /** Maps an existing cycle file for writing, after checking its header. */
    private MappedByteBuffer open(long number) throws IOException {
      Path file = dir.resolve(fileName(number));
      try (FileChannel ch =
          FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        checkHeader(file, Header.read(file, ch, number));
        return map(ch, size, true);
      }
    }

    /**
     * Creates cycle file `number`: `.wbq.tmp` exclusively, its size, its header, then the rename,
     * so that no reader ever sees a half-made header. The mapping survives the rename.
     */
    private MappedByteBuffer create(long number) throws IOException {
      Path tmp = dir.resolve(fileName(number) + ".tmp");
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.allocate(1), size - 1); // the file's size, sparse
        ch.write(Header.make(size, number, clock), 0);
        MappedByteBuffer m = map(ch, size, true);
        Files.move(tmp, dir.resolve(fileName(number)), StandardCopyOption.ATOMIC_MOVE);
        ++created;
        return m;
      }
    }

    /** Step 1 of a write: END here and on to the next cycle file. */
    private void roll(int maxLength) throws IOException {
      if (!fits(HEADER, maxLength, size)) {
        throw new WbqException(
            "an entry of " + maxLength + " bytes cannot fit a cycle file of " + size
                + " bytes (capacity " + (size - HEADER - ENTRY - 8) + " bytes per entry)");
      }
      LONG.setRelease(buf, pos, END);
      MappedByteBuffer n = next != null ? next : openOrCreate(cycle + 1);
      restTouched = next != null;
      next = null;
      // The finished file's mapping goes now (the tailer maps files on its own), as a C++ or
      // Rust appender drops its mapping when it moves on.
      unmap(buf);
      buf = n;
      ++cycle;
      pos = HEADER;
    }

    /** The next cycle file: a pretoucher's may exist already, else it is created. */
    private MappedByteBuffer openOrCreate(long number) throws IOException {
      return Files.exists(dir.resolve(fileName(number))) ? open(number) : create(number);
    }

    /** Starts an entry of at most `maxLength` bytes; its timestamp is read here. */
    public void start(int maxLength) throws IOException {
      if (!fits(pos, maxLength, size)) {
        roll(maxLength);
      }
      int p = pos;
      entry = p;
      LONG.setOpaque(buf, p, WORKING | maxLength);
      // No payload store may become visible before WORKING (free on x86).
      VarHandle.storeStoreFence();
      LONG.set(buf, p + 8, System.nanoTime());
      write = p + ENTRY;
      limit = write + (int) roundUp8(maxLength);
    }

    public void writeLong(long v) {
      int w = write;
      if (w + 8 > limit) {
        throw new IllegalStateException(
            "entry full: it was started for " + (limit - entry - ENTRY) + " bytes");
      }
      LONG.set(buf, w, v);
      write = w + 8;
    }

    /** Publishes the entry: its length, with a release store or a sequentially consistent one. */
    public void end() {
      int p = entry;
      long length = write - p - ENTRY;
      if (seqcst) {
        LONG.setVolatile(buf, p, length);
      } else {
        LONG.setRelease(buf, p, length);
      }
      pos = write;
      entry = -1;
    }

    /**
     * Makes the next cycle file ahead of time and touches every page of it and of the rest of
     * the current file (storing the zero already there), so that the writes that follow take
     * no page fault and no file creation.
     */
    public void pretouch() throws IOException {
      if (!restTouched) {
        for (long p = pos; p < size; p = (p & ~(PAGE - 1L)) + PAGE) {
          buf.put((int) p, (byte) 0); // beyond the last entry: zero already
        }
        restTouched = true;
      }
      if (next == null) {
        next = openOrCreate(cycle + 1);
        for (int p = PAGE; p < size; p += PAGE) {
          next.put(p, (byte) 0);
        }
      }
    }

    /** Cycle files this appender created. */
    public long created() {
      return created;
    }

    public long cycle() {
      return cycle;
    }

    public long cycleSize() {
      return size;
    }

    @Override
    public void close() {
      unmap(buf);
      unmap(next);
      buf = null;
      next = null;
      lock.close();
    }
  }

  /**
   * Checks a non-zero header word at `at` of `file` (corrupt bits, END with a length, a length
   * past the room rule) and returns its length.
   */
  static long checkWord(Path file, long at, long w, long size) throws WbqException {
    long flags = w & FLAGS;
    long length = w & LENGTH;
    if ((w & RESERVED) != 0 || Long.bitCount(flags) > 1) {
      throw WbqException.at(file, at, String.format("corrupt header word 0x%016x", w));
    }
    if (flags == END) {
      if (length != 0) {
        throw WbqException.at(
            file, at, String.format("corrupt header word 0x%016x (END with a length)", w));
      }
      return 0;
    }
    if (!fits(at, length, size)) {
      throw WbqException.at(
          file, at,
          "an entry of " + length + " bytes runs past the room rule (file size " + size + ")");
    }
    return length;
  }

  // ---- tailing ------------------------------------------------------------------------------

  /** What Tailer.next() found. */
  public enum Next {
    /** A complete entry: timestamp(), length(), getLong(i). */
    ENTRY,
    /** Nothing more yet: a 0 word, or END with no next file (or no file at all). */
    NONE,
    /** A WORKING entry: the tailer waits there, it never returns a partial entry. */
    INCOMPLETE
  }

  /**
   * Reads a queue from offset 64 of its lowest cycle file, entry by entry, with an acquire load
   * of each header word. A NONE or INCOMPLETE answer leaves it where it is: call next() again
   * to follow a live appender. Files it has finished with are unmapped and listed (finished()),
   * for a caller that deletes them.
   */
  public static final class Tailer implements Closeable {
    private final Path dir;
    private MappedByteBuffer buf;
    private Path file;
    private long cycle = -1;
    private long size;
    /** The queue's clock and size, from the first file read; every file must agree. */
    private int clock;

    private long queueSize;
    private int pos;
    private int entry;
    private long length;
    private long abandoned;
    private final List<Long> finished = new ArrayList<>();

    public Tailer(Path dir) {
      this.dir = dir;
    }

    private MappedByteBuffer mapChecked(Path f, long number) throws IOException {
      try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
        Header h = Header.read(f, ch, number);
        if (clock == 0) {
          clock = h.clock;
          queueSize = h.fileSize;
        } else if (h.clock != clock || h.fileSize != queueSize) {
          throw WbqException.at(
              f, h.clock != clock ? 32 : 16,
              "clock " + clockName(h.clock) + " and size " + h.fileSize
                  + " differ from the queue's earlier files (" + clockName(clock) + ", "
                  + queueSize + ")");
        }
        size = h.fileSize;
        return map(ch, size, false);
      }
    }

    /** Maps the lowest cycle file, if there is one yet. */
    private boolean first() throws IOException {
      TreeMap<Long, Path> files = cycleFiles(dir);
      if (files.isEmpty()) {
        return false;
      }
      cycle = files.firstKey();
      file = files.get(cycle);
      buf = mapChecked(file, cycle);
      pos = HEADER;
      return true;
    }

    public Next next() throws IOException {
      if (buf == null && !first()) {
        return Next.NONE;
      }
      for (; ; ) {
        long w = (long) LONG.getAcquire(buf, pos);
        if (w == 0) {
          return Next.NONE;
        }
        long len = checkWord(file, pos, w, size);
        long flags = w & FLAGS;
        if (flags == END) {
          Path nextFile = dir.resolve(Wbq.fileName(cycle + 1));
          MappedByteBuffer n;
          try {
            n = mapChecked(nextFile, cycle + 1);
          } catch (NoSuchFileException e) {
            return Next.NONE; // not made yet: a follower waits here
          }
          unmap(buf);
          finished.add(cycle);
          buf = n;
          file = nextFile;
          ++cycle;
          pos = HEADER;
          continue;
        }
        if (flags == WORKING) {
          return Next.INCOMPLETE;
        }
        if (flags == ABANDONED) {
          ++abandoned; // skipped, never silently
          pos += ENTRY + (int) roundUp8(len);
          continue;
        }
        entry = pos;
        length = len;
        pos += ENTRY + (int) roundUp8(len);
        return Next.ENTRY;
      }
    }

    /** The entry's timestamp. */
    public long timestamp() {
      return (long) LONG.get(buf, entry + 8);
    }

    /** The entry's payload length in bytes. */
    public long length() {
      return length;
    }

    /** The entry's i-th 64-bit value. */
    public long getLong(int i) {
      return (long) LONG.get(buf, entry + ENTRY + 8 * i);
    }

    /** ABANDONED entries skipped so far. */
    public long abandoned() {
      return abandoned;
    }

    /** The file the tailer is in (null before any file), and its position there. */
    public String fileName() {
      return file == null ? null : file.getFileName().toString();
    }

    public Path file() {
      return file;
    }

    public long offset() {
      return pos;
    }

    /** The queue's clock (CLOCK_MONO, CLOCK_TSC), 0 before the first file. */
    public int clock() {
      return clock;
    }

    /** Cycle files the tailer has finished with (already unmapped), since the last call. */
    public List<Long> drainFinished() {
      List<Long> out = new ArrayList<>(finished);
      finished.clear();
      return out;
    }

    @Override
    public void close() {
      unmap(buf);
      buf = null;
    }
  }
}
