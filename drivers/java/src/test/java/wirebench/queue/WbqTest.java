package wirebench.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wbq format (docs/queue-format.md) in-process: Wbq's appender, tailer and recovery. */
class WbqTest {
  private static final long SMALL = 64 << 10;

  @TempDir Path dir;

  private Wbq.Appender appender(long cycleSize) throws IOException {
    return new Wbq.Appender(dir, Wbq.CLOCK_MONO, cycleSize, false);
  }

  /** Appends `n` entries of `longs` values from `first`; returns the next value. */
  private static long append(Wbq.Appender a, long n, int longs, long first) throws IOException {
    long v = first;
    for (long e = 0; e < n; ++e) {
      a.start(8 * longs);
      for (int k = 0; k < longs; ++k) {
        a.writeLong(v++);
      }
      a.end();
    }
    return v;
  }

  /** What a tailer read until it stopped. */
  private static final class Read {
    final List<Long> values = new ArrayList<>();
    long entries;
    Wbq.Next stopped;
    boolean monotonic = true;
  }

  private static Read readAll(Wbq.Tailer t) throws IOException {
    Read r = new Read();
    long last = Long.MIN_VALUE;
    for (; ; ) {
      Wbq.Next n = t.next();
      if (n != Wbq.Next.ENTRY) {
        r.stopped = n;
        return r;
      }
      ++r.entries;
      r.monotonic &= t.timestamp() >= last;
      last = t.timestamp();
      for (int i = 0; i < t.length() / 8; ++i) {
        r.values.add(t.getLong(i));
      }
    }
  }

