package wirebench;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * One suite of the registry (Suites): its cases, its parameters and their legal values, its
 * libraries (a suite's own library type, L, adds the factory), the fixtures it takes, and its
 * run. The command line knows no suite: it validates a cell against these (Main.validate) and
 * hands the validated {@link Run} to {@link #run}.
 */
public abstract class Suite<L extends Suite.Lib> {
  /** The fixture flags the command line knows (docs/protocol.md); a suite takes some or none. */
  public static final List<String> FIXTURES = List.of("input", "work-dir", "out-dir");

  /** The values of --role; a run without --role gets its suite's default (prepare). */
  public static final List<String> ROLES = List.of("local", "client", "server");

  /** A cell parameter, passed as --NAME VALUE, with its legal values in the order of `list`. */
  public static final class Param {
    public final String name;
    public final List<String> values;
    /** The cases that take this parameter (queue's rate: paced); empty: every case. */
    public final List<String> cases;

    public Param(String name, List<String> values) {
      this(name, values, List.of());
    }

    public Param(String name, List<String> values, List<String> cases) {
      this.name = name;
      this.values = List.copyOf(values);
      this.cases = List.copyOf(cases);
    }

    /** Whether a cell of case `kase` takes this parameter. */
    public boolean appliesTo(String kase) {
      return cases.isEmpty() || cases.contains(kase);
    }
  }

  /** A library of a suite as the command line and `list` see it. */
  public static class Lib {
    public final String name;
    /** Narrows parameters' legal values for this library (capnp's compressions). */
    private final Map<String, List<String>> supports;
    /** Extra provenance of this library's results: (key, version), in order. */
    public final Map<String, String> versions;

    public Lib(String name, Map<String, List<String>> supports, Map<String, String> versions) {
      this.name = name;
      this.supports = Map.copyOf(supports);
      this.versions = versions;
    }

    /** What this library's lines of `list` say after "lib" (codec: its format); nothing here. */
    public Json listFields() {
      return new Json();
    }

    /** The values of `p` this library supports, in the order of `list`. */
    public final List<String> values(Param p) {
      return supports.getOrDefault(p.name, p.values);
    }

    /**
     * The Maven artifact behind each name of `info`'s versions ("group:artifact"), which the
     * harness substitutes for a library variant (`wirebench run --with java:NAME=SOURCE`).
     */
    public static final Map<String, String> PACKAGES = new java.util.TreeMap<>();

    /** {name: version} of a library's artifact, recorded in PACKAGES. */
    public static Map<String, String> maven(String name, String group, String artifact) {
      synchronized (PACKAGES) {
        PACKAGES.put(name, group + ":" + artifact);
      }
      return Map.of(name, mavenVersion(group, artifact));
    }

    /** A library's version, from the pom.properties Maven puts in its jar. */
    public static String mavenVersion(String group, String artifact) {
      String path = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
      try (InputStream in = Lib.class.getResourceAsStream(path)) {
        if (in == null) {
          return "unknown";
        }
        Properties p = new Properties();
        p.load(in);
        return p.getProperty("version", "unknown");
      } catch (IOException e) {
        return "unknown";
      }
    }
  }

  public final String name;
  public final List<String> cases;
  public final List<Param> params;
  public final List<L> libs;
  /** The fixture flags this suite takes (of FIXTURES). */
  public final List<String> fixtures;

  protected Suite(
      String name, List<String> cases, List<Param> params, List<L> libs, List<String> fixtures) {
    this.name = name;
    this.cases = List.copyOf(cases);
    this.params = List.copyOf(params);
    this.libs = List.copyOf(libs);
    this.fixtures = List.copyOf(fixtures);
  }

  /** The library called `name`, or null. */
  public final L lib(String name) {
    for (L l : libs) {
      if (l.name.equals(name)) {
        return l;
      }
    }
    return null;
  }

  public final List<String> libNames() {
    List<String> names = new ArrayList<>();
    libs.forEach(l -> names.add(l.name));
    return names;
  }

  /** The parameter called `name`, or null. */
  public final Param param(String name) {
    for (Param p : params) {
      if (p.name.equals(name)) {
        return p;
      }
    }
    return null;
  }

  public final List<String> paramNames() {
    List<String> names = new ArrayList<>();
    params.forEach(p -> names.add(p.name));
    return names;
  }

  /** The parameters a cell of case `kase` takes, in their order. */
  public final List<Param> params(String kase) {
    List<Param> out = new ArrayList<>();
    for (Param p : params) {
      if (p.appliesTo(kase)) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * Why a combination of legal parameter values of `lib` is not a cell (`list` leaves it out,
   * `run` refuses it), or null.
   */
  public String refuse(L lib, Map<String, String> params) {
    return null;
  }

  /** The same, for a suite whose rule depends on the case too (queue: paced cells). */
  public String refuse(String kase, L lib, Map<String, String> params) {
    return refuse(lib, params);
  }

  /** Checks the run's role against its parameters and gives a run without --role its own. */
  public abstract void prepare(Run<L> run) throws Usage;

  /** Runs one validated cell and prints its result. */
  public abstract void run(Run<L> run) throws Failure, Usage;

  /** One golden file written, checked or skipped. */
  public static final class GoldenFile {
    public final String name;
    public final long messages;
    public final long bytes;
    public final boolean skipped;
    /** A checked file's line after its name, if the suite says more than "messages" (codec). */
    public final Json checked;

    public GoldenFile(String name, long messages, long bytes, boolean skipped) {
      this(name, messages, bytes, skipped, null);
    }

    public GoldenFile(String name, long messages, long bytes, boolean skipped, Json checked) {
      this.name = name;
      this.messages = messages;
      this.bytes = bytes;
      this.skipped = skipped;
      this.checked = checked;
    }
  }

  /** A suite's `golden write DIR` and `golden check DIR`; each reports every file. */
  public interface Golden {
    void write(String dir, Consumer<GoldenFile> report) throws Failure;

    void check(String dir, Consumer<GoldenFile> report) throws Failure;
  }

  /** The suite's golden files, or null if it has none. */
  public Golden golden() {
    return null;
  }

  /** A suite's own command, `DRIVER <suite> ARGS...` (queue append|tail). */
  public interface Command {
    /** Runs it on ARGS, the words after the suite's name. */
    void run(List<String> args) throws Failure, Usage;

    /** Its lines of the usage text, each ending in a newline. */
    String usage();
  }

  /** The suite's own command, or null if it has none. */
  public Command command() {
    return null;
  }

  /**
   * The lines of `list` for this suite: case, library, then every parameter of the case in its
   * order with the values the library supports, less what {@link #refuse} refuses.
   */
  public final List<String> cells() {
    List<String> lines = new ArrayList<>();
    for (String kase : cases) {
      for (L lib : libs) {
        product(kase, params(kase), lib, new LinkedHashMap<>(), lines);
      }
    }
    return lines;
  }

  private void product(
      String kase, List<Param> params, L lib, LinkedHashMap<String, String> p, List<String> lines) {
    if (p.size() == params.size()) {
      if (refuse(kase, lib, p) == null) {
        lines.add(
            new Json()
                .str("suite", name)
                .str("case", kase)
                .str("lib", lib.name)
                .fields(lib.listFields())
                .raw("params", Json.pairs(p))
                .text());
      }
      return;
    }
    Param param = params.get(p.size());
    for (String v : lib.values(param)) {
      p.put(param.name, v);
      product(kase, params, lib, p, lines);
      p.remove(param.name);
    }
  }
}
