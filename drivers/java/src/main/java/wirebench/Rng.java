package wirebench;

/**
 * The deterministic generator every rpc client draws from (docs/workloads.md): the 128-bit
 * xorshift of the Cap'n Proto benchmarks. Java has no unsigned int: the four words are
 * ints, shifted right with {@code >>>}, and a draw is widened with {@code & 0xffffffffL}
 * where its unsigned value matters (remainder, conversion to double).
 *
 * <p>The state is an explicit object passed to whatever builds requests (not a global): in
 * pipe-async the sending thread draws while the timing loop owns the reset.
 */
public final class Rng {
  private int x;
  private int y;
  private int z;
  private int w;

  public Rng() {
    reset();
  }

  /** Back to the initial state (start of the warm-up and of every sample). */
  public void reset() {
    x = 0x1d2acd47;
    y = 0x58ca3e14;
    z = 0xf563f232;
    w = 0x0bc76199;
  }

  /** One step; the result is an unsigned 32-bit value held in an int. */
  public int next() {
    int t = x ^ (x << 11);
    x = y;
    y = z;
    z = w;
    w = w ^ (w >>> 19) ^ t ^ (t >>> 8);
    return w;
  }

  /** {@code next() % n}, unsigned; n is small and positive, and so is the result. */
  public int rand(int n) {
    return (int) ((next() & 0xffffffffL) % n);
  }

  /** {@code double(next()) * range / 4294967295.0}. */
  public double randDouble(double range) {
    return (double) (next() & 0xffffffffL) * range / 4294967295.0;
  }
}
