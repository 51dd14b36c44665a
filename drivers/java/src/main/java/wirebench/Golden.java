package wirebench;

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

/**
 * Golden messages (docs/protocol.md, `golden write` and `golden check`), as in the C++ and
 * Rust drivers: the pipe client and server of each cell, run against files instead of
 * pipes. `write` runs the client's writing side into DIR/X.requests (a fresh generator,
 * reuse builders, so the bytes are deterministic: single-segment capnp messages) and the
 * server on X.requests into X.responses. `check` runs the server on X.requests (whoever
 * wrote it) and the client's reading side on X.responses, and compares every answer with
 * the expectation of the same request from a fresh generator.
 */
final class Golden {
  private Golden() {}

  /** Requests (and so responses) per golden file: the first ones from a fresh generator. */
  static final int GOLDEN_MESSAGES = 5;

  private static final String REQUESTS = ".requests";
  private static final String RESPONSES = ".responses";

  /** One file written, checked or skipped. */
  static final class GoldenFile {
    final String name;
    final long messages;
    final long bytes;
    final boolean skipped;

    GoldenFile(String name, long messages, long bytes, boolean skipped) {
      this.name = name;
      this.messages = messages;
      this.bytes = bytes;
      this.skipped = skipped;
    }
  }

  /** The cell whose wire format a golden file of (case, lib, compression) is in, or null. */
  private static RpcCell goldenCell(String kase, String lib, String compression) {
    if (!Registry.RPC_CASES.contains(kase)) {
      return null;
    }
    Registry.RpcLib l = Registry.findRpcLib(lib);
    if (l == null || !l.compressions.contains(compression)) {
      return null;
    }
    return l.make.make(kase, compression, true);
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

  private static long[] freshExpectations(RpcCell cell) throws Failure {
    return cell.writeRequests(new Rng(), GOLDEN_MESSAGES, OutputStream.nullOutputStream());
  }

  private static void expectAnswers(
      String path, String whose, List<Long> answers, long[] expectations) throws Failure {
    for (int i = 0; i < Math.min(answers.size(), expectations.length); ++i) {
      if (answers.get(i) != expectations[i]) {
        throw new Failure(
            path + ": message " + i + ": " + whose + " answer is " + answers.get(i)
                + ", but request " + i + " of a fresh generator expects " + expectations[i]);
      }
    }
    if (answers.size() != expectations.length) {
      throw new Failure(
          path + ": " + answers.size() + " messages, expected " + expectations.length);
    }
  }

  /** The server side: decodes the requests, answers them, and the answers must match. */
  private static void checkRequests(RpcCell cell, String path, long[] expectations)
      throws Failure {
    ByteArrayOutputStream computed = new ByteArrayOutputStream();
    RpcCell.ServerStats stats = new RpcCell.ServerStats();
    try (InputStream in = open(path)) {
      cell.serve(in, computed, stats);
    } catch (Failure e) {
      throw atMessage(path, stats.requests, e);
    } catch (IOException e) {
      throw new Failure(path + ": " + e.getMessage());
    }
    List<Long> answers = new ArrayList<>();
    try {
      cell.readResponses(new ByteArrayInputStream(computed.toByteArray()), answers);
    } catch (Failure e) {
      throw atMessage(
          path,
          answers.size(),
          new Failure("the server's own response does not read back: " + e.getMessage()));
    }
    expectAnswers(path, "the server's", answers, expectations);
  }

  /** The client side: decodes the responses, whose answers must be the expectations. */
  private static void checkResponses(RpcCell cell, String path, long[] expectations)
      throws Failure {
    List<Long> answers = new ArrayList<>();
    try (InputStream in = open(path)) {
      cell.readResponses(in, answers);
    } catch (Failure e) {
      throw atMessage(path, answers.size(), e);
    } catch (IOException e) {
      throw new Failure(path + ": " + e.getMessage());
    }
    expectAnswers(path, "the response's", answers, expectations);
  }

  /**
   * Writes DIR/<case>.<lib>.<compression>.{requests,responses} for every rpc case, library
   * and compression this driver supports, creating DIR if needed.
   */
  static void write(String dir, Consumer<GoldenFile> report) throws Failure {
    File d = new File(dir);
    if (!d.isDirectory() && !d.mkdirs()) {
      throw new Failure(dir + ": cannot create directory");
    }
    for (String kase : Registry.RPC_CASES) {
      for (Registry.RpcLib lib : Registry.RPC_LIBS) {
        for (String compression : lib.compressions) {
          RpcCell cell = goldenCell(kase, lib.name, compression);
          if (cell == null) {
            continue;
          }
          String stem = kase + "." + lib.name + "." + compression;
          String requests = new File(d, stem + REQUESTS).getPath();
          String responses = new File(d, stem + RESPONSES).getPath();

          long[] written;
          try (FileOutputStream out = create(requests)) {
            written = cell.writeRequests(new Rng(), GOLDEN_MESSAGES, out);
            out.getFD().sync();
          } catch (Failure e) {
            throw new Failure(requests + ": " + e.getMessage());
          } catch (IOException e) {
            throw new Failure(requests + ": " + e.getMessage());
          }
          report.accept(
              new GoldenFile(stem + REQUESTS, written.length, new File(requests).length(), false));

          RpcCell.ServerStats stats = new RpcCell.ServerStats();
          try (InputStream in = open(requests);
              FileOutputStream out = create(responses)) {
            cell.serve(in, out, stats);
            out.flush();
            out.getFD().sync();
          } catch (Failure e) {
            throw atMessage(requests, stats.requests, e);
          } catch (IOException e) {
            throw new Failure(responses + ": " + e.getMessage());
          }
          if (stats.requests != GOLDEN_MESSAGES) {
            throw new Failure(
                requests + ": the server answered " + stats.requests + " requests, expected "
                    + GOLDEN_MESSAGES);
          }
          report.accept(
              new GoldenFile(
                  stem + RESPONSES, stats.requests, new File(responses).length(), false));
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
  static void check(String dir, Consumer<GoldenFile> report) throws Failure {
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
      RpcCell cell =
          parts.size() == 3 ? goldenCell(parts.get(0), parts.get(1), parts.get(2)) : null;
      if (cell == null) {
        report.accept(new GoldenFile(name, 0, 0, true));
        if (new File(responses).exists()) {
          report.accept(new GoldenFile(responsesName, 0, 0, true));
        }
        continue;
      }
      long[] expectations = freshExpectations(cell);
      checkRequests(cell, requests, expectations);
      report.accept(
          new GoldenFile(name, expectations.length, new File(requests).length(), false));
      checkResponses(cell, responses, expectations);
      report.accept(
          new GoldenFile(
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
