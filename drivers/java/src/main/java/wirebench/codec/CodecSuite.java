package wirebench.codec;

import com.sun.management.ThreadMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import wirebench.Failure;
import wirebench.Json;
import wirebench.Output;
import wirebench.Run;
import wirebench.Suite;
import wirebench.Timing;
import wirebench.Usage;

/**
 * The codec suite (docs/protocol.md, suite codec): one library encoding the log records of
 * docs/workloads.md. This class is the suite as the registry sees it (cases, parameters, the
 * library registry, the rule that a cell differs from its library's first cell in one
 * parameter at most) and its run: each operation the cell measures is warmed up and timed on
 * its own (Timing.measure: the requested warm-up, the JIT's rounds, the samples), checked
 * after every round and sample, then run once more untimed to count its allocated bytes.
 */
public final class CodecSuite extends Suite<CodecSuite.CodecLib> {
  /** A library's work on a case: its Codec, in the buffer mode `reuse` says. */
  interface Factory {
    Codec<?> make(String kase, boolean reuse);
  }

  /** A library of the codec suite: its format, the variants it offers, its factory. */
  public static final class CodecLib extends Suite.Lib {
    /** The format name of golden files and of the harness (json, msgpack, protobuf, ...). */
    public final String format;
    /** Whether it reads through a zero-copy view (the access operation). */
    final boolean access;

    final Factory factory;
    /**
     * Its packed encoding's Codec (packing packed: Cap'n Proto's; packing compact: Thrift's
     * compact protocol), or null.
     */
    final Factory packedFactory;
    /** The value of packing that packedFactory's cells have (packed, compact), or null. */
    final String packing;

    CodecLib(
        String name,
        String format,
        List<String> buffers,
        String validation,
        boolean access,
        Map<String, String> versions,
        Factory factory) {
      this(name, format, buffers, validation, access, versions, factory, null, null);
    }

    CodecLib(
        String name,
        String format,
        List<String> buffers,
        String validation,
        boolean access,
        Map<String, String> versions,
        Factory factory,
        String packing,
        Factory packedFactory) {
      // Java strings are always owned: no library offers borrowed.
      super(
          name,
          Map.of(
              "buffer",
              buffers,
              "strings",
              List.of("owned"),
              "validation",
              List.of(validation),
              "packing",
              packedFactory == null ? List.of("unpacked") : List.of("unpacked", packing)),
          versions);
      this.format = format;
      this.access = access;
      this.factory = factory;
      this.packedFactory = packedFactory;
      this.packing = packing;
    }

    @Override
    public Json listFields() {
      return new Json().str("format", format);
    }

    /** The Codec of a cell: `reuse` its buffer, `packed` its packing (not unpacked). */
    Codec<?> make(String kase, boolean reuse, boolean packed) {
      return (packed ? packedFactory : factory).make(kase, reuse);
    }
  }

  private static final List<String> BOTH = List.of("reused", "fresh");

  /**
   * {name: version} of a library's artifact, recorded in Lib.PACKAGES as Lib.maven does: from
   * the pom.properties Maven puts in its jar, else (libthrift, bson, agrona have none) from the
   * manifest of the jar that holds `cls` (Implementation-Version, else Bundle-Version).
   */
  static Map<String, String> artifact(String name, String group, String artifact, Class<?> cls) {
    Map<String, String> v = Lib.maven(name, group, artifact);
    return v.get(name).equals("unknown") ? Map.of(name, manifestVersion(cls)) : v;
  }

  private static String manifestVersion(Class<?> cls) {
    try {
      java.net.URL jar = cls.getProtectionDomain().getCodeSource().getLocation();
      try (java.util.jar.JarFile f = new java.util.jar.JarFile(new java.io.File(jar.toURI()))) {
        java.util.jar.Attributes a = f.getManifest().getMainAttributes();
        String v = a.getValue("Implementation-Version");
        if (v == null) {
          v = a.getValue("Bundle-Version");
        }
        return v == null ? "unknown" : v;
      }
    } catch (Exception | LinkageError e) {
      return "unknown";
    }
  }

  /** Versions in `info`'s order: the first map's, then the second's. */
  static Map<String, String> both(Map<String, String> a, Map<String, String> b) {
    Map<String, String> out = new java.util.LinkedHashMap<>(a);
    out.putAll(b);
    return out;
  }

