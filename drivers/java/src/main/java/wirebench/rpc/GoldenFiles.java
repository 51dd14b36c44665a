package wirebench.rpc;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import wirebench.Failure;
import wirebench.Rng;
import wirebench.Suite;

/**
 * Golden messages (docs/protocol.md, `golden write` and `golden check`), as in the C++ and
 * Rust drivers: the pipe client and server of each cell (Impl.sendOnce, Impl.receiveOnce and
 * the serve loop), run against files instead of pipes. `write` runs the client's writing side
 * into DIR/X.requests (a fresh generator, reuse builders, so the bytes are deterministic:
 * single-segment capnp messages) and the server on X.requests into X.responses. `check` runs
 * the server on X.requests (whoever wrote it) and the client's reading side on X.responses,
 * and compares every answer with the expectation of the same request from a fresh generator.
 */
final class GoldenFiles implements Suite.Golden {
  /** Requests (and so responses) per golden file: the first ones from a fresh generator. */
  static final int GOLDEN_MESSAGES = 5;

  private static final String REQUESTS = ".requests";
  private static final String RESPONSES = ".responses";

  /** The Impl whose wire format a golden file of (case, lib, compression) is in, or null. */
  private static Impl<?> goldenImpl(String kase, String lib, String compression) {
    if (!RpcSuite.CASES.contains(kase)) {
      return null;
    }
    RpcSuite.RpcLib l = RpcSuite.SUITE.lib(lib);
    if (l == null || !l.compressions.contains(compression)) {
      return null;
    }
    return l.factory.make(kase, compression, true);
  }

  /**
   * The client's writing side alone: `n` requests from a fresh generator into `out`, in the
   * pipe wire format; returns each request's expectation.
   */
  static <C> long[] writeRequests(Impl<C> impl, int n, OutputStream out) throws Failure {
    C conn = impl.connect(InputStream.nullInputStream(), out);
    Rng rng = new Rng();
    long[] expectations = new long[n];
    for (int i = 0; i < n; ++i) {
      expectations[i] = impl.sendOnce(rng, conn, Loops.Expectations.NONE);
    }
    return expectations;
  }

  /**
   * The client's reading side alone: the responses of `in` must answer `expectations` one by
   * one, and the stream must end after the last. A failure names the file and the message,
   * with `whose` before its reason.
   */
  private static <C> void checkAnswers(
      Impl<C> impl, InputStream in, long[] expectations, String path, String whose)
      throws Failure {
    C conn = impl.connect(in, OutputStream.nullOutputStream());
    int n = expectations.length;
    for (int i = 0; i < n; ++i) {
      try {
        impl.receiveOnce(conn, expectations[i]);
      } catch (Loops.EndOfStream e) {
        throw new Failure(path + ": " + i + " messages, expected " + n);
      } catch (Failure e) {
        throw atMessage(path, i, new Failure(whose + e.getMessage()));
      }
    }
    Failure more = null;
    try {
      impl.receiveOnce(conn, expectations[n - 1]);
    } catch (Loops.EndOfStream e) {
      return;
    } catch (Failure e) {
      more = e;
    }
    throw atMessage(
        path,
        n,
        new Failure("more than " + n + " messages" + (more == null ? "" : ": " + more.getMessage())));
  }

  /** The server side alone: answers the requests of `in` into `out`, counting them. */
  private static <C> void serve(Impl<C> impl, InputStream in, OutputStream out, Loops.Served s)
      throws Failure {
    Loops.serve(impl, impl.connect(in, out), s);
  }

  private static Failure atMessage(String path, long index, Failure e) {
    return new Failure(path + ": message " + index + ": " + e.getMessage());
  }

  private static InputStream open(String path) throws Failure {
    try {
      return new FileInputStream(path);
    } catch (IOException e) {
      throw new Failure(path + ": cannot open: " + e.getMessage());
    }
  }

  private static FileOutputStream create(String path) throws Failure {
    try {
      return new FileOutputStream(path);
    } catch (IOException e) {
      throw new Failure(path + ": cannot open: " + e.getMessage());
    }
  }

  private static long[] freshExpectations(Impl<?> impl) throws Failure {
    return writeRequests(impl, GOLDEN_MESSAGES, OutputStream.nullOutputStream());
  }

  /** The server side: decodes the requests, answers them, and the answers must match. */
  private static void checkRequests(Impl<?> impl, String path, long[] expectations)
      throws Failure {
    ByteArrayOutputStream computed = new ByteArrayOutputStream();
    Loops.Served served = new Loops.Served();
    try (InputStream in = open(path)) {
      serve(impl, in, computed, served);
    } catch (Failure e) {
      throw atMessage(path, served.requests, e);
    } catch (IOException e) {
      throw new Failure(path + ": " + e.getMessage());
    }
    checkAnswers(
        impl,
        new ByteArrayInputStream(computed.toByteArray()),
        expectations,
        path,
        "the server's own response: ");
  }

