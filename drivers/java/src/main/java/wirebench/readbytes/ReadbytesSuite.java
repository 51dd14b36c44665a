package wirebench.readbytes;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import wirebench.Failure;
import wirebench.Jit;
import wirebench.Json;
import wirebench.Output;
import wirebench.Run;
import wirebench.Suite;
import wirebench.Usage;

/**
 * The readbytes suite (docs/protocol.md, suite readbytes; after ../shared/seeds/003): reading a
 * file when the application consumes it one byte at a time. A case is a consumer (Consumers:
 * count, sum, varint), a library is a strategy, the byte source the consumer reads from (one
 * file each: NullSource, BufferedStreamSource, OwnBufferSource, FileChannelSource, MappedSource,
 * MemorySegmentSource, NioUnderflowSource, MappedUnderflowSource), and --cache warm|cold says
 * whether the page cache holds the file.
 *
 * <p>An iteration is a pass: open the file, consume every byte, close it (and unmap it), timed
 * with System.nanoTime from just before the open to just after the close; a sample's time is
 * the sum of its passes' times, so nothing between passes is timed (a cold pass's
 * posix_fadvise, the comparison of its value). Every pass's value, warm-up included, is compared
 * with the case's; the first difference is exit 1 naming the pass, the value and the
 * expectation.
 *
 * <p>Warm-up: the requested --warmup passes, then rounds of one sample's passes (--iters) until
 * the JIT has settled (Jit, the rule of every suite of this driver); the result's `warmup`
 * counts every pass before the first sample.
 */
public final class ReadbytesSuite extends Suite<ReadbytesSuite.ReadLib> {
  /** Makes a strategy's source over the file (the null one reads it here, untimed). */
  interface Factory {
    ByteSource make(Path file) throws IOException;
  }

  /** A library of the readbytes suite: a strategy, the caches it lists, its factory. */
  public static final class ReadLib extends Suite.Lib {
    final Factory factory;

    ReadLib(String name, List<String> caches, Factory factory) {
      super(name, Map.of("cache", caches), Map.of());
      this.factory = factory;
    }
  }

  static final List<String> CACHES = List.of("warm", "cold");

  /**
   * The library registry, in the order of `list`. The factories are lambdas, so that a
   * strategy's classes (the incubating foreign memory API's) load only in its own cells.
   */
  static final List<ReadLib> LIBS =
      List.of(
          // The floor: no I/O in a pass, hence nothing a cold cache would change.
          new ReadLib("null", List.of("warm"), NullSource::load),
          new ReadLib("buffered_stream", CACHES, file -> new BufferedStreamSource(file)),
          new ReadLib("own_buffer", CACHES, file -> new OwnBufferSource(file)),
          new ReadLib("file_channel", CACHES, file -> new FileChannelSource(file)),
          new ReadLib("mapped", CACHES, file -> new MappedSource(file)),
          new ReadLib("memory_segment", CACHES, file -> new MemorySegmentSource(file)),
          new ReadLib("nio_underflow", CACHES, file -> new NioUnderflowSource(file)),
          new ReadLib("mapped_underflow", CACHES, file -> new MappedUnderflowSource(file)));

  static final List<String> CASES = List.of("count", "sum", "varint");

  /** The file's size (docs/workloads.md, §8): ids 0 .. 2,999,999, not packed. */
  public static final long FILE_BYTES = 12_886_336L;

  /** Each case's value per pass, in the order of CASES. */
  static final List<Long> EXPECTED = List.of(FILE_BYTES, 1_457_733_664L, 4_499_998_500_000L);

  public static final ReadbytesSuite SUITE = new ReadbytesSuite();

  private ReadbytesSuite() {
    super("readbytes", CASES, List.of(new Param("cache", CACHES)), LIBS, List.of("input"));
  }

  /** A readbytes cell runs in one process and needs --input. */
  @Override
  public void prepare(Run<ReadLib> run) throws Usage {
    if (run.role.isEmpty()) {
      run.role = "local";
    } else if (!run.role.equals("local")) {
      throw new Usage(
          "--role " + run.role + " is not possible in suite readbytes (its cells are local)");
    }
    if (!run.fixtures.containsKey("input")) {
      throw new Usage("suite readbytes needs --input FILE (the file its passes read)");
    }
  }

