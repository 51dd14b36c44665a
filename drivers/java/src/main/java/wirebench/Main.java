package wirebench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * wirebench-java: the Java driver. Implements docs/protocol.md (commands info, list, run,
 * golden, and a suite's own command, Suite.command: queue append|tail) on the registry of
 * suites (Suites). The command line knows no suite: `run` looks the suite up, validates the
 * cell against the suite's registry entry (cases, libraries, parameters and the cases that
 * take them, their legal values, the fixtures it takes), then hands the validated Run to the
 * suite.
 */
public final class Main {
  private Main() {}

  // ---- command line ---------------------------------------------------------------------

  /** The flags of `run` that every suite takes; fixtures and suites' parameters are known too. */
  private static final List<String> COMMON_FLAGS =
      List.of("suite", "case", "lib", "iters", "samples", "warmup", "role", "in-fd", "out-fd");

  /** Whether `name` is a parameter of some suite. */
  private static boolean isParam(String name) {
    for (Suite<?> s : Suites.ALL) {
      if (s.param(name) != null) {
        return true;
      }
    }
    return false;
  }

  /** --NAME VALUE and --NAME=VALUE pairs, in the order given; any other name is refused. */
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
      if (!COMMON_FLAGS.contains(name) && !Suite.FIXTURES.contains(name) && !isParam(name)) {
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

  /** The value of --name, which must be one of `allowed`; `context` follows a wrong value. */
  static String oneOf(Map<String, String> args, String name, List<String> allowed, String context)
      throws Usage {
    String legal = " (one of: " + String.join(", ", allowed) + ")";
    if (!args.containsKey(name)) {
      throw new Usage("missing --" + name + legal);
    }
    String v = args.get(name);
    if (allowed.contains(v)) {
      return v;
    }
    throw new Usage("unknown value for --" + name + ": '" + v + "'" + context + legal);
  }

  private static String orNone(List<String> names) {
    return names.isEmpty() ? "none" : String.join(", ", names);
  }

  /** Checks a run's flags against the registry and returns the run for its suite. */
  static Run<?> validate(Map<String, String> args) throws Usage {
    if (!args.containsKey("suite")) {
      throw new Usage("missing --suite (one of: " + String.join(", ", Suites.names()) + ")");
    }
    Suite<?> s = Suites.find(args.get("suite"));
    if (s == null) {
      throw new Usage(
          "unknown suite '" + args.get("suite") + "' (one of: " + String.join(", ", Suites.names())
              + ")");
    }
    return validate(s, args);
  }

  private static <L extends Suite.Lib> Run<L> validate(Suite<L> s, Map<String, String> args)
      throws Usage {
    for (String name : args.keySet()) {
      if (Suite.FIXTURES.contains(name) && !s.fixtures.contains(name)) {
        throw new Usage(
            "flag --" + name + " is a fixture suite " + s.name + " does not take (its fixtures: "
                + orNone(s.fixtures) + ")");
      }
      if (isParam(name) && s.param(name) == null) {
        throw new Usage(
            "flag --" + name + " is not a parameter of suite " + s.name + " (its parameters: "
                + orNone(s.paramNames()) + ")");
      }
    }
    String kase = oneOf(args, "case", s.cases, " for suite " + s.name);
    if (!args.containsKey("lib")) {
      throw new Usage("missing --lib (one of: " + String.join(", ", s.libNames()) + ")");
    }
    L lib = s.lib(args.get("lib"));
    if (lib == null) {
      throw new Usage(
          "unknown lib '" + args.get("lib") + "' for suite " + s.name + " (one of: "
              + String.join(", ", s.libNames()) + ")");
    }
    for (String name : args.keySet()) {
      Suite.Param p = s.param(name);
      if (p != null && !p.appliesTo(kase)) {
        List<String> names = new ArrayList<>();
        s.params(kase).forEach(q -> names.add(q.name));
        throw new Usage(
            "flag --" + name + " is not a parameter of case " + kase + " of suite " + s.name
                + " (its parameters: " + orNone(names) + ")");
      }
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (Suite.Param p : s.params(kase)) {
      // A legal value of the suite that this library does not support (capnp's compressions).
      String given = args.get(p.name);
      String context = given != null && p.values.contains(given) ? " for lib " + lib.name : "";
      params.put(p.name, oneOf(args, p.name, lib.values(p), context));
    }
    String refused = s.refuse(kase, lib, params);
    if (refused != null) {
      throw new Usage(refused);
    }
    Map<String, String> fixtures = new LinkedHashMap<>();
    for (String f : s.fixtures) {
      if (args.containsKey(f)) {
        fixtures.put(f, args.get(f));
      }
    }
    Run<L> run = new Run<>(s, kase, lib, params, fixtures);

    if (args.containsKey("role")) {
      run.role = oneOf(args, "role", Suite.ROLES, "");
    }
    s.prepare(run);
    if (run.role.equals("client") || run.role.equals("server")) {
      if (!args.containsKey("in-fd") || !args.containsKey("out-fd")) {
        throw new Usage("--role " + run.role + " needs --in-fd and --out-fd");
      }
      run.inFd = (int) Math.min(parseCount(args, "in-fd", 0), Integer.MAX_VALUE);
      run.outFd = (int) Math.min(parseCount(args, "out-fd", 0), Integer.MAX_VALUE);
    } else if (args.containsKey("in-fd") || args.containsKey("out-fd")) {
      throw new Usage("--in-fd and --out-fd need --role client or --role server");
    }

    if (!run.role.equals("server")) {
      if (!args.containsKey("iters")) {
        throw new Usage("missing --iters");
      }
      run.iters = parseCount(args, "iters", 1);
      if (args.containsKey("samples")) {
        run.samples = parseCount(args, "samples", 1);
      }
      if (args.containsKey("warmup")) {
        run.warmup = parseCount(args, "warmup", 0);
      }
    } else {
      // A server answers until end of file, whatever the client's counts; a suite may use
      // --iters and --warmup for its own warm-up (rpc: RpcSuite.warmServer).
      for (String n : List.of("iters", "samples", "warmup")) {
        if (args.containsKey(n)) {
          parseCount(args, n, 0);
        }
      }
      run.iters = args.containsKey("iters") ? parseCount(args, "iters", 0) : 0;
      run.warmup = args.containsKey("warmup") ? parseCount(args, "warmup", 0) : 0;
    }
    return run;
  }

  /** Runs a validated cell: its suite's run. */
  private static <L extends Suite.Lib> void run(Run<L> run) throws Failure, Usage {
    run.suite.run(run);
  }

  // ---- commands -------------------------------------------------------------------------

  static void info() {
    Json versions =
        new Json()
            .str("compiler", Output.compiler())
            .str("runtime", System.getProperty("java.runtime.version"));
    List<String> seen = new ArrayList<>();
    for (Suite<?> s : Suites.ALL) {
      for (Suite.Lib l : s.libs) {
        for (Map.Entry<String, String> v : l.versions.entrySet()) {
          if (!seen.contains(v.getKey())) {
            seen.add(v.getKey());
            versions.str(v.getKey(), v.getValue());
          }
        }
      }
    }
    Json packages = new Json();
    Suite.Lib.PACKAGES.forEach(packages::str);
    List<String> gcs = new ArrayList<>();
    ManagementFactory.getGarbageCollectorMXBeans().forEach(g -> gcs.add(g.getName()));
    Json build =
        new Json()
            .str("release", "17")
            .str(
                "jvm_flags",
                String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
            .str("gc", String.join(", ", gcs))
            .str("jit_signal", Jit.signal());
    Output.printLine(
        Output.identity()
            .strings("suites", Suites.names())
            .raw("versions", versions.text())
            .raw("packages", packages.text())
            .raw("build", build.text())
            .text());
  }

  /** One line per cell of every suite. */
  static void list() {
    List<String> lines = new ArrayList<>();
    for (Suite<?> s : Suites.ALL) {
      lines.addAll(s.cells());
    }
    Output.printLines(lines);
  }

  /** `golden write DIR` and `golden check DIR` for the suites that have golden files. */
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
    for (Suite<?> s : Suites.ALL) {
      Suite.Golden g = s.golden();
      if (g == null) {
        continue;
      }
      if (sub.equals("write")) {
        g.write(
            dir,
            f ->
                Output.printLine(
                    new Json()
                        .str("file", f.name)
                        .num("messages", f.messages)
                        .num("bytes", f.bytes)
                        .text()));
      } else {
        g.check(
            dir,
            f -> {
              Json j = new Json().str("file", f.name);
              if (f.skipped) {
                j.bool("skipped", true);
              } else if (f.checked != null) {
                j.fields(f.checked);
              } else {
                j.num("messages", f.messages).bool("ok", true);
              }
              Output.printLine(j.text());
            });
      }
    }
  }

  /** The usage, from the registry. */
  static String usage() {
    StringBuilder b =
        new StringBuilder(
            "usage: wirebench-java info | list\n"
                + "       wirebench-java run --suite S --case C --lib L [cell parameters] --iters N\n"
                + "         [--samples S] [--warmup W] [--role local|client|server]"
                + " [--in-fd R --out-fd W]\n"
                + "         [--input FILE] [--work-dir DIR] [--out-dir DIR]"
                + " (fixtures, for suites that take them)\n"
                + "       wirebench-java golden write|check DIR\n");
    for (Suite<?> s : Suites.ALL) {
      if (s.command() != null) {
        b.append(s.command().usage());
      }
    }
    for (Suite<?> s : Suites.ALL) {
      b.append("  suite ")
          .append(s.name)
          .append(": --case ")
          .append(String.join("|", s.cases))
          .append(" --lib ")
          .append(String.join("|", s.libNames()))
          .append("\n   ");
      for (Suite.Param p : s.params) {
        b.append(" --").append(p.name).append(' ').append(String.join("|", p.values));
        if (!p.cases.isEmpty()) {
          b.append(" (").append(String.join(", ", p.cases)).append(')');
        }
      }
      b.append('\n');
    }
    return b.toString();
  }

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
          list();
        }
        return;
      case "run":
        run(validate(parseRunFlags(argv.subList(1, argv.size()))));
        return;
      case "golden":
        golden(argv);
        return;
      default:
        Suite<?> s = Suites.find(command);
        if (s == null || s.command() == null) {
          throw new Usage("unknown command '" + command + "'");
        }
        s.command().run(argv.subList(1, argv.size()));
    }
  }

  public static void main(String[] args) {
    try {
      realMain(Arrays.asList(args));
    } catch (Usage e) {
      System.err.print("wirebench-java: usage error: " + e.getMessage() + "\n" + usage());
      System.err.flush();
      System.exit(2);
    } catch (Failure e) {
      Output.die(e.getMessage());
    } catch (Throwable e) {
      Output.die(Output.describe(e));
    }
    Output.flush();
    System.exit(0);
  }
}
