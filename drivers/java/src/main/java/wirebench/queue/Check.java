package wirebench.queue;

import wirebench.Failure;

/**
 * What a reader saw, checked as it reads: every entry's timestamp never below the one before,
 * every entry `longs` values, the values 0, 1, 2, ... in order across the whole process. Counts
 * and the wrapping sum of the values are kept for the evidence (entries_checked, check).
 */
final class Check {
  private final String lib;
  /** Values per entry: 1 (single, paced) or --iters (bulk). */
  final long longs;

  private long next;
  private long lastTimestamp = Long.MIN_VALUE;
  long entries;
  long sum;

  Check(String lib, long longs) {
    this.lib = lib;
    this.longs = longs;
  }

  /** An entry of `length` bytes stamped `timestamp`, before its values. */
  void entry(long timestamp, long length) throws Failure {
    if (length != 8 * longs) {
      throw new Failure(
          lib + " reader: entry " + entries + " holds " + length + " bytes, want " + 8 * longs);
    }
    if (timestamp < lastTimestamp) {
      throw new Failure(
          lib + " reader: entry " + entries + "'s timestamp " + timestamp
              + " is below the one before, " + lastTimestamp);
    }
    lastTimestamp = timestamp;
    ++entries;
  }

  void value(long v) throws Failure {
    if (v != next) {
      throw new Failure(
          lib + " reader: entry " + (entries - 1) + " holds the value " + v + ", want " + next);
    }
    sum += v;
    ++next;
  }

  /** The next value the reader must see (all before it were read and checked). */
  long expected() {
    return next;
  }
}