  @Override
  public void run(Run<ReadLib> run) throws Failure {
    Path file = Paths.get(run.fixtures.get("input"));
    long size = checkInput(file);
    ByteSource source;
    try {
      source = run.lib.factory.make(file);
    } catch (IOException e) {
      throw new Failure("cannot read --input " + file + ": " + why(e));
    }
    new Passes(run, file, size, source).measure();
  }

  /** Opens `file` once (exit 1 naming it if that fails); returns its size. */
  static long checkInput(Path file) throws Failure {
    if (Files.isDirectory(file)) {
      throw new Failure("cannot read --input " + file + ": it is a directory");
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return ch.size();
    } catch (IOException e) {
      throw new Failure("cannot open --input " + file + ": " + why(e));
    }
  }

  private static String why(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    return Output.describe(e);
  }

  /** One cell's passes: the warm-up, the JIT's rounds, the timed samples, the result. */
  static final class Passes {
    private final Run<ReadLib> run;
    private final Path file;
    private final long size;
    private final ByteSource source;
    private final boolean cold;
    /** Index of the case in CASES: which consumer a pass runs. */
    private final int consumer;

    private final long expected;
    /** Passes run so far (the next pass's number is passes + 1) and compared. */
    long passes;

    long checked;
    /** The wrapping sum of the values of the passes since the last reset. */
    long valueSum;

    Passes(Run<ReadLib> run, Path file, long size, ByteSource source) {
      this.run = run;
      this.file = file;
      this.size = size;
      this.source = source;
      this.cold = run.param("cache").equals("cold");
      this.consumer = CASES.indexOf(run.kase);
      this.expected = EXPECTED.get(consumer);
    }

    /** One pass: open, consume every byte, close. The only timed code. */
    private long passOnce() throws IOException, Failure {
      ByteSource s = source;
      s.open();
      long v;
      try {
        switch (consumer) {
          case 0:
            v = Consumers.count(s);
            break;
          case 1:
            v = Consumers.sum(s);
            break;
          default:
            v = Consumers.varint(s);
        }
      } finally {
        s.close();
      }
      return v;
    }

    /** A pass with what surrounds it, untimed: the cold cache before, the check after. */
    long pass() throws Failure {
      if (cold) {
        PageCache.drop(file);
      }
      long n = ++passes;
      long v;
      long t0 = System.nanoTime();
      try {
        v = passOnce();
      } catch (IOException e) {
        throw failure(n, "reading: " + Output.describe(e));
      } catch (Failure e) {
        throw failure(n, e.getMessage());
      }
      long ns = System.nanoTime() - t0;
      if (v != expected) {
        throw failure(n, run.kase + " " + v + ", want " + expected);
      }
      ++checked;
      valueSum += v;
      return ns;
    }

    private Failure failure(long n, String what) {
      return new Failure(
          "readbytes " + run.kase + " lib " + run.lib.name + ", " + file + ", pass " + n + ": "
              + what);
    }

    /** One sample's workload: --iters passes; the sum of their times. */
    long sampleOnce() throws Failure {
      valueSum = 0;
      long ns = 0;
      for (long i = 0; i < run.iters; ++i) {
        ns += pass();
      }
      return ns;
    }

    void measure() throws Failure {
      for (long i = 0; i < run.warmup; ++i) {
        pass();
      }
      Jit.Report jit = Jit.settle(this::sampleOnce);
      long warmup = run.warmup + jit.rounds() * run.iters;

      List<Long> times = new ArrayList<>();
      List<Long> bytes = new ArrayList<>();
      List<Long> checks = new ArrayList<>();
      for (long s = 0; s < run.samples; ++s) {
        long compiles = Jit.counter();
        times.add(sampleOnce());
        jit.sampleCompiles.add(Jit.counter() - compiles);
        checks.add(valueSum);
        // Every pass read the file to its end (each consumer reads until the source's -1).
        bytes.add(run.iters * size);
      }
      Json metrics =
          new Json()
              .raw("time", Output.samples("ns", run.iters, times))
              .raw("bytes", Output.samples("B", run.iters, bytes));
      Json evidence = new Json().list("check", checks).num("passes_checked", checked);
      Output.printResult(run, "local", warmup, metrics, evidence, jit.json());
    }
  }
}
