package wirebench.rpc;

import java.io.InputStream;
import java.io.OutputStream;
import wirebench.Failure;
import wirebench.Rng;

/**
 * One library's work on one case, with one compression and reuse mode: what a library file
 * implements (its factory, registered in RpcSuite.LIBS, makes one per cell). It holds what the
 * library keeps between messages (builders, scratch, buffers); `C` is what it keeps per
 * connection (its readers and writers on a pipe's two streams). Everything else is written
 * once: in Loops (object, bytes, pipe, pipe-async and serve), RpcSuite (timing, roles) and
 * GoldenFiles.
 *
 * <p>Expectations, answers and terms are the cases' digest terms (docs/protocol.md):
 * carsales' total value, catrank's good count, eval's value sign-extended; a term is an
 * expectation whose answer has matched it ({@link Cases#verified}).
 *
 * <p>Each `...Once` method is one message's work, called by a loop of Loops once per
 * iteration (per side in pipe modes). The launcher keeps every `...Once` method from being
 * inlined into its loop (-XX:CompileCommand=dontinline,wirebench.*::*Once): each is compiled
 * on its own, with the library's work inlined into it, as soon as enough messages have gone
 * through it, while the loop, entered once per sample, stays a small compilation (see
 * Jit.java). An implementation is a final class, and one reaches each call site in a run.
 */
interface Impl<C> {
  /**
   * Mode object, one iteration: a request built from `rng`, handled into a response, and its
   * answer read, without serializing. Returns the term.
   */
  long objectOnce(Rng rng) throws Failure;

  /**
   * Mode bytes, one iteration: the same through the library's bytes (the request serialized,
   * parsed by the server, handled, the response serialized and parsed by the client, packed if
   * the cell is). Adds both messages' sizes to {@code t.bytes}; returns the term.
   */
  long bytesOnce(Rng rng, Loops.Tally t) throws Failure;

  /** The library's readers and writers on one side of a pipe (or a golden file's streams). */
  C connect(InputStream in, OutputStream out);

  /**
   * Builds the next request from `rng`, posts its expectation to `posted` (pipe-async's
   * receiver finds it there before the response can arrive), then writes the request to
   * `conn` in the pipe wire format and flushes. Returns the expectation.
   */
  long sendOnce(Rng rng, C conn, Loops.Expectations posted) throws Failure;

  /**
   * Reads one response from `conn`; returns the term once its answer has matched `expected`.
   * Throws {@link Loops.EndOfStream} at a clean end of file before a message.
   */
  long receiveOnce(C conn, long expected) throws Failure;

  /**
   * Reads one request from `conn`, handles it and writes its response, flushed; false at a
   * clean end of file at a message boundary.
   */
  boolean serveOnce(C conn) throws Failure;
}
