package wirebench.queue;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.HdrHistogram.Histogram;
import wirebench.Json;

/**
 * One histogram metric of the queue suite (latency or service) per second of wall time: each
 * value goes into the histogram of the second its write ended in (t1), counted from `origin`
 * (the first timed run's start). A write pays one comparison to find its second; a second's
 * histogram is swapped for a spare one when it ends, and encoded, added into the total and
 * returned to the spares between runs (settle), outside the timed region.
 */
final class Intervals {
  /** docs/protocol.md: 3 significant digits, lowest 1, highest an hour. */
  static Histogram histogram() {
    return new Histogram(1, 3_600_000_000_000L, 3);
  }

  static final long SECOND = 1_000_000_000L;

  private long origin;
  private Histogram current;
  private long currentIndex;
  private long currentEnd;
  private final ArrayDeque<Histogram> spares = new ArrayDeque<>();
  private final List<Histogram> ended = new ArrayList<>();
  private final List<Long> endedIndex = new ArrayList<>();
  /** Every value recorded, for the metric. */
  final Histogram total = histogram();
  /** The encoded histogram of each second, from second 0 (empty seconds too). */
  private final List<String> encoded = new ArrayList<>();

  /** `spares`: seconds one run may span (paced), so that no write waits for an allocation. */
  Intervals(int spares) {
    for (int i = 0; i < spares; ++i) {
      this.spares.add(histogram());
    }
    current = histogram();
    begin(System.nanoTime());
  }

  /** Second 0 starts now (the first timed run's start). */
  void begin(long now) {
    origin = now;
    currentIndex = 0;
    currentEnd = origin + SECOND;
  }

  /** Records `value` for a write that ended at `t1`. */
  void record(long value, long t1) {
    if (t1 >= currentEnd) {
      next(t1);
    }
    current.recordValue(value);
  }

  private void next(long t1) {
    ended.add(current);
    endedIndex.add(currentIndex);
    Histogram h = spares.poll();
    current = h != null ? h : histogram();
    currentIndex = (t1 - origin) / SECOND;
    currentEnd = origin + (currentIndex + 1) * SECOND;
  }

  /** Between runs: the ended seconds into the total and the list; their histograms reused. */
  void settle() {
    for (int i = 0; i < ended.size(); ++i) {
      Histogram h = ended.get(i);
      add(endedIndex.get(i), h);
      h.reset();
      spares.add(h);
    }
    ended.clear();
    endedIndex.clear();
  }

  private void add(long index, Histogram h) {
    while (encoded.size() < index) {
      encoded.add(EMPTY);
    }
    encoded.add(encode(h));
    total.add(h);
  }

  /** After the last run: the current second too. */
  void finish() {
    settle();
    if (current.getTotalCount() > 0) {
      add(currentIndex, current);
      current.reset();
    }
  }

  /** The metric: {"unit": "ns", "histogram": ...}. */
  String metric() {
    return new Json().str("unit", "ns").str("histogram", encode(total)).text();
  }

  /** The intervals: [{"start_ms": 0, "length_ms": 1000, "histogram": ...}, ...]. */
  String intervals() {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < encoded.size(); ++i) {
      if (i > 0) {
        b.append(", ");
      }
      b.append(
          new Json()
              .num("start_ms", i * 1000L)
              .num("length_ms", 1000)
              .str("histogram", encoded.get(i))
              .text());
    }
    return b.append(']').toString();
  }

  /** HdrHistogram's V2 compressed encoding, base64 (what the harness's hdrh decodes). */
  static String encode(Histogram h) {
    ByteBuffer b = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(b);
    return Base64.getEncoder().encodeToString(Arrays.copyOf(b.array(), n));
  }

  private static final String EMPTY = encode(histogram());
}
