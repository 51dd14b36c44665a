package wirebench.rpc;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import wirebench.Failure;
import wirebench.Jit;
import wirebench.Json;
import wirebench.Output;
import wirebench.Rng;
import wirebench.Run;
import wirebench.Suite;
import wirebench.Timing;
import wirebench.Usage;

/**
 * The rpc suite (docs/protocol.md, suite rpc): the Cap'n Proto benchmark cases, request and
 * response with computation at both ends. This class is the suite as the registry sees it
 * (cases, parameters, the library registry, the rule that object mode has no compression)
 * and its run: local, client, server, or a pipe cell with a server of its own.
 *
 * <p>A pipe cell without --role runs its own server: a second thread of this process, joined
 * to the client by two java.nio pipes, running exactly the code of --role server.
 */
public final class RpcSuite extends Suite<RpcSuite.RpcLib> {
  /** The library's work on one case: its Impl, or null if it has no such case. */
  interface Factory {
    Impl<?> make(String kase, String compression, boolean reuse);
  }

  /** A library of the rpc suite: the compressions it supports, its versions, its factory. */
  public static final class RpcLib extends Suite.Lib {
    final List<String> compressions;
    final Factory factory;

    RpcLib(String name, List<String> compressions, Map<String, String> versions, Factory f) {
      super(name, Map.of("compression", compressions), versions);
      this.compressions = compressions;
      this.factory = f;
    }
  }

  /** The library registry, in the order of `list`: one line per library. */
  static final List<RpcLib> LIBS =
      List.of(
          new RpcLib(
              "capnp",
              List.of("none", "packed"),
              Lib.maven("capnp", "org.capnproto", "runtime"),
              CapnpRpc::make),
          new RpcLib(
              "protobuf",
              List.of("none"),
              Lib.maven("protobuf", "com.google.protobuf", "protobuf-java"),
              ProtobufRpc::make),
          new RpcLib("null", List.of("none"), Map.of(), NullRpc::make));

  static final List<String> CASES = List.of("carsales", "catrank", "eval");
  static final List<String> MODES = List.of("object", "bytes", "pipe", "pipe-async");

  public static final RpcSuite SUITE = new RpcSuite();

  private RpcSuite() {
    super(
        "rpc",
        CASES,
        List.of(
            new Param("mode", MODES),
            new Param("compression", List.of("none", "packed")),
            new Param("reuse", List.of("reuse", "no-reuse"))),
        LIBS,
        List.of());
  }

  private static boolean isPipe(String mode) {
    return mode.equals("pipe") || mode.equals("pipe-async");
  }

  /** Object mode serializes nothing, so it has no compression. */
  @Override
  public String refuse(RpcLib lib, Map<String, String> params) {
    String compression = params.get("compression");
    if (params.get("mode").equals("object") && !compression.equals("none")) {
      return "compression " + compression + " does not apply to mode object";
    }
    return null;
  }

  /**
   * A pipe cell runs as client, as server, or (no --role) with a server of its own; the other
   * modes are local.
   */
  @Override
  public void prepare(Run<RpcLib> run) throws Usage {
    String mode = run.param("mode");
    if (run.role.isEmpty()) {
      run.role = isPipe(mode) ? "" : "local";
    } else if (isPipe(mode) && run.role.equals("local")) {
      throw new Usage(
          "--role local is not possible with --mode " + mode
              + " (use client or server, or no --role to run a server of its own)");
    } else if (!isPipe(mode) && !run.role.equals("local")) {
      throw new Usage("--role " + run.role + " needs a pipe mode (pipe or pipe-async)");
    }
  }

  @Override
  public Suite.Golden golden() {
    return new GoldenFiles();
  }

