package wirebench.rpc;

import wirebench.Failure;
import wirebench.Output;
import wirebench.Rng;

/**
 * The loops of every rpc mode, written once for every library (Impl): object, bytes, pipe,
 * pipe-async and serve. Each iteration is one call of the library's `...Once` method (per
 * side in pipe modes), which the launcher keeps from being inlined into the loop (see Impl)
 * and which checks the answer against its expectation; the loop sums the digest and counts.
 */
final class Loops {
  private Loops() {}

  /** What the client side accumulates over a run of iterations. */
  static final class Tally {
    long bytes;
    /** Wrapping sum of the digest terms (docs/protocol.md, check digests). */
    long check;

    long responses;
  }

  /** The client's failure at an end of file where a response should be. */
  static final class EndOfStream extends Failure {
    private static final long serialVersionUID = 1L;

    EndOfStream() {
      super("unexpected end of file before a response");
    }
  }

  /**
   * The expectations pipe-async's sender posts and its receiver takes, in order: an unbounded
   * queue of longs (no boxing), guarded by its monitor. {@link #NONE} is the one of pipe mode
   * and of golden files, where nobody waits for them: posting to it does nothing.
   */
  static final class Expectations {
    static final Expectations NONE = new Expectations(false);

    private final boolean taken;
    private long[] items = new long[1024];
    private int head;
    private int size;

    Expectations(boolean taken) {
      this.taken = taken;
    }

    /** The request's expectation, posted before the request is sent. */
    void post(long v) {
      if (taken) {
        put(v);
      }
    }

    private synchronized void put(long v) {
      if (size == items.length) {
        long[] bigger = new long[2 * items.length];
        for (int i = 0; i < size; ++i) {
          bigger[i] = items[(head + i) % items.length];
        }
        items = bigger;
        head = 0;
      }
      items[(head + size) % items.length] = v;
      ++size;
      if (size == 1) {
        notifyAll();
      }
    }

    synchronized long take() throws InterruptedException {
      while (size == 0) {
        wait();
      }
      long v = items[head];
      head = (head + 1) % items.length;
      --size;
      return v;
    }
  }

  /** Requests a server has answered so far (so that a failure can name the message). */
  static final class Served {
    long requests;
  }

  // ---- object and bytes -----------------------------------------------------------------

  static <C> void object(Impl<C> impl, Rng rng, long iters, Tally t) throws Failure {
    for (long i = 0; i < iters; ++i) {
      long term = impl.objectOnce(rng);
      t.check += term;
      ++t.responses;
    }
  }

  /** Mode bytes: {@code t.bytes} gets both messages' sizes. */
  static <C> void bytes(Impl<C> impl, Rng rng, long iters, Tally t) throws Failure {
    for (long i = 0; i < iters; ++i) {
      long term = impl.bytesOnce(rng, t);
      t.check += term;
      ++t.responses;
    }
  }

  // ---- pipe and pipe-async (bytes are counted at the fds, by the caller) -----------------

  /** Mode pipe: sends one request, then receives and checks its response. */
  static <C> void pipe(Impl<C> impl, C conn, Rng rng, long iters, Tally t) throws Failure {
    for (long i = 0; i < iters; ++i) {
      long term = impl.receiveOnce(conn, impl.sendOnce(rng, conn, Expectations.NONE));
      t.check += term;
      ++t.responses;
    }
  }

  /**
   * Mode pipe-async: the calling thread sends every request while a second thread receives
   * and checks the responses, in order. A failure on either side cannot be unwound safely (the
   * other side may be blocked on the pipe), so it ends the process with exit status 1 after
   * saying why, as the C++ and Rust drivers do.
   */
  static <C> void pipeAsync(Impl<C> impl, C conn, Rng rng, long iters, Tally t) {
    Expectations expectations = new Expectations(true);
    Thread receiver =
        new Thread(
            () -> {
              try {
                for (long i = 0; i < iters; ++i) {
                  long term = impl.receiveOnce(conn, expectations.take());
                  t.check += term;
                  ++t.responses;
                }
              } catch (Throwable e) {
                Output.die("pipe-async receiver: " + Output.describe(e));
              }
            },
            "pipe-async-receiver");
    receiver.start();
    try {
      for (long i = 0; i < iters; ++i) {
        impl.sendOnce(rng, conn, expectations);
      }
    } catch (Throwable e) {
      Output.die("pipe-async sender: " + Output.describe(e));
    }
    try {
      receiver.join();
    } catch (InterruptedException e) {
      Output.die("pipe-async: interrupted");
    }
  }

  // ---- serve ----------------------------------------------------------------------------

  /**
   * The server: answers requests from `conn` until a clean end of file at a message boundary,
   * counting them in `served` as it goes.
   */
  static <C> void serve(Impl<C> impl, C conn, Served served) throws Failure {
    while (impl.serveOnce(conn)) {
      ++served.requests;
    }
  }
}