  /** The client side: decodes the responses, whose answers must be the expectations. */
  private static void checkResponses(Impl<?> impl, String path, long[] expectations)
      throws Failure {
    try (InputStream in = open(path)) {
      checkAnswers(impl, in, expectations, path, "");
    } catch (IOException e) {
      throw new Failure(path + ": " + e.getMessage());
    }
  }

  /**
   * Writes DIR/<case>.<lib>.<compression>.{requests,responses} for every rpc case, library
   * and compression this driver supports, creating DIR if needed.
   */
  @Override
  public void write(String dir, Consumer<Suite.GoldenFile> report) throws Failure {
    File d = new File(dir);
    if (!d.isDirectory() && !d.mkdirs()) {
      throw new Failure(dir + ": cannot create directory");
    }
    for (String kase : RpcSuite.CASES) {
      for (RpcSuite.RpcLib lib : RpcSuite.SUITE.libs) {
        for (String compression : lib.compressions) {
          Impl<?> impl = goldenImpl(kase, lib.name, compression);
          if (impl == null) {
            continue;
          }
          String stem = kase + "." + lib.name + "." + compression;
          String requests = new File(d, stem + REQUESTS).getPath();
          String responses = new File(d, stem + RESPONSES).getPath();

          long[] written;
          try (FileOutputStream out = create(requests)) {
            written = writeRequests(impl, GOLDEN_MESSAGES, out);
            out.getFD().sync();
          } catch (Failure e) {
            throw new Failure(requests + ": " + e.getMessage());
          } catch (IOException e) {
            throw new Failure(requests + ": " + e.getMessage());
          }
          report.accept(
              new Suite.GoldenFile(
                  stem + REQUESTS, written.length, new File(requests).length(), false));

          Loops.Served served = new Loops.Served();
          try (InputStream in = open(requests);
              FileOutputStream out = create(responses)) {
            serve(impl, in, out, served);
            out.flush();
            out.getFD().sync();
          } catch (Failure e) {
            throw atMessage(requests, served.requests, e);
          } catch (IOException e) {
            throw new Failure(responses + ": " + e.getMessage());
          }
          if (served.requests != GOLDEN_MESSAGES) {
            throw new Failure(
                requests + ": the server answered " + served.requests + " requests, expected "
                    + GOLDEN_MESSAGES);
          }
          report.accept(
              new Suite.GoldenFile(
                  stem + RESPONSES, served.requests, new File(responses).length(), false));
        }
      }
    }
  }

  /**
   * Checks every DIR/<case>.<lib>.<compression>.requests file and its .responses file (in
   * name order), reporting each file checked or skipped. Fails naming the file and the
   * message at the first corrupt message, wrong answer or wrong count, or if no file could
   * be checked.
   */
  @Override
  public void check(String dir, Consumer<Suite.GoldenFile> report) throws Failure {
    String[] all = new File(dir).list();
    if (all == null) {
      throw new Failure(dir + ": cannot read directory");
    }
    List<String> names = new ArrayList<>();
    for (String n : all) {
      if (n.endsWith(REQUESTS)) {
        names.add(n);
      }
    }
    names.sort(null);
    long checked = 0;
    for (String name : names) {
      String stem = name.substring(0, name.length() - REQUESTS.length());
      String responsesName = stem + RESPONSES;
      String requests = new File(dir, name).getPath();
      String responses = new File(dir, responsesName).getPath();
      List<String> parts = Arrays.asList(stem.split("\\.", -1));
      Impl<?> impl =
          parts.size() == 3 ? goldenImpl(parts.get(0), parts.get(1), parts.get(2)) : null;
      if (impl == null) {
        report.accept(new Suite.GoldenFile(name, 0, 0, true));
        if (new File(responses).exists()) {
          report.accept(new Suite.GoldenFile(responsesName, 0, 0, true));
        }
        continue;
      }
      long[] expectations = freshExpectations(impl);
      checkRequests(impl, requests, expectations);
      report.accept(
          new Suite.GoldenFile(name, expectations.length, new File(requests).length(), false));
      checkResponses(impl, responses, expectations);
      report.accept(
          new Suite.GoldenFile(
              responsesName, expectations.length, new File(responses).length(), false));
      checked += 2;
    }
    if (checked == 0) {
      throw new Failure(
          dir + ": no golden files that this driver supports "
              + "(<case>.<lib>.<compression>.requests and .responses)");
    }
  }
}