  /** The run's Impl: its library's work on its case. */
  private static Impl<?> impl(Run<RpcLib> run) throws Usage {
    Impl<?> impl =
        run.lib.factory.make(
            run.kase, run.param("compression"), run.param("reuse").equals("reuse"));
    if (impl == null) {
      throw new Usage("combination not supported: " + run.lib.name + " " + run.kase);
    }
    return impl;
  }

  @Override
  public void run(Run<RpcLib> run) throws Failure, Usage {
    switch (run.role) {
      case "server":
      case "client":
        {
          String in = fdPath(run.inFd, "--in-fd");
          String out = fdPath(run.outFd, "--out-fd");
          InputStream input;
          OutputStream output;
          try {
            input = new FileInputStream(in);
            // Append: if the fd is a file (a test's stdout), write where it is, not at 0.
            output = new FileOutputStream(out, true);
          } catch (IOException e) {
            throw Failure.of("cannot open the fds", e);
          }
          if (run.role.equals("server")) {
            runServer(run, input, output);
          } else {
            runClient(run, impl(run), input, output).print(run, "client");
          }
          return;
        }
      case "":
        runWithServerThread(run).print(run, "local");
        return;
      default:
        Client<?> c = new Client<>(run, impl(run), null, null);
        c.measure();
        c.print(run, "local");
    }
  }

  // ---- the client: the timed side -------------------------------------------------------

  /**
   * The timed side of a cell: the generator and tally of the run of iterations under way, the
   * connection of a pipe cell (counted at the fds), and the samples so far. The generator is
   * reset at the start of the warm-up, of every JIT warm-up round and of every sample.
   */
  static final class Client<C> implements Timing.Sampler {
    private final Run<RpcLib> run;
    private final Impl<C> impl;
    private final String mode;
    private final Io.CountingIn in;
    private final Io.CountingOut out;
    private final C conn;
    private final Rng rng = new Rng();
    private Loops.Tally t = new Loops.Tally();
    private final List<Long> bytes = new ArrayList<>();
    private final List<Long> check = new ArrayList<>();
    private long responses;
    private Timing.Measured measured;

    /** A client of mode object or bytes (no streams), or of a pipe mode on in and out. */
    Client(Run<RpcLib> run, Impl<C> impl, InputStream in, OutputStream out) {
      this.run = run;
      this.impl = impl;
      this.mode = run.param("mode");
      this.in = in == null ? null : new Io.CountingIn(in);
      this.out = out == null ? null : new Io.CountingOut(out);
      this.conn = in == null ? null : impl.connect(this.in, this.out);
    }

    private long counts() {
      return in.count + out.count;
    }

    @Override
    public void reset() {
      t = new Loops.Tally();
      rng.reset();
    }

    @Override
    public void iterate(long n) throws Failure {
      switch (mode) {
        case "object":
          Loops.object(impl, rng, n, t);
          break;
        case "bytes":
          Loops.bytes(impl, rng, n, t);
          break;
        case "pipe":
          {
            long before = counts();
            Loops.pipe(impl, conn, rng, n, t);
            t.bytes += counts() - before;
            break;
          }
        default:
          {
            long before = counts();
            Loops.pipeAsync(impl, conn, rng, n, t);
            t.bytes += counts() - before;
          }
      }
    }

    @Override
    public void done() {
      responses += t.responses;
    }

    @Override
    public void sample() {
      bytes.add(t.bytes);
      check.add(t.check);
    }

    void measure() throws Failure {
      measured = Timing.measure(run, this);
    }

    /** Flushes and closes the output (the server then sees end of file). */
    void close() throws Failure {
      try {
        out.flush();
        out.close();
      } catch (IOException e) {
        throw Failure.of("I/O error", e);
      }
    }

    Jit.Report jit() {
      return measured.jit;
    }

    void print(Run<RpcLib> run, String role) {
      Output.printResult(
          run,
          role,
          measured,
          new Json().raw("bytes", Output.samples("B", run.iters, bytes)),
          new Json().list("check", check).num("responses_checked", responses));
    }
  }