  private static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long v = from; v < to; ++v) {
      out.add(v);
    }
    return out;
  }

  private Path file(long cycle) {
    return dir.resolve(Wbq.fileName(cycle));
  }

  @Test
  void roundTripWithBothOrderings() throws Exception {
    for (boolean seqcst : new boolean[] {false, true}) {
      Path d = Files.createDirectory(dir.resolve(seqcst ? "seqcst" : "release"));
      try (Wbq.Appender a = new Wbq.Appender(d, Wbq.CLOCK_MONO, SMALL, seqcst);
          Wbq.Tailer t = new Wbq.Tailer(d)) {
        append(a, 10, 1, 0);
        append(a, 3, 5, 10);
        Read r = readAll(t);
        assertEquals(13, r.entries);
        assertEquals(range(0, 25), r.values);
        assertTrue(r.monotonic);
        assertEquals(Wbq.Next.NONE, r.stopped);
        assertEquals(Wbq.CLOCK_MONO, t.clock());
        // A tailer where it left off sees what comes next.
        append(a, 2, 1, 25);
        assertEquals(range(25, 27), readAll(t).values);
      }
      // The layout, word by word: the first entry's header word is its length, 8.
      try (FileChannel ch = FileChannel.open(d.resolve("00000000.wbq"))) {
        ByteBuffer b = ByteBuffer.allocate(64 + 24).order(ByteOrder.LITTLE_ENDIAN);
        ch.read(b, 0);
        assertEquals("wbqueue1", new String(b.array(), 0, 8, "US-ASCII"));
        assertEquals(1, b.getInt(8));
        assertEquals(64, b.getInt(12));
        assertEquals(SMALL, b.getLong(16));
        assertEquals(0, b.getLong(24));
        assertEquals(Wbq.CLOCK_MONO, b.getInt(32));
        assertEquals(8, b.getLong(64));
        assertTrue(b.getLong(64 + 8) > 0, "the timestamp");
        assertEquals(0, b.getLong(64 + 16), "the first value");
      }
    }
  }

  @Test
  void rollsOverToTheNextCycleFile() throws Exception {
    // 64 KiB files hold (65536 - 64 - 8) / 24 = 2727 entries of one value.
    try (Wbq.Appender a = appender(SMALL);
        Wbq.Tailer t = new Wbq.Tailer(dir)) {
      append(a, 7000, 1, 0);
      assertEquals(2, a.cycle());
      assertEquals(3, a.created());
      Read r = readAll(t);
      assertEquals(range(0, 7000), r.values);
      assertEquals("00000002.wbq", t.fileName());
      assertEquals(List.of(0L, 1L), t.drainFinished());
    }
    // The first file ends in END right after its last entry that fitted.
    try (FileChannel ch = FileChannel.open(file(0))) {
      ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(b, 64 + 2727L * 24);
      assertEquals(Wbq.END, b.getLong(0));
    }
  }

  @Test
  void pretouchMakesTheNextFileAheadAndTheRollUsesIt() throws Exception {
    try (Wbq.Appender a = appender(SMALL);
        Wbq.Tailer t = new Wbq.Tailer(dir)) {
      append(a, 10, 1, 0);
      a.pretouch();
      assertTrue(Files.exists(file(1)), "the next cycle file, made ahead");
      assertEquals(2, a.created());
      append(a, 3000, 1, 10);
      assertEquals(1, a.cycle());
      assertEquals(2, a.created(), "the roll used the pretouched file");
      a.pretouch();
      assertEquals(range(0, 3010), readAll(t).values);
    }
  }

  @Test
  void anEntryThatCannotFitAnEmptyFileIsRefused() throws Exception {
    try (Wbq.Appender a = appender(SMALL)) {
      int most = (int) (SMALL - 64 - 16 - 8);
      a.start(most);
      a.end();
      Wbq.WbqException e = assertThrows(Wbq.WbqException.class, () -> a.start(most + 8));
      assertTrue(e.getMessage().contains((most + 8) + " bytes"), e.getMessage());
      assertTrue(e.getMessage().contains("capacity " + most), e.getMessage());
    }
  }

  @Test
  void recoveryAbandonsTheWorkingEntryAndAppendsAfterIt() throws Exception {
    Wbq.Appender dead = appender(SMALL);
    append(dead, 5, 2, 0);
    dead.start(16);
    dead.writeLong(10); // half of its values, never published
    dead.close(); // as a killed process: the lock goes, the WORKING header stays
    Files.write(dir.resolve("00000001.wbq.tmp"), new byte[10]); // an interrupted creation

    try (Wbq.Tailer t = new Wbq.Tailer(dir)) {
      Read r = readAll(t);
      assertEquals(range(0, 10), r.values);
      assertEquals(Wbq.Next.INCOMPLETE, r.stopped, "a tailer stops at WORKING");
      assertEquals(64 + 5 * 32, t.offset());
    }
    try (Wbq.Appender a = appender(SMALL);
        Wbq.Tailer t = new Wbq.Tailer(dir)) {
      assertFalse(Files.exists(dir.resolve("00000001.wbq.tmp")));
      append(a, 2, 2, 100);
      Read r = readAll(t);
      List<Long> want = range(0, 10);
      want.addAll(range(100, 104));
      assertEquals(want, r.values);
      assertEquals(7, r.entries);
      assertEquals(1, t.abandoned(), "skipped and counted");
      assertEquals(Wbq.Next.NONE, r.stopped);
    }
    try (FileChannel ch = FileChannel.open(file(0))) {
      ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(b, 64 + 5 * 32);
      assertEquals(Wbq.ABANDONED | 16, b.getLong(0));
    }
  }

  @Test
  void recoveryContinuesInTheNextFileAfterEndAndPastAnEmptyPretouchedFile() throws Exception {
    try (Wbq.Appender a = appender(SMALL)) {
      append(a, 2727, 1, 0); // file 0 full
      a.pretouch(); // file 1, empty
    }
    try (Wbq.Appender a = appender(SMALL)) {
      assertEquals(0, a.cycle(), "the last file holding an entry");
      append(a, 1, 1, 2727); // does not fit: END, then file 1 (the pretoucher's)
      assertEquals(1, a.cycle());
    }
    try (Wbq.Appender a = appender(SMALL);
        Wbq.Tailer t = new Wbq.Tailer(dir)) {
      assertEquals(1, a.cycle());
      append(a, 1, 1, 2728);
      assertEquals(range(0, 2729), readAll(t).values);
      assertEquals(0, t.abandoned());
    }
  }

  @Test
  void aSecondAppenderIsRefusedNamingTheHoldersPid() throws Exception {
    try (Wbq.Appender a = appender(SMALL)) {
      // flock(2) locks belong to an open file description: a second open in this process
      // conflicts as another process's would.
      Wbq.WbqException e = assertThrows(Wbq.WbqException.class, () -> appender(SMALL));
      String m = e.getMessage();
      assertTrue(m.contains(dir.toString()), m);
      assertTrue(m.contains("(pid " + ProcessHandle.current().pid()), m);
    }
    appender(SMALL).close(); // released with the first
  }

  @Test
  void anotherCycleSizeOrClockIsRefusedNamingBoth() throws Exception {
    try (Wbq.Appender a = appender(SMALL)) {
      append(a, 1, 1, 0);
    }
    Wbq.WbqException e = assertThrows(Wbq.WbqException.class, () -> appender(2 * SMALL));
    assertTrue(e.getMessage().contains("" + SMALL), e.getMessage());
    assertTrue(e.getMessage().contains("" + 2 * SMALL), e.getMessage());

    Path tsc = Files.createDirectory(dir.resolve("tsc"));
    try (FileChannel ch =
        FileChannel.open(
            tsc.resolve("00000000.wbq"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(1), SMALL - 1);
      ch.write(Wbq.Header.make(SMALL, 0, Wbq.CLOCK_TSC), 0);
    }
    e =
        assertThrows(
            Wbq.WbqException.class, () -> new Wbq.Appender(tsc, Wbq.CLOCK_MONO, SMALL, false));
    assertTrue(e.getMessage().contains("tsc") && e.getMessage().contains("mono"), e.getMessage());
  }

  /** A queue of one file with 3 entries, damaged by `damage`; the tailer's error message. */
  private String damaged(Damage damage) throws Exception {
    Path d = Files.createTempDirectory(dir, "damaged");
    Path file = d.resolve("00000000.wbq");
    try (Wbq.Appender a = new Wbq.Appender(d, Wbq.CLOCK_MONO, SMALL, false)) {
      append(a, 3, 1, 0);
    }
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      damage.apply(f);
    }
    try (Wbq.Tailer t = new Wbq.Tailer(d)) {
      Wbq.WbqException e = assertThrows(Wbq.WbqException.class, () -> readAll(t));
      assertTrue(e.getMessage().startsWith(file + " offset "), e.getMessage());
      return e.getMessage();
    }
  }

  interface Damage {
    void apply(RandomAccessFile f) throws IOException;
  }

  private static void putLong(RandomAccessFile f, long at, long v) throws IOException {
    f.seek(at);
    f.writeLong(Long.reverseBytes(v)); // little-endian
  }

  @Test
  void aTruncatedFileIsAnErrorNamingFileAndOffset() throws Exception {
    String m = damaged(f -> f.setLength(1000));
    assertTrue(m.contains("offset 1000: truncated"), m);
  }

  @Test
  void aTruncatedHeaderIsAnErrorNamingFileAndOffset() throws Exception {
    String m = damaged(f -> f.setLength(20));
    assertTrue(m.contains("offset 20: truncated"), m);
  }

  @Test
  void aBadMagicIsAnErrorNamingFileAndOffset() throws Exception {
    String m = damaged(f -> f.write('W'));
    assertTrue(m.contains("offset 0: bad magic \"Wbqueue1\""), m);
  }

  @Test
  void aWrongCycleNumberIsAnError() throws Exception {
    String m = damaged(f -> putLong(f, 24, 7));
    assertTrue(m.contains("offset 24: cycle number 7"), m);
  }

  @Test
  void aCorruptHeaderWordIsAnErrorNamingFileAndOffset() throws Exception {
    String m = damaged(f -> putLong(f, 64 + 24, 8 | (1L << 40)));
    assertTrue(m.contains("offset 88: corrupt header word 0x0000010000000008"), m);
    m = damaged(f -> putLong(f, 64 + 48, Wbq.WORKING | Wbq.ABANDONED | 8));
    assertTrue(m.contains("offset 112: corrupt header word"), m);
  }

  @Test
  void anEndWithALengthIsCorrupt() throws Exception {
    String m = damaged(f -> putLong(f, 64, Wbq.END | 8));
    assertTrue(m.contains("offset 64: corrupt header word"), m);
  }

  @Test
  void aLengthPastTheRoomRuleIsAnError() throws Exception {
    String m = damaged(f -> putLong(f, 64 + 24, SMALL));
    assertTrue(m.contains("offset 88: an entry of 65536 bytes runs past the room rule"), m);
  }

  @Test
  void aTailerFollowsALiveAppenderAndWaitsAtWorking() throws Exception {
    try (Wbq.Tailer t = new Wbq.Tailer(dir)) {
      assertEquals(Wbq.Next.NONE, t.next(), "no file yet");
      assertEquals(null, t.fileName());
      try (Wbq.Appender a = appender(SMALL)) {
        assertEquals(Wbq.Next.NONE, t.next());
        a.start(8);
        a.writeLong(42);
        assertEquals(Wbq.Next.INCOMPLETE, t.next());
        assertEquals(Wbq.Next.INCOMPLETE, t.next(), "it stays there");
        a.end();
        assertEquals(Wbq.Next.ENTRY, t.next());
        assertEquals(42, t.getLong(0));
        append(a, 2800, 1, 43); // into file 1
        assertEquals(2800, readAll(t).values.size());
        assertEquals("00000001.wbq", t.fileName());
      }
    }
  }
}