  /** The library registry, in the order of `list`: one line per library. */
  static final List<CodecLib> LIBS =
      List.of(
          new CodecLib("null", "null", BOTH, "lazy", true, Map.of(), NullCodec::new),
          new CodecLib(
              "jackson",
              "json",
              BOTH,
              "validated",
              false,
              Lib.maven("jackson", "com.fasterxml.jackson.core", "jackson-databind"),
              JacksonCodec::new),
          new CodecLib(
              "dsl-json",
              "json",
              BOTH,
              "validated",
              false,
              Lib.maven("dsl-json", "com.dslplatform", "dsl-json"),
              DslJsonCodec::new),
          new CodecLib(
              "gson",
              "json",
              BOTH,
              "validated",
              false,
              Lib.maven("gson", "com.google.code.gson", "gson"),
              GsonCodec::new),
          new CodecLib(
              "protobuf",
              "protobuf",
              BOTH,
              "validated",
              false,
              Lib.maven("protobuf", "com.google.protobuf", "protobuf-java"),
              ProtobufCodec::new),
          new CodecLib(
              "capnp",
              "capnp",
              BOTH,
              "lazy",
              true,
              Lib.maven("capnp", "org.capnproto", "runtime"),
              CapnpCodec::new,
              "packed",
              CapnpCodec::packed),
          new CodecLib(
              "flatbuffers",
              "flatbuffers",
              BOTH,
              "unchecked",
              true,
              Lib.maven("flatbuffers", "com.google.flatbuffers", "flatbuffers-java"),
              FlatbuffersCodec::new),
          new CodecLib(
              "msgpack-java",
              "msgpack",
              BOTH,
              "validated",
              false,
              Map.of("msgpack-java", MsgpackCodec.version()),
              MsgpackCodec::new),
          new CodecLib(
              "kryo",
              "kryo",
              BOTH,
              "validated",
              false,
              Lib.maven("kryo", "com.esotericsoftware", "kryo"),
              KryoCodec::new),
          new CodecLib(
              "jackson-cbor",
              "cbor",
              BOTH,
              "validated",
              false,
              Lib.maven(
                  "jackson-cbor", "com.fasterxml.jackson.dataformat", "jackson-dataformat-cbor"),
              JacksonCborCodec::new),
          new CodecLib(
              "bson",
              "bson",
              BOTH,
              "validated",
              false,
              artifact("bson", "org.mongodb", "bson", org.bson.BsonBinaryWriter.class),
              BsonCodec::new),
          new CodecLib(
              "thrift",
              "thrift",
              BOTH,
              "validated",
              false,
              artifact(
                  "thrift", "org.apache.thrift", "libthrift", org.apache.thrift.TBase.class),
              ThriftCodec::new,
              "compact",
              ThriftCodec::compact),
          new CodecLib(
              "avro",
              "avro",
              BOTH,
              "validated",
              false,
              Lib.maven("avro", "org.apache.avro", "avro"),
              AvroCodec::new),
          new CodecLib(
              "avro-generic",
              "avro",
              BOTH,
              "validated",
              false,
              Lib.maven("avro", "org.apache.avro", "avro"),
              AvroGenericCodec::new),
          new CodecLib(
              "sbe",
              "sbe",
              BOTH,
              "lazy",
              true,
              both(
                  Map.of("sbe", SbeCodec.generatorVersion()),
                  artifact("agrona", "org.agrona", "agrona", org.agrona.DirectBuffer.class)),
              SbeCodec::new));

  public static final List<String> OPS = List.of("populate", "serialize", "deserialize", "access");

  public static final CodecSuite SUITE = new CodecSuite();

  private CodecSuite() {
    super(
        "codec",
        Records.CASES,
        List.of(
            new Param("buffer", BOTH),
            new Param("strings", List.of("owned", "borrowed")),
            new Param("validation", List.of("validated", "lazy", "unchecked")),
            new Param("packing", List.of("unpacked", "packed", "compact"))),
        LIBS,
        List.of("out-dir"));
  }

  /** The parameters in which `params` differ from the library's first cell. */
  private List<String> variants(CodecLib lib, Map<String, String> params) {
    List<String> differ = new ArrayList<>();
    for (Param p : this.params) {
      if (!params.get(p.name).equals(lib.values(p).get(0))) {
        differ.add(p.name);
      }
    }
    return differ;
  }

