package wirebench;

import java.util.ArrayList;
import java.util.List;

/**
 * The timing loop every suite shares: the requested warm-up, the JIT's warm-up rounds
 * (Jit.java), then the timed samples, each a monotonic clock around its iterations and
 * nothing else.
 */
public final class Timing {
  private Timing() {}

  /** A suite's side of the timing loop. */
  public interface Sampler {
    /**
     * Untimed, before the warm-up, every round and every sample: the rpc generator back to its
     * initial state, memcpy's destination scrambled.
     */
    void reset();

    /** Runs `n` iterations: the only timed code. */
    void iterate(long n) throws Failure;

    /** Untimed, after the warm-up, every round and every sample: checks and counts. */
    void done() throws Failure;

    /** Untimed, after a timed sample's done(): keeps the sample's totals. */
    void sample();
  }

  /** What the timing loop measured. */
  public static final class Measured {
    /** Each sample's wall time. */
    public final List<Long> ns = new ArrayList<>();
    /** Every iteration run before the first sample: the requested warm-up plus the rounds. */
    public long warmup;

    public Jit.Report jit;
  }

  /**
   * Runs the warm-up (if any), the JIT's rounds and the timed samples of `run`. The JIT's
   * rounds and the samples run the same code, one sample's workload from a reset sampler, so
   * that a round's time predicts a sample's.
   */
  public static Measured measure(Run<?> run, Sampler s) throws Failure {
    Measured m = new Measured();
    if (run.warmup > 0) {
      s.reset();
      s.iterate(run.warmup);
      s.done();
    }
    Jit.Round sample =
        () -> {
          s.reset();
          long t0 = System.nanoTime();
          s.iterate(run.iters);
          long ns = System.nanoTime() - t0;
          s.done();
          return ns;
        };
    m.jit = Jit.settle(sample);
    m.warmup = run.warmup + (long) m.jit.rounds() * run.iters;
    for (long i = 0; i < run.samples; ++i) {
      long compiles = Jit.counter();
      long ns = sample.run();
      m.jit.sampleCompiles.add(Jit.counter() - compiles);
      m.ns.add(ns);
      s.sample();
    }
    return m;
  }
}
