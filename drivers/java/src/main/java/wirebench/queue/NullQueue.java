package wirebench.queue;

import wirebench.Failure;
import wirebench.Json;

/**
 * Lib `null`, the floor: the same loop storing each entry's timestamp and values into a heap
 * array allocated (and so zeroed, touched) before the first run, with no header and no
 * publication (ordering `none`). Its reader walks the array with the layout the run wrote:
 * entries of one timestamp and `longs` values.
 */
final class NullQueue implements Impl {
  private final long[] store;
  private final long longs;
  private int pos;

  /** Room for one run: `entries` entries of `longs` values. */
  NullQueue(long entries, long longs) {
    this.longs = longs;
    this.store = new long[Math.toIntExact(entries * (1 + longs))];
  }

  /** The most values one entry may hold (a bulk run's --iters): a Java array's bound. */
  static final long MAX_LONGS = Integer.MAX_VALUE / 8 - 16;

  @Override
  public void start(int maxLength) {
    store[pos++] = System.nanoTime();
  }

  @Override
  public void writeLong(long v) {
    store[pos++] = v;
  }

  @Override
  public void end() {}

  @Override
  public void pretouch() {}

  @Override
  public void readBack(Check check) throws Failure {
    int n = pos;
    if (n % (1 + longs) != 0) {
      throw new Failure("null reader: " + n + " longs stored, not whole entries of " + longs);
    }
    for (int at = 0; at < n; at += 1 + (int) longs) {
      check.entry(store[at], 8 * longs);
      for (int i = 1; i <= longs; ++i) {
        check.value(store[at + i]);
      }
    }
    pos = 0; // the next run writes over this one
  }

  @Override
  public Json evidence() {
    return new Json().num("cycle_size", 0).num("cycles", 0);
  }

  @Override
  public void close() {}
}