  /**
   * A library's further cells each differ from its first in one parameter; the size axis's
   * other batches have its first cell only.
   */
  @Override
  public String refuse(String kase, CodecLib lib, Map<String, String> params) {
    List<String> differ = variants(lib, params);
    if (!Records.GOLDEN.contains(kase) && !differ.isEmpty()) {
      return "case " + kase + " is on the size axis, which has each library's first cell only, "
          + "not one that varies " + String.join(" and ", differ);
    }
    if (differ.size() > 1) {
      return "a codec cell of lib " + lib.name + " varies one parameter of its first cell, not "
          + String.join(" and ", differ);
    }
    return null;
  }

  /**
   * The operations a cell measures: the first cell every one its library has, a further cell
   * those its parameter governs (packing: all but populate).
   */
  public static List<String> ops(CodecLib lib, Map<String, String> params) {
    List<String> differ = SUITE.variants(lib, params);
    List<String> ops = new ArrayList<>();
    for (String op : OPS) {
      boolean has = !op.equals("access") || lib.access;
      String p = differ.isEmpty() ? "" : differ.get(0);
      boolean governed =
          differ.isEmpty()
              || switch (p) {
                case "buffer" -> op.equals("populate") || op.equals("serialize");
                case "strings" -> op.equals("deserialize");
                case "packing" -> !op.equals("populate");
                default -> op.equals("deserialize") || op.equals("access");
              };
      if (has && governed) {
        ops.add(op);
      }
    }
    return ops;
  }

  /** A codec cell runs in one process, with no peer. */
  @Override
  public void prepare(Run<CodecLib> run) throws Usage {
    if (run.role.isEmpty()) {
      run.role = "local";
    } else if (!run.role.equals("local")) {
      throw new Usage(
          "--role " + run.role + " is not possible in suite codec (its cells are local)");
    }
  }

  @Override
  public Suite.Golden golden() {
    return new GoldenFiles();
  }

  static Failure mismatch(String lib, String what, String diff) {
    return new Failure(lib + " " + what + ": " + diff);
  }

  /**
   * What the timed loops need and the checks compare with: the case's records and fold, and
   * the library's first encoding (its populated form and its decoding verified before any
   * timing).
   */
  static final class Reference<N> {
    final String lib;
    final Codec<N> codec;
    final List<Log> records;
    final long fold;
    final byte[] encoding;

    Reference(String lib, Codec<N> codec, String kase) throws Failure {
      this.lib = lib;
      this.codec = codec;
      records = Records.records(kase);
      fold = Records.fold(records);
      N form = Loops.populate(codec, lib, records, 1);
      String diff = Records.diff(records, codec.plain(form));
      if (diff != null) {
        throw mismatch(lib, "populate", diff);
      }
      long size = Loops.serialize(codec, lib, form, 1);
      encoding = codec.output();
      if (size != encoding.length) {
        throw mismatch(lib, "serialize", "says " + size + " bytes, wrote " + encoding.length);
      }
      checkDecoded(encoding, "deserialize");
    }

    /** `bytes` decoded by the library itself must be the records. */
    void checkDecoded(byte[] bytes, String what) throws Failure {
      long f = Loops.deserialize(codec, lib, bytes, 1);
      String diff = Records.diff(records, codec.deserialized());
      if (diff == null && f != fold) {
        diff = "fold " + f + ", expected " + fold;
      }
      if (diff != null) {
        throw mismatch(lib, what, diff);
      }
    }
  }

  /**
   * One operation as the timing loop's Sampler: its iterations, their digest (sizes or folds;
   * populate keeps its last form) and, after every run of them, the checks of docs/protocol.md.
   */
  static final class Op<N> implements Timing.Sampler {
    final String name;
    private final Reference<N> ref;
    private long n;
    private long sum;
    private N populated;
    /** What serialize serializes: populated just before it runs (a reused builder's last). */
    private final N form;

    final List<Long> digests = new ArrayList<>();

    Op(String name, Reference<N> ref) throws Failure {
      this.name = name;
      this.ref = ref;
      form = name.equals("serialize") ? Loops.populate(ref.codec, ref.lib, ref.records, 1) : null;
    }

    @Override
    public void reset() {
      n = 0;
      sum = 0;
    }

