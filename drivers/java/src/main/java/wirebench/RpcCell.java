package wirebench;

import java.io.InputStream;
import java.io.OutputStream;

/**
 * One rpc cell (case x lib x compression x reuse); the mode picks the method. The pipe
 * client keeps its streams between calls, so that warm-up and samples share one connection.
 */
interface RpcCell {
  /** What the client side accumulates over a run of iterations. */
  final class Tally {
    long bytes;
    /** Wrapping sum of the answers (docs/protocol.md, check digests). */
    long check;
    long responses;
  }

  final class ServerStats {
    long requests;
    long bytesIn;
    long bytesOut;
  }

  void object(Rng rng, long iters, Tally t) throws Failure;

  void bytes(Rng rng, long iters, Tally t) throws Failure;

  /** The client's streams, counting every byte (Io.CountingIn/CountingOut). */
  void openClient(Io.CountingIn in, Io.CountingOut out);

  void pipe(Rng rng, long iters, Tally t) throws Failure;

  void pipeAsync(Rng rng, long iters, Tally t) throws Failure;

  /** Flushes and closes the client's output (the server then sees end of file). */
  void closeClient() throws Failure;

  /**
   * Answers requests from `in` into `out` until a clean end of file at a message boundary,
   * counting in `stats.requests` as it goes (so that a failure can name the message).
   */
  void serve(InputStream in, OutputStream out, ServerStats stats) throws Failure;

  /**
   * The client's writing side alone: `n` requests drawn from `rng` into `out`, in the pipe
   * wire format; returns each request's expectation (its digest term).
   */
  long[] writeRequests(Rng rng, int n, OutputStream out) throws Failure;

  /**
   * The client's reading side alone: reads responses until a clean end of file, adding
   * each one's answer (its digest term) to `answers` as it goes.
   */
  void readResponses(InputStream in, java.util.List<Long> answers) throws Failure;
}