  /** Times a pipe client on in and out, then closes out. */
  private static <C> Client<C> runClient(
      Run<RpcLib> run, Impl<C> impl, InputStream in, OutputStream out) throws Failure {
    Client<C> c = new Client<>(run, impl, in, out);
    c.measure();
    c.close();
    return c;
  }

  // ---- the server -----------------------------------------------------------------------

  private static String fdPath(int fd, String flag) throws Usage {
    File f = new File("/proc/self/fd/" + fd);
    if (!f.exists()) {
      throw new Usage(flag + " " + fd + " is not an open fd");
    }
    return f.getPath();
  }

  /**
   * A server's own warm-up, before it reads its first request: the cell's pipe workload
   * between a client and a server thread of this process (as without --role), in rounds of
   * --iters iterations, until the JIT has settled by the client's rule (Jit.java). The
   * client at the other end may be in a language with no JIT, whose short warm-up would
   * otherwise leave this server compiling during that client's timed samples, where
   * neither side could see it. The client waits for its first response meanwhile, inside
   * its own untimed warm-up.
   */
  private static Jit.Report warmServer(Run<RpcLib> run) throws Failure, Usage {
    Run<RpcLib> own = run.copy();
    own.role = "";
    own.samples = 0;
    return runWithServerThread(own).jit();
  }

  /** Answers requests until a clean end of file; `served` counts them as it goes. */
  private static <C> void serve(Impl<C> impl, InputStream in, OutputStream out, Loops.Served s)
      throws Failure {
    Loops.serve(impl, impl.connect(in, out), s);
  }

  private static void runServer(Run<RpcLib> run, InputStream in, OutputStream out)
      throws Failure, Usage {
    Jit.Report warm = run.iters > 0 ? warmServer(run) : null;
    long compilesBefore = Jit.counter();
    Impl<?> impl = impl(run);
    Io.CountingIn cin = new Io.CountingIn(in);
    Io.CountingOut cout = new Io.CountingOut(out);
    Loops.Served served = new Loops.Served();
    try {
      serve(impl, cin, cout, served);
      cout.flush();
    } catch (IOException e) {
      throw Failure.of("I/O error", e);
    } catch (Failure e) {
      throw new Failure("request " + served.requests + ": " + e.getMessage());
    }
    Output.printServer(
        run,
        new Json()
            .num("requests", served.requests)
            .num("bytes_in", cin.count)
            .num("bytes_out", cout.count)
            .raw(
                "jit",
                warm == null
                    ? new Json().num("compile_ms", Jit.compileMs()).text()
                    : warm.json())
            // Compilations while serving the client (after the warm-up): what the rule missed.
            .num("serve_compiles", Jit.counter() - compilesBefore));
  }

  /** A pipe cell without --role: a server thread of this process on two pipes. */
  private static Client<?> runWithServerThread(Run<RpcLib> run) throws Failure, Usage {
    Pipe toServer;
    Pipe toClient;
    try {
      toServer = Pipe.open();
      toClient = Pipe.open();
    } catch (IOException e) {
      throw Failure.of("pipe() failed", e);
    }
    Impl<?> serverImpl = impl(run);
    Thread server =
        new Thread(
            () -> {
              try {
                serve(
                    serverImpl,
                    Channels.newInputStream(toServer.source()),
                    Channels.newOutputStream(toClient.sink()),
                    new Loops.Served());
                toClient.sink().close();
                toServer.source().close();
              } catch (Throwable e) {
                Output.die("server: " + Output.describe(e));
              }
            },
            "server");
    server.start();
    Client<?> c =
        runClient(
            run,
            impl(run),
            Channels.newInputStream(toClient.source()),
            Channels.newOutputStream(toServer.sink()));
    try {
      server.join();
      toClient.source().close();
    } catch (InterruptedException | IOException e) {
      throw Failure.of("server thread", e);
    }
    return c;
  }
}