    @Override
    public void iterate(long k) throws Failure {
      Codec<N> c = ref.codec;
      switch (name) {
        case "populate":
          populated = Loops.populate(c, ref.lib, ref.records, k);
          break;
        case "serialize":
          sum += Loops.serialize(c, ref.lib, form, k);
          break;
        case "deserialize":
          sum += Loops.deserialize(c, ref.lib, ref.encoding, k);
          break;
        default:
          sum += Loops.access(c, ref.lib, ref.encoding, k);
      }
      n += k;
    }

    /**
     * The last form or bytes against the records: populate's form field by field; serialize's
     * bytes equal to the first iteration's (which were decoded and compared before timing);
     * deserialize's form field by field; the digests against the sizes and folds.
     */
    @Override
    public void done() throws Failure {
      Codec<N> c = ref.codec;
      String diff = null;
      if (name.equals("populate")) {
        diff = Records.diff(ref.records, c.plain(populated));
      } else if (name.equals("serialize")) {
        if (sum != n * ref.encoding.length) {
          diff = "wrote " + sum + " bytes in " + n + " iterations of " + ref.encoding.length;
        } else if (!Arrays.equals(c.output(), ref.encoding)) {
          diff = "the bytes differ from the first iteration's";
        }
      } else {
        if (name.equals("deserialize")) {
          diff = Records.diff(ref.records, c.deserialized());
        }
        if (diff == null && sum != n * ref.fold) {
          diff = "folds sum to " + sum + " in " + n + " iterations, expected " + n * ref.fold;
        }
      }
      if (diff != null) {
        throw mismatch(ref.lib, name, diff);
      }
    }

    @Override
    public void sample() {
      digests.add(sum);
    }
  }

  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** Bytes allocated per iteration of `op`, over `iters` untimed iterations. */
  private static double allocBytes(Op<?> op, long iters) throws Failure {
    op.reset();
    long before = THREADS.getCurrentThreadAllocatedBytes();
    op.iterate(iters);
    long after = THREADS.getCurrentThreadAllocatedBytes();
    op.done();
    return (double) (after - before) / iters;
  }

  @Override
  public void run(Run<CodecLib> run) throws Failure {
    measure(
        run,
        run.lib.make(
            run.kase,
            run.param("buffer").equals("reused"),
            !run.param("packing").equals("unpacked")));
  }

  private static <N> void measure(Run<CodecLib> run, Codec<N> codec) throws Failure {
    Reference<N> ref = new Reference<>(run.lib.name, codec, run.kase);
    String outDir = run.fixtures.get("out-dir");
    if (outDir != null) {
      try {
        Files.write(Paths.get(outDir, run.kase + "." + run.lib.name), ref.encoding);
      } catch (IOException e) {
        throw Failure.of("--out-dir " + outDir, e);
      }
    }
    Json metrics = new Json();
    Json allocs = new Json();
    Json check = new Json();
    Json jit = new Json();
    long warmup = Long.MAX_VALUE;
    for (String name : ops(run.lib, run.params)) {
      Op<N> op = new Op<>(name, ref);
      Timing.Measured m = Timing.measure(run, op);
      metrics.raw(name, Output.samples("ns", run.iters, m.ns));
      if (!name.equals("populate")) {
        check.list(name, op.digests);
      }
      jit.raw(name, m.jit.json());
      warmup = Math.min(warmup, m.warmup);
      // After the operation's samples, so that the counting pass disturbs no timing.
      allocs.raw(name + "_alloc_bytes", Output.scalar("B", Double.toString(allocBytes(op, run.iters))));
    }
    metrics.raw("size", Output.scalar("B", Long.toString(ref.encoding.length))).fields(allocs);
    // After every timed and counted pass: the process's peak resident memory so far.
    metrics.raw("peak_rss", Output.scalar("B", Long.toString(peakRssBytes())));
    Output.printResult(
        run, "local", warmup, metrics, new Json().raw("check", check.text()), jit.text());
  }

  /**
   * The peak resident set of this process's own memory (/proc/self/status VmHWM), in bytes.
   * Not getrusage's ru_maxrss: that keeps the peak of the process it was forked from, before
   * exec (the harness's Python, tens of MB).
   */
  static long peakRssBytes() {
    try {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
        }
      }
    } catch (java.io.IOException | NumberFormatException e) {
      return 0;
    }
    return 0;
  }
}
