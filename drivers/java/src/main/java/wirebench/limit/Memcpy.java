package wirebench.limit;

import java.util.Arrays;
import wirebench.Failure;
import wirebench.Timing;

/**
 * Suite `limit`, case `memcpy`: how fast this machine copies a block. The arrays are
 * allocated and touched before timing; each iteration copies one block from `src` to `dst`
 * with System.arraycopy (an intrinsic: the JIT emits the same vectorised copy loop as
 * memcpy); the copy is verified after the warm-up and after each round and sample, outside
 * the timing. The JIT cannot drop the copies: `dst` is a field, its contents are observed by
 * verify().
 */
final class Memcpy implements Timing.Sampler {
  private final byte[] src;
  private final byte[] dst;

  Memcpy(int block) {
    src = new byte[block];
    for (int i = 0; i < block; ++i) {
      src[i] = (byte) (i * 131 + (i >>> 12));
    }
    dst = new byte[block];
  }

  /** Makes dst differ from src, so that verify() proves the copies ran. */
  @Override
  public void reset() {
    Arrays.fill(dst, (byte) 0xa5);
  }

  @Override
  public void iterate(long iters) {
    int n = src.length;
    for (long i = 0; i < iters; ++i) {
      System.arraycopy(src, 0, dst, 0, n);
    }
  }

  @Override
  public void done() throws Failure {
    if (!Arrays.equals(src, dst)) {
      throw new Failure("memcpy: the copy differs from the source");
    }
  }

  @Override
  public void sample() {}
}
