package wirebench;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * wirebench-java: the Java driver. Implements docs/protocol.md (commands info, list, run,
 * golden), the timing loop, the roles of pipe cells and the JSON results, like the C++ and
 * Rust drivers (drivers/cpp/src/main.cpp, drivers/rust/src/main.rs).
 *
 * <p>Java adds one thing to the protocol's warm-up: after the requested warm-up iterations
 * the client warms up in rounds until the JIT has settled (Jit.java); the result's
 * "warmup" is every iteration run before the first sample, and "jit" says how it went.
 *
 * <p>A pipe cell without --role runs its own server: a second thread of this process,
 * joined to the client by two java.nio pipes, running exactly the code of --role server.
 */
public final class Main {
  private Main() {}

  static final int PROTOCOL = 2;
  /** The driver's identity (docs/protocol.md) beside its language. */
  static final String TOOLCHAIN = "openjdk";
  /** Fixtures the harness may hand a cell (docs/protocol.md); no suite here takes any. */
  private static final List<String> FIXTURE_FLAGS = List.of("input", "work-dir", "out-dir");

  /** Bad usage: exit status 2. */
  static final class Usage extends Exception {
    private static final long serialVersionUID = 1L;

    Usage(String message) {
      super(message, null, false, false);
    }
  }

  private static final PrintStream OUT =
      new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);

  static void printLine(String line) {
    OUT.print(line);
    OUT.print('\n');
    OUT.flush();
  }

  /** Says why on stderr and exits 1 (a failed run), from any thread. */
  static void die(String message) {
    System.err.println("wirebench-java: error: " + message);
    System.err.flush();
    OUT.flush();
    System.exit(1);
  }

  static String describe(Throwable e) {
    if (e instanceof Failure) {
      return e.getMessage();
    }
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }

  static String compiler() {
    return System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
  }

  // ---- command line ---------------------------------------------------------------------

  private static final List<String> RUN_FLAGS =
      List.of(
          "suite", "case", "lib", "mode", "compression", "reuse", "block", "iters", "samples",
          "warmup", "role", "in-fd", "out-fd", "input", "work-dir", "out-dir");

  static Map<String, String> parseRunFlags(List<String> argv) throws Usage {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 0; i < argv.size(); ++i) {
      String a = argv.get(i);
      if (!a.startsWith("--")) {
        throw new Usage("unexpected argument '" + a + "'");
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (!RUN_FLAGS.contains(name)) {
        throw new Usage("unknown flag --" + name);
      }
      if (value == null) {
        if (i + 1 >= argv.size()) {
          throw new Usage("flag --" + name + " needs a value");
        }
        value = argv.get(++i);
      }
      if (flags.containsKey(name)) {
        throw new Usage("flag --" + name + " given twice");
      }
      flags.put(name, value);
    }
    return flags;
  }

  static long parseCount(Map<String, String> args, String name, long min) throws Usage {
    String s = args.get(name);
    if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
      throw new Usage("bad value for --" + name + ": '" + s + "' (want a decimal integer)");
    }
    long v = Long.parseLong(s);
    if (v < min) {
      throw new Usage("bad value for --" + name + ": " + s + " (at least " + min + ")");
    }
    return v;
  }

  static String oneOf(Map<String, String> args, String name, List<String> allowed, String context)
      throws Usage {
    if (!args.containsKey(name)) {
      throw new Usage("missing --" + name);
    }
    String v = args.get(name);
    if (allowed.contains(v)) {
      return v;
    }
    throw new Usage(
        "unknown value for --" + name + ": '" + v + "'" + context + " (one of: "
            + String.join(", ", allowed) + ")");
  }

  /** Everything `run` needs, validated. */
  static final class RunSpec {
    String suite;
    String kase;
    String lib;
    final Map<String, String> params = new LinkedHashMap<>();
    String mode = "";
    String compression = "";
    String block = "";
    boolean reuse;
    /** local, client, server, or "" (pipe without a role: run a server thread). */
    String role;

    int inFd = -1;
    int outFd = -1;
    long iters;
    long samples = 1;
    long warmup;
    final Map<String, String> versions = new LinkedHashMap<>();
  }

  static RunSpec validate(Map<String, String> args) throws Usage {
    RunSpec spec = new RunSpec();
    String suite = oneOf(args, "suite", List.of("rpc", "limit"), "");
    List<String> cases = suite.equals("rpc") ? Registry.RPC_CASES : List.of("memcpy");
    spec.kase = oneOf(args, "case", cases, " for suite " + suite);
    for (String f : FIXTURE_FLAGS) {
      if (args.containsKey(f)) {
        throw new Usage("flag --" + f + " is a fixture suite " + suite + " does not take");
      }
    }
    spec.suite = suite;
    if (!args.containsKey("lib")) {
      throw new Usage("missing --lib");
    }
    spec.lib = args.get("lib");
    spec.versions.put("compiler", compiler());

    if (suite.equals("rpc")) {
      reject(args, suite, "block");
      Registry.RpcLib lib = Registry.findRpcLib(spec.lib);
      if (lib == null) {
        List<String> names = new ArrayList<>();
        Registry.RPC_LIBS.forEach(l -> names.add(l.name));
        throw new Usage(
            "unknown lib '" + spec.lib + "' for suite rpc (one of: " + String.join(", ", names)
                + ")");
      }
      spec.mode = oneOf(args, "mode", Registry.RPC_MODES, "");
      spec.compression = oneOf(args, "compression", lib.compressions, " for lib " + lib.name);
      if (spec.mode.equals("object") && !spec.compression.equals("none")) {
        throw new Usage(
            "compression " + spec.compression + " does not apply to mode object");
      }
      spec.reuse = oneOf(args, "reuse", Registry.REUSE_MODES, "").equals("reuse");
      spec.params.put("mode", spec.mode);
      spec.params.put("compression", spec.compression);
      spec.params.put("reuse", spec.reuse ? "reuse" : "no-reuse");
      spec.versions.putAll(lib.versions);
    } else {
      reject(args, suite, "mode", "compression", "reuse");
      if (!spec.lib.equals("memcpy")) {
        throw new Usage("unknown lib '" + spec.lib + "' for suite limit (one of: memcpy)");
      }
      spec.block = oneOf(args, "block", new ArrayList<>(Registry.MEMCPY_BLOCKS.keySet()), "");
      spec.params.put("block", spec.block);
    }

    boolean pipeMode = Registry.isPipeMode(spec.mode);
    if (args.containsKey("role")) {
      spec.role = oneOf(args, "role", List.of("local", "client", "server"), "");
      if (pipeMode && spec.role.equals("local")) {
        throw new Usage(
            "--role local is not possible with --mode " + spec.mode
                + " (use client or server, or no --role to run a server of its own)");
      }
      if (!pipeMode && !spec.role.equals("local")) {
        throw new Usage("--role " + spec.role + " needs a pipe mode (pipe or pipe-async)");
      }
    } else {
      spec.role = pipeMode ? "" : "local";
    }
    boolean split = spec.role.equals("client") || spec.role.equals("server");
    if (split) {
      if (!args.containsKey("in-fd") || !args.containsKey("out-fd")) {
        throw new Usage("--role " + spec.role + " needs --in-fd and --out-fd");
      }
      spec.inFd = (int) Math.min(parseCount(args, "in-fd", 0), Integer.MAX_VALUE);
      spec.outFd = (int) Math.min(parseCount(args, "out-fd", 0), Integer.MAX_VALUE);
    } else if (args.containsKey("in-fd") || args.containsKey("out-fd")) {
      throw new Usage("--in-fd and --out-fd need --role client or --role server");
    }

    if (!spec.role.equals("server")) {
      if (!args.containsKey("iters")) {
        throw new Usage("missing --iters");
      }
      spec.iters = parseCount(args, "iters", 1);
      if (args.containsKey("samples")) {
        spec.samples = parseCount(args, "samples", 1);
      }
      if (args.containsKey("warmup")) {
        spec.warmup = parseCount(args, "warmup", 0);
      }
    } else {
      // A server answers until end of file, whatever the client's counts; it uses --iters
      // only as the size of its own warm-up rounds (runServer).
      for (String n : List.of("iters", "samples", "warmup")) {
        if (args.containsKey(n)) {
          parseCount(args, n, 0);
        }
      }
      spec.iters = args.containsKey("iters") ? parseCount(args, "iters", 0) : 0;
      spec.warmup = args.containsKey("warmup") ? parseCount(args, "warmup", 0) : 0;
    }
    return spec;
  }

  private static void reject(Map<String, String> args, String suite, String... names)
      throws Usage {
    for (String n : names) {
      if (args.containsKey(n)) {
        throw new Usage("flag --" + n + " is not a parameter of suite " + suite);
      }
    }
  }

  // ---- results --------------------------------------------------------------------------

  static final class Samples {
    final List<Long> ns = new ArrayList<>();
    final List<Long> bytes = new ArrayList<>();
    final List<Long> check = new ArrayList<>();
    long responses;
    /** Every iteration run before the first sample: the requested warm-up plus the rounds. */
    long warmup;

    Jit.Report jit;
  }

  static Json header(RunSpec spec, String role) {
    return new Json()
        .num("protocol", PROTOCOL)
        .str("lang", "java")
        .str("toolchain", TOOLCHAIN)
        .str("driver", "wirebench-java")
        .str("suite", spec.suite)
        .str("case", spec.kase)
        .str("lib", spec.lib)
        .raw("params", Json.pairs(spec.params))
        .str("role", role);
  }

  static void printResult(RunSpec spec, String role, Samples s) {
    Json j = header(spec, role);
    Json metrics =
        new Json()
            .raw("time", new Json().str("unit", "ns").num("iters", spec.iters).list("samples", s.ns).text())
            .raw("bytes", new Json().str("unit", "B").num("iters", spec.iters).list("samples", s.bytes).text());
    j.num("warmup", s.warmup)
        .num("warmup_requested", spec.warmup)
        .raw("metrics", metrics.text())
        .list("check", s.check)
        .bool("verified", true)
        .num("responses_checked", s.responses)
        .raw("jit", s.jit.json())
        .raw("versions", Json.pairs(spec.versions));
    printLine(j.text());
  }

  // ---- running --------------------------------------------------------------------------

  /** One run of `n` iterations from the generator's current state. */
  interface Step {
    void run(Rng rng, long n, RpcCell.Tally t) throws Failure;
  }

  /**
   * The timing loop shared by every rpc mode on the client side: the generator is reset at
   * the start of the warm-up, of every JIT warm-up round and of every sample; only the
   * sample's iterations are timed.
   */
  static Samples timeRpc(RunSpec spec, Step step) throws Failure {
    Samples s = new Samples();
    Rng rng = new Rng();
    if (spec.warmup > 0) {
      RpcCell.Tally warm = new RpcCell.Tally();
      rng.reset();
      step.run(rng, spec.warmup, warm);
      s.responses += warm.responses;
    }
    // One sample's workload, timed: the JIT warm-up rounds and the samples run this same
    // code, so that a round's time predicts a sample's.
    RpcCell.Tally[] last = new RpcCell.Tally[1];
    Jit.Round sample =
        () -> {
          RpcCell.Tally t = new RpcCell.Tally();
          rng.reset();
          long t0 = System.nanoTime();
          step.run(rng, spec.iters, t);
          long ns = System.nanoTime() - t0;
          s.responses += t.responses;
          last[0] = t;
          return ns;
        };
    s.jit = Jit.settle(sample);
    s.warmup = spec.warmup + (long) s.jit.rounds() * spec.iters;
    for (long i = 0; i < spec.samples; ++i) {
      long compiles = Jit.counter();
      long ns = sample.run();
      s.jit.sampleCompiles.add(Jit.counter() - compiles);
      s.ns.add(ns);
      s.bytes.add(last[0].bytes);
      s.check.add(last[0].check);
    }
    return s;
  }

  static RpcCell makeCell(RunSpec spec) throws Usage {
    Registry.RpcLib lib = Registry.findRpcLib(spec.lib);
    RpcCell cell = lib.make.make(spec.kase, spec.compression, spec.reuse);
    if (cell == null) {
      throw new Usage("combination not supported: " + spec.lib + " " + spec.kase);
    }
    return cell;
  }

  static Samples runClient(RunSpec spec, RpcCell cell, InputStream in, OutputStream out)
      throws Failure {
    cell.openClient(new Io.CountingIn(in), new Io.CountingOut(out));
    Samples s =
        spec.mode.equals("pipe") ? timeRpc(spec, cell::pipe) : timeRpc(spec, cell::pipeAsync);
    cell.closeClient();
    return s;
  }

  static String fdPath(int fd, String flag) throws Usage {
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
  static Jit.Report warmServer(RunSpec spec) throws Failure, Usage {
    RunSpec own = new RunSpec();
    own.suite = spec.suite;
    own.kase = spec.kase;
    own.lib = spec.lib;
    own.params.putAll(spec.params);
    own.mode = spec.mode;
    own.compression = spec.compression;
    own.reuse = spec.reuse;
    own.iters = spec.iters;
    own.warmup = spec.warmup;
    own.samples = 0;
    return runWithServerThread(own).jit;
  }

  static void runServer(RunSpec spec, InputStream in, OutputStream out) throws Failure, Usage {
    Jit.Report warm = spec.iters > 0 ? warmServer(spec) : null;
    long compilesBefore = Jit.counter();
    RpcCell cell = makeCell(spec);
    Io.CountingIn cin = new Io.CountingIn(in);
    Io.CountingOut cout = new Io.CountingOut(out);
    RpcCell.ServerStats st = new RpcCell.ServerStats();
    try {
      cell.serve(cin, cout, st);
      cout.flush();
    } catch (IOException e) {
      throw Failure.of("I/O error", e);
    } catch (Failure e) {
      throw new Failure("request " + st.requests + ": " + e.getMessage());
    }
    Json j = header(spec, "server");
    j.num("requests", st.requests)
        .num("bytes_in", cin.count)
        .num("bytes_out", cout.count)
        .bool("verified", true)
        .raw("jit", warm == null ? new Json().num("compile_ms", Jit.compileMs()).text()
            : warm.json())
        // Compilations while serving the client (after the warm-up): what the rule missed.
        .num("serve_compiles", Jit.counter() - compilesBefore)
        .raw("versions", Json.pairs(spec.versions));
    printLine(j.text());
  }

  /** A pipe cell without --role: a server thread of this process on two pipes. */
  static Samples runWithServerThread(RunSpec spec) throws Failure, Usage {
    Pipe toServer;
    Pipe toClient;
    try {
      toServer = Pipe.open();
      toClient = Pipe.open();
    } catch (IOException e) {
      throw Failure.of("pipe() failed", e);
    }
    RpcCell serverCell = makeCell(spec);
    Thread server =
        new Thread(
            () -> {
              try {
                serverCell.serve(
                    Channels.newInputStream(toServer.source()),
                    Channels.newOutputStream(toClient.sink()),
                    new RpcCell.ServerStats());
                toClient.sink().close();
                toServer.source().close();
              } catch (Throwable e) {
                die("server: " + describe(e));
              }
            },
            "server");
    server.start();
    RpcCell cell = makeCell(spec);
    Samples s =
        runClient(
            spec,
            cell,
            Channels.newInputStream(toClient.source()),
            Channels.newOutputStream(toServer.sink()));
    try {
      server.join();
      toClient.source().close();
    } catch (InterruptedException | IOException e) {
      throw Failure.of("server thread", e);
    }
    return s;
  }

  static void runMemcpy(RunSpec spec) throws Failure {
    int block = Registry.MEMCPY_BLOCKS.get(spec.block);
    Limit cell = new Limit(block);
    Samples s = new Samples();
    if (spec.warmup > 0) {
      cell.scramble();
      cell.copy(spec.warmup);
      if (!cell.verify()) {
        throw new Failure("memcpy: the copy differs from the source after the warm-up");
      }
    }
    // As for rpc cells, the rounds and the samples run the same code.
    Jit.Round sample =
        () -> {
          cell.scramble();
          long t0 = System.nanoTime();
          cell.copy(spec.iters);
          long ns = System.nanoTime() - t0;
          if (!cell.verify()) {
            throw new Failure("memcpy: the copy differs from the source");
          }
          return ns;
        };
    s.jit = Jit.settle(sample);
    s.warmup = spec.warmup + (long) s.jit.rounds() * spec.iters;
    for (long i = 0; i < spec.samples; ++i) {
      long compiles = Jit.counter();
      long ns = sample.run();
      s.jit.sampleCompiles.add(Jit.counter() - compiles);
      s.ns.add(ns);
      s.bytes.add(spec.iters * block);
      s.check.add((long) block);
      s.responses += 1; // one comparison per sample
    }
    printResult(spec, "local", s);
  }

  static void runCommand(RunSpec spec) throws Failure, Usage {
    if (spec.suite.equals("limit")) {
      runMemcpy(spec);
      return;
    }
    switch (spec.role) {
      case "server":
      case "client":
        {
          String in = fdPath(spec.inFd, "--in-fd");
          String out = fdPath(spec.outFd, "--out-fd");
          InputStream input;
          OutputStream output;
          try {
            input = new FileInputStream(in);
            // Append: if the fd is a file (a test's stdout), write where it is, not at 0.
            output = new FileOutputStream(out, true);
          } catch (IOException e) {
            throw Failure.of("cannot open the fds", e);
          }
          if (spec.role.equals("server")) {
            runServer(spec, input, output);
          } else {
            Samples s = runClient(spec, makeCell(spec), input, output);
            printResult(spec, "client", s);
          }
          return;
        }
      case "":
        printResult(spec, "local", runWithServerThread(spec));
        return;
      default:
        {
          RpcCell cell = makeCell(spec);
          Samples s =
              spec.mode.equals("object") ? timeRpc(spec, cell::object) : timeRpc(spec, cell::bytes);
          printResult(spec, "local", s);
        }
    }
  }

  static void info() {
    Json versions =
        new Json()
            .str("compiler", compiler())
            .str("runtime", System.getProperty("java.runtime.version"))
            .str("capnp", Registry.CAPNP_VERSION)
            .str("protobuf", Registry.PROTOBUF_VERSION);
    List<String> gcs = new ArrayList<>();
    ManagementFactory.getGarbageCollectorMXBeans().forEach(g -> gcs.add(g.getName()));
    Json build =
        new Json()
            .str("release", "17")
            .str("jvm_flags", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
            .str("gc", String.join(", ", gcs))
            .str("jit_signal", Jit.signal());
    printLine(
        new Json()
            .num("protocol", PROTOCOL)
            .str("lang", "java")
            .str("toolchain", TOOLCHAIN)
            .str("driver", "wirebench-java")
            .raw("suites", "[\"rpc\", \"limit\"]")
            .raw("versions", versions.text())
            .raw("build", build.text())
            .text());
  }

  static void golden(List<String> argv) throws Failure, Usage {
    if (argv.size() < 2) {
      throw new Usage("golden: missing subcommand (write or check)");
    }
    String sub = argv.get(1);
    if (!sub.equals("write") && !sub.equals("check")) {
      throw new Usage("golden: unknown subcommand '" + sub + "' (write or check)");
    }
    if (argv.size() < 3) {
      throw new Usage("golden " + sub + ": missing DIR");
    }
    if (argv.size() > 3) {
      throw new Usage("unexpected argument '" + argv.get(3) + "'");
    }
    String dir = argv.get(2);
    if (dir.isEmpty()) {
      throw new Usage("golden " + sub + ": DIR is empty");
    }
    if (sub.equals("write")) {
      Golden.write(
          dir,
          f ->
              printLine(
                  new Json()
                      .str("file", f.name)
                      .num("messages", f.messages)
                      .num("bytes", f.bytes)
                      .text()));
    } else {
      Golden.check(
          dir,
          f -> {
            Json j = new Json().str("file", f.name);
            if (f.skipped) {
              j.bool("skipped", true);
            } else {
              j.num("messages", f.messages).bool("ok", true);
            }
            printLine(j.text());
          });
    }
  }

  static final String USAGE =
      "usage: wirebench-java info | list | run --case C --lib L [cell parameters] --iters N\n"
          + "         [--samples S] [--warmup W] [--suite S] [--role local|client|server]\n"
          + "         [--in-fd R --out-fd W]\n"
          + "       wirebench-java golden write|check DIR\n"
          + "  rpc parameters: --mode object|bytes|pipe|pipe-async --compression none|packed\n"
          + "                  --reuse reuse|no-reuse\n"
          + "  limit parameters: --block 16KiB|1MiB|64MiB\n";

  static void realMain(List<String> argv) throws Failure, Usage {
    if (argv.isEmpty()) {
      throw new Usage("missing command");
    }
    String command = argv.get(0);
    switch (command) {
      case "info":
      case "list":
        if (argv.size() > 1) {
          throw new Usage("unexpected argument '" + argv.get(1) + "'");
        }
        if (command.equals("info")) {
          info();
        } else {
          for (String line : Registry.listCells()) {
            OUT.print(line);
            OUT.print('\n');
          }
          OUT.flush();
        }
        return;
      case "run":
        runCommand(validate(parseRunFlags(argv.subList(1, argv.size()))));
        return;
      case "golden":
        golden(argv);
        return;
      default:
        throw new Usage("unknown command '" + command + "'");
    }
  }

  public static void main(String[] args) {
    try {
      realMain(Arrays.asList(args));
    } catch (Usage e) {
      System.err.print("wirebench-java: usage error: " + e.getMessage() + "\n" + USAGE);
      System.err.flush();
      System.exit(2);
    } catch (Failure e) {
      die(e.getMessage());
    } catch (Throwable e) {
      die(describe(e));
    }
    OUT.flush();
    System.exit(0);
  }
}
