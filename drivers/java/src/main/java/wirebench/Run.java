package wirebench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** One validated `run`: the cell (suite, case, library, parameters), its role and counts. */
public final class Run<L extends Suite.Lib> {
  public final Suite<L> suite;
  public final String kase;
  public final L lib;
  /** The cell's parameter values, in the order of the suite's parameters. */
  public final Map<String, String> params;
  /** The fixture flags given (only ones the suite takes), by name. */
  public final Map<String, String> fixtures;

  /** local, client or server; or "" (a pipe cell with a server of its own). */
  public String role = "";

  /** The pipe ends of a client or a server, else -1. */
  public int inFd = -1;

  public int outFd = -1;
  /** Iterations per sample, timed samples, warm-up iterations (a server ignores them). */
  public long iters;

  public long samples = 1;
  public long warmup;

  public Run(
      Suite<L> suite,
      String kase,
      L lib,
      Map<String, String> params,
      Map<String, String> fixtures) {
    this.suite = suite;
    this.kase = kase;
    this.lib = lib;
    this.params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    this.fixtures = Collections.unmodifiableMap(new LinkedHashMap<>(fixtures));
  }

  /** The value of the parameter `name`. */
  public String param(String name) {
    return params.get(name);
  }

  /** The same cell with its own role and counts (a server's warm-up, for one). */
  public Run<L> copy() {
    Run<L> r = new Run<>(suite, kase, lib, params, fixtures);
    r.role = role;
    r.inFd = inFd;
    r.outFd = outFd;
    r.iters = iters;
    r.samples = samples;
    r.warmup = warmup;
    return r;
  }

  /** A result's provenance: the compiler and the library's versions. */
  public Map<String, String> versions() {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("compiler", Output.compiler());
    v.putAll(lib.versions);
    return v;
  }
}
