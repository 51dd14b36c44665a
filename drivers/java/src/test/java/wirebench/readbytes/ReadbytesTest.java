package wirebench.readbytes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import wirebench.Failure;

/**
 * The readbytes suite in-process: the consumers on small inputs (values, every varint error and
 * its byte offset), every strategy on small files (buffer boundaries, an empty file, a source
 * reused for a second pass, the varint errors through each), the data file's own numbers, the
 * registry, and the cold cache's drop (checked with mincore).
 */
class ReadbytesTest {
  @TempDir Path tmp;

  private static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; ++i) {
      b[i] = (byte) v[i];
    }
    return b;
  }

  private static long count(byte[] data) throws Exception {
    NullSource s = new NullSource(data);
    s.open();
    return Consumers.count(s);
  }

  private static long sum(byte[] data) throws Exception {
    NullSource s = new NullSource(data);
    s.open();
    return Consumers.sum(s);
  }

  private static long varint(byte[] data) throws Exception {
    NullSource s = new NullSource(data);
    s.open();
    return Consumers.varint(s);
  }

  /** The varint consumer's failure on `data`. */
  private static String varintError(byte[] data) {
    return assertThrows(Failure.class, () -> varint(data)).getMessage();
  }

  @Test
  void countAndSumOnSmallInputs() throws Exception {
    assertEquals(0, count(new byte[0]));
    assertEquals(0, sum(new byte[0]));
    assertEquals(3, count(bytes(0, 0xff, 0x80)));
    // Bytes as 0..255, plus the count.
    assertEquals(0 + 255 + 128 + 3, sum(bytes(0, 0xff, 0x80)));
    byte[] all = new byte[256];
    for (int i = 0; i < 256; ++i) {
      all[i] = (byte) i;
    }
    assertEquals(256, count(all));
    assertEquals(255 * 256 / 2 + 256, sum(all));
  }

  @Test
  void varintDecodesAndSums() throws Exception {
    assertEquals(0, varint(new byte[0]));
    assertEquals(0, varint(bytes(0x08, 0x00)));
    assertEquals(1, varint(bytes(0x08, 0x01)));
    assertEquals(150, varint(bytes(0x08, 0x96, 0x01)));
    assertEquals(127 + 128, varint(bytes(0x08, 0x7f, 0x08, 0x80, 0x01)));
    // A negative int32 is 10 bytes, sign-extended: -1.
    assertEquals(-1, varint(bytes(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)));
    // Ten bytes is the most, and the longest value (2^64 - 1, -1 as a long) is fine.
    assertEquals(
        -1 + 5, varint(bytes(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x08, 0x05)));
    // A redundant (non-minimal) varint is still a varint: 0x80 0x00 is 0.
    assertEquals(7, varint(bytes(0x08, 0x80, 0x00, 0x08, 0x87, 0x80, 0x00)));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long want = 0;
    for (long v : new long[] {300, 16_384, 2_097_151, 2_999_999, Integer.MAX_VALUE, 1L << 40}) {
      out.write(0x08);
      ShopFile.varint(out, v);
      want += v;
    }
    assertEquals(want, varint(out.toByteArray()));
  }

  @Test
  void varintErrorsNameTheByteOffset() {
    String tagRule = ", want 0x08 (field 1, wire type varint)";
    assertEquals("byte offset 0: tag 0x09" + tagRule, varintError(bytes(0x09, 0x00)));
    assertEquals("byte offset 0: tag 0x00" + tagRule, varintError(bytes(0x00)));
    assertEquals(
        "byte offset 5: tag 0x10" + tagRule,
        varintError(bytes(0x08, 0x00, 0x08, 0x96, 0x01, 0x10, 0x00)));
    assertEquals(
        "byte offset 1: a varint longer than 10 bytes (its 10th byte, at byte offset 10, has the "
            + "continuation bit)",
        varintError(bytes(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)));
    // Too long even when the file ends right after the tenth byte.
    assertEquals(
        "byte offset 3: a varint longer than 10 bytes (its 10th byte, at byte offset 12, has the "
            + "continuation bit)",
        varintError(
            bytes(0x08, 0x00, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80)));
    assertEquals(
        "byte offset 3: end of file inside the varint that starts at byte offset 3",
        varintError(bytes(0x08, 0x00, 0x08)));
    assertEquals(
        "byte offset 2: end of file inside the varint that starts at byte offset 1",
        varintError(bytes(0x08, 0x96)));
    assertEquals(
        "byte offset 12: end of file inside the varint that starts at byte offset 3",
        varintError(bytes(0x08, 0x00, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)));
  }

  @Test
  void theDataFileHasTheProtocolsNumbers() throws Exception {
    byte[] data = ShopFile.bytes(ShopFile.IDS);
    assertEquals(ReadbytesSuite.FILE_BYTES, data.length);
    assertEquals(ReadbytesSuite.EXPECTED, List.of(count(data), sum(data), varint(data)));
    assertEquals(12_886_336L, ReadbytesSuite.EXPECTED.get(0));
    assertEquals(1_457_733_664L, ReadbytesSuite.EXPECTED.get(1));
    assertEquals(4_499_998_500_000L, ReadbytesSuite.EXPECTED.get(2));
    // The last id, 2,999,999, is a varint of 4 bytes after its tag.
    assertEquals(data.length - 5, ShopFile.tagOffset(ShopFile.IDS - 1));
  }

  /** Every strategy's source over `file`, made by the registry's factory. */
  private static List<ByteSource> sources(Path file) throws Exception {
    List<ByteSource> out = new ArrayList<>();
    for (ReadbytesSuite.ReadLib lib : ReadbytesSuite.LIBS) {
      out.add(lib.factory.make(file));
    }
    return out;
  }

  @Test
  void everyStrategyReadsEveryByteAcrossItsBuffers() throws Exception {
    Random rng = new Random(3);
    // Sizes around the buffers' (8 KiB, 64 KiB) and the pages'.
    for (int size : new int[] {0, 1, 4095, 8192, 8193, 65_536, 65_537, 200_003}) {
      byte[] data = new byte[size];
      rng.nextBytes(data);
      Path file = ShopFile.write(tmp.resolve("random" + size), data);
      long wantSum = sum(data);
      for (ByteSource s : sources(file)) {
        String what = s.getClass().getSimpleName() + " on " + size + " bytes";
        for (int pass = 0; pass < 2; ++pass) { // a source is reused, pass after pass
          s.open();
          assertEquals(size, Consumers.count(s), what);
          assertEquals(-1, s.read(), what + ": stays at the end");
          s.close();
          s.open();
          assertEquals(wantSum, Consumers.sum(s), what);
          s.close();
        }
      }
    }
  }

  @Test
  void everyStrategyDecodesVarintsAndNamesTheOffsetOfAnError() throws Exception {
    byte[] data = ShopFile.bytes(100_000);
    Path file = ShopFile.write(tmp.resolve("shop"), data);
    long want = 99_999L * 100_000 / 2;
    int cut = 70_001; // inside the varint of some id, past a 64 KiB buffer
    Path truncated = ShopFile.write(tmp.resolve("truncated"), java.util.Arrays.copyOf(data, cut));
    byte[] bad = data.clone();
    int tag = (int) ShopFile.tagOffset(20_000);
    bad[tag] = 0x0a;
    Path corrupt = ShopFile.write(tmp.resolve("corrupt"), bad);
    NullSource n = new NullSource(java.util.Arrays.copyOf(data, cut));
    n.open();
    String truncatedError = assertThrows(Failure.class, () -> Consumers.varint(n)).getMessage();
    assertTrue(
        truncatedError.matches(
            "byte offset " + cut + ": end of file inside the varint that starts at byte offset \\d+"),
        truncatedError);
    for (ReadbytesSuite.ReadLib lib : ReadbytesSuite.LIBS) {
      ByteSource s = lib.factory.make(file);
      s.open();
      assertEquals(want, Consumers.varint(s), lib.name);
      s.close();
      ByteSource t = lib.factory.make(truncated);
      t.open();
      assertEquals(
          truncatedError, assertThrows(Failure.class, () -> Consumers.varint(t)).getMessage(),
          lib.name);
      t.close();
      ByteSource c = lib.factory.make(corrupt);
      c.open();
      assertEquals(
          "byte offset " + tag + ": tag 0x0a, want 0x08 (field 1, wire type varint)",
          assertThrows(Failure.class, () -> Consumers.varint(c)).getMessage(),
          lib.name);
      c.close();
    }
  }

  @Test
  void theRegistryListsTheStrategiesInOrderAndNullWarmOnly() {
    List<String> names = new ArrayList<>();
    for (ReadbytesSuite.ReadLib lib : ReadbytesSuite.LIBS) {
      names.add(lib.name);
      assertEquals(
          lib.name.equals("null") ? List.of("warm") : List.of("warm", "cold"),
          lib.values(ReadbytesSuite.SUITE.param("cache")),
          lib.name);
    }
    assertEquals(
        List.of(
            "null", "buffered_stream", "own_buffer", "file_channel", "mapped", "memory_segment",
            "nio_underflow", "mapped_underflow"),
        names);
    assertEquals(List.of("count", "sum", "varint"), ReadbytesSuite.SUITE.cases);
    assertEquals(List.of("input"), ReadbytesSuite.SUITE.fixtures);
  }

  /** mmap and mincore, to see which of a file's pages the page cache holds. */
  interface LibC extends Library {
    LibC C = Native.load("c", LibC.class);

    int open(String path, int flags);

    int close(int fd);

    Pointer mmap(Pointer addr, long length, int prot, int flags, int fd, long offset);

    int munmap(Pointer addr, long length);

    int mincore(Pointer addr, long length, byte[] vec);
  }

  /** How many of `file`'s pages are in the page cache (mapping a file faults nothing in). */
  static long resident(Path file, long size) {
    int fd = LibC.C.open(file.toString(), 0);
    assertTrue(fd >= 0, "open " + file);
    try {
      Pointer p = LibC.C.mmap(null, size, 1 /* PROT_READ */, 1 /* MAP_SHARED */, fd, 0);
      assertTrue(Pointer.nativeValue(p) != -1, "mmap " + file);
      try {
        byte[] vec = new byte[(int) ((size + 4095) / 4096)];
        assertEquals(0, LibC.C.mincore(p, size, vec), "mincore");
        long n = 0;
        for (byte b : vec) {
          n += b & 1;
        }
        return n;
      } finally {
        LibC.C.munmap(p, size);
      }
    } finally {
      LibC.C.close(fd);
    }
  }

  @Test
  void aColdDropEmptiesThePageCacheOfTheFile() throws Exception {
    assumeFalse(
        Files.getFileStore(tmp).type().equals("tmpfs"), "tmpfs keeps its pages: nothing to drop");
    int size = 1 << 20;
    Path file = ShopFile.write(tmp.resolve("cold"), new byte[size]); // synced: clean pages
    Files.readAllBytes(file);
    assertEquals(size / 4096, resident(file, size), "read: every page cached");
    PageCache.drop(file);
    assertEquals(0, resident(file, size), "dropped");
    Failure f = assertThrows(Failure.class, () -> PageCache.drop(tmp.resolve("missing")));
    assertEquals("--cache cold: cannot open " + tmp.resolve("missing") + " (errno 2)", f.getMessage());
  }
}
