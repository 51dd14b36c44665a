package wirebench.queue;

import java.io.IOException;

/**
 * The queue suite's run loops, written once for every library. `single` has two: a run timed
 * whole (no timer read among its writes), and a run whose every write is timed by the monotonic
 * clock just before start and just after end (t0, t1) and recorded after t1, so the recorder's
 * cost is in no write's time. A timed write is one call of a `...Once` method, which
 * the launcher keeps from being inlined into the loop (-XX:CompileCommand=dontinline,
 * wirebench.*::*Once): it is compiled as soon as enough writes have gone through it, whatever
 * the run's size, with the library's start, writeLong and end inlined into it.
 */
final class Loops {
  private final Impl q;
  /** The next value to write: 0, 1, 2, ... across the process (warm-up included). */
  private long value;
  /** t1 of the last write (paced: its latency from its scheduled start). */
  private long t1;

  Loops(Impl q) {
    this.q = q;
  }

  /**
   * `single` timed whole: `iters` writes of one value each, with no timer read among them (a
   * clock read costs about what a write does); returns the run's time, t1 - t0.
   */
  long singleWhole(long iters) throws IOException {
    long ns = singleWholeOnce(value, Math.toIntExact(iters));
    value += iters;
    return ns;
  }

  long singleWholeOnce(long first, int n) throws IOException {
    long t0 = System.nanoTime();
    for (int i = 0; i < n; ++i) {
      q.start(8);
      q.writeLong(first + i);
      q.end();
    }
    return System.nanoTime() - t0;
  }

  /**
   * `single` timed write by write: `iters` writes of one value each; returns the sum of their
   * service times.
   */
  long single(long iters, Intervals latency) throws IOException {
    long sum = 0;
    for (long i = 0; i < iters; ++i) {
      long service = singleOnce(value++);
      latency.record(service, t1);
      sum += service;
    }
    return sum;
  }

  long singleOnce(long v) throws IOException {
    long t0 = System.nanoTime();
    q.start(8);
    q.writeLong(v);
    q.end();
    long t = System.nanoTime();
    t1 = t;
    return t - t0;
  }

  /** `bulk`: one write of `iters` values; returns its service time. */
  long bulk(long iters, Intervals latency) throws IOException {
    long service = bulkOnce(value, (int) iters);
    value += iters;
    latency.record(service, t1);
    return service;
  }

  long bulkOnce(long first, int n) throws IOException {
    long t0 = System.nanoTime();
    q.start(8 * n);
    for (int i = 0; i < n; ++i) {
      q.writeLong(first + i);
    }
    q.end();
    long t = System.nanoTime();
    t1 = t;
    return t - t0;
  }

  /**
   * `paced`: `iters` writes of one value, write i scheduled at T + i * period (T the run's
   * start): it spins until then, or starts at once if late (open loop), and records its latency
   * from the scheduled start, so that a stall delays the writes behind it in the figures too.
   */
  long paced(long iters, long periodNs, Intervals latency, Intervals service) throws IOException {
    long sum = 0;
    long start = System.nanoTime();
    for (long i = 0; i < iters; ++i) {
      long scheduled = start + i * periodNs;
      while (System.nanoTime() < scheduled) {
        // spin: a sleep would wake up late
      }
      long s = singleOnce(value++);
      latency.record(t1 - scheduled, t1);
      service.record(s, t1);
      sum += s;
    }
    return sum;
  }
}
