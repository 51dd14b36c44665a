package wirebench.rpc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import org.capnproto.Allocator;
import org.capnproto.ArrayInputStream;
import org.capnproto.ArrayOutputStream;
import org.capnproto.BufferedOutputStream;
import org.capnproto.MessageBuilder;
import org.capnproto.MessageReader;
import org.capnproto.PackedInputStream;
import org.capnproto.ReaderOptions;
import org.capnproto.Serialize;
import org.capnproto.SerializePacked;
import org.capnproto.StructFactory;
import org.capnproto.StructList;
import org.capnproto.StructReader;
import org.capnproto.Text;
import wirebench.Failure;
import wirebench.Rng;
import wirebench.capnp.CarsalesCapnp;
import wirebench.capnp.CatrankCapnp;
import wirebench.capnp.EvalCapnp;

/**
 * The rpc suite on Cap'n Proto's Java runtime (org.capnproto:runtime), doing per iteration
 * the work of the C++ driver (drivers/cpp/src/rpc/capnp.cpp), itself after the reference
 * programs:
 *
 * <ul>
 *   <li>reuse: builders are MessageBuilders over a kept, zeroed 128 Ki-word first segment
 *       (the runtime's MessageBuilder(Allocator, ByteBuffer) constructor; clearFirstSegment()
 *       re-zeroes what a message used, as C++'s MallocMessageBuilder does); a second segment
 *       would be 128 Ki words, like C++'s nextSize after a scratch segment. Readers of
 *       streams and of packed bytes read into a kept 128 Ki-word buffer: the Java runtime
 *       has no reader scratch (Serialize.read allocates every segment), so {@link
 *       #readInto} reads the segment table and the segments itself, then wraps the buffer
 *       in a MessageReader. no-reuse: a fresh allocator per message that sizes segments
 *       like C++'s default MallocMessageBuilder ({@link MallocLike}), and a fresh buffer per
 *       message read, as the runtime's Serialize.read allocates, through {@link #readInto}
 *       (its segment-table checks), or Serialize.read(ByteBuffer) on bytes already in memory.
 *   <li>bytes: messages go through a kept 1 MiB byte buffer (in both reuse modes, as in the
 *       C++ driver), read back with Serialize.read(ByteBuffer) (segments are slices of the
 *       buffer, no copy, like FlatArrayMessageReader) or through a PackedInputStream.
 *   <li>pipe: a 64 KiB buffered writer (flushed after every message) and a 64 KiB buffered
 *       reader over the fd ({@link CapnpOut}, {@link CapnpIn}); bytes are counted at the fd.
 *   <li>catrank text: the snippet's bytes are searched in place in the segment (no String).
 * </ul>
 */
final class CapnpRpc {
  private CapnpRpc() {}

  static final int SCRATCH_WORDS = 128 * 1024;

  static ByteBuffer scratch() {
    return ByteBuffer.allocate(SCRATCH_WORDS * 8).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** The cases on the generated classes: request and response builders and readers. */
  abstract static class Case<QB, QR extends StructReader, SB, SR extends StructReader> {
    final StructFactory<QB, QR> req;
    final StructFactory<SB, SR> resp;

    Case(StructFactory<QB, QR> req, StructFactory<SB, SR> resp) {
      this.req = req;
      this.resp = resp;
    }

    abstract long setup(Rng rng, QB request);

    /** The words of the message being read, which its struct lists' elements are charged to. */
    long budget;

    /**
     * A struct list's size, charged to the message read: capnp-java charges a list's words to
     * the traversal limit, so a list of zero-sized structs (one pointer word) could claim 2^29
     * elements for nothing, and the handlers loop over them and size arrays from them (an
     * OutOfMemoryError, found by fuzzing; fuzz/README.md). C++'s reader charges every element
     * a word at least; so does this: an honest message has a word for each.
     */
    final int elements(int n) {
      budget -= n;
      if (budget < 0) {
        throw new org.capnproto.DecodeException(
            "a list of " + n + " elements: more elements than the message has words");
      }
      return n;
    }

    abstract void handle(QR request, SB response) throws Failure;

    abstract long answer(SR response) throws Failure;
  }

  // ---- carsales -------------------------------------------------------------------------

  private static final CarsalesCapnp.Color[] COLORS = CarsalesCapnp.Color.values();

  static long carValue(CarsalesCapnp.Car.Builder car) {
    StructList.Builder<CarsalesCapnp.Wheel.Builder> wheels = car.getWheels();
    int wheelSum = 0;
    for (int i = 0, n = wheels.size(); i < n; ++i) {
      CarsalesCapnp.Wheel.Builder w = wheels.get(i);
      wheelSum += Cases.wheelValue(w.getDiameter() & 0xffff, w.getSnowTires());
    }
    CarsalesCapnp.Engine.Builder e = car.getEngine();
    return Cases.carValue(
        car.getSeats() & 0xff,
        car.getDoors() & 0xff,
        wheelSum,
        car.getLength() & 0xffff,
        car.getWidth() & 0xffff,
        car.getHeight() & 0xffff,
        e.getHorsepower() & 0xffff,
        e.getUsesGas(),
        e.getUsesElectric(),
        car.getHasPowerWindows(),
        car.getHasPowerSteering(),
        car.getHasCruiseControl(),
        car.getHasNavSystem(),
        car.getCupHolders() & 0xff);
  }

  static long carValue(CarsalesCapnp.Car.Reader car, Case<?, ?, ?, ?> c) {
    StructList.Reader<CarsalesCapnp.Wheel.Reader> wheels = car.getWheels();
    int wheelSum = 0;
    for (int i = 0, n = c.elements(wheels.size()); i < n; ++i) {
      CarsalesCapnp.Wheel.Reader w = wheels.get(i);
      wheelSum += Cases.wheelValue(w.getDiameter() & 0xffff, w.getSnowTires());
    }
    CarsalesCapnp.Engine.Reader e = car.getEngine();
    return Cases.carValue(
        car.getSeats() & 0xff,
        car.getDoors() & 0xff,
        wheelSum,
        car.getLength() & 0xffff,
        car.getWidth() & 0xffff,
        car.getHeight() & 0xffff,
        e.getHorsepower() & 0xffff,
        e.getUsesGas(),
        e.getUsesElectric(),
        car.getHasPowerWindows(),
        car.getHasPowerSteering(),
        car.getHasCruiseControl(),
        car.getHasNavSystem(),
        car.getCupHolders() & 0xff);
  }

  static final class CarSales
      extends Case<
          CarsalesCapnp.ParkingLot.Builder,
          CarsalesCapnp.ParkingLot.Reader,
          CarsalesCapnp.TotalValue.Builder,
          CarsalesCapnp.TotalValue.Reader> {
    CarSales() {
      super(CarsalesCapnp.ParkingLot.factory, CarsalesCapnp.TotalValue.factory);
    }

    private static void randomCar(Rng rng, CarsalesCapnp.Car.Builder car) {
      car.setMake(MAKES[rng.rand(5)]);
      car.setModel(MODELS[rng.rand(6)]);
      car.setColor(COLORS[rng.rand(Cases.COLORS)]);
      car.setSeats((byte) (2 + rng.rand(6)));
      car.setDoors((byte) (2 + rng.rand(3)));
      StructList.Builder<CarsalesCapnp.Wheel.Builder> wheels = car.initWheels(4);
      for (int i = 0; i < 4; ++i) {
        CarsalesCapnp.Wheel.Builder w = wheels.get(i);
        w.setDiameter((short) (25 + rng.rand(15)));
        w.setAirPressure((float) (30 + rng.randDouble(20)));
        w.setSnowTires(rng.rand(16) == 0);
      }
      int length = 170 + rng.rand(150);
      int width = 48 + rng.rand(36);
      int height = 54 + rng.rand(48);
      car.setLength((short) length);
      car.setWidth((short) width);
      car.setHeight((short) height);
      car.setWeight(Integer.divideUnsigned(length * width * height, 200));
      CarsalesCapnp.Engine.Builder e = car.initEngine();
      e.setHorsepower((short) (100 * rng.rand(400)));
      e.setCylinders((byte) (4 + 2 * rng.rand(3)));
      e.setCc(800 + rng.rand(10000));
      e.setUsesGas(true);
      e.setUsesElectric(rng.rand(2) != 0);
      float capacity = (float) (10.0 + rng.randDouble(30.0));
      car.setFuelCapacity(capacity);
      car.setFuelLevel((float) rng.randDouble(capacity));
      car.setHasPowerWindows(rng.rand(2) != 0);
      car.setHasPowerSteering(rng.rand(2) != 0);
      car.setHasCruiseControl(rng.rand(2) != 0);
      car.setCupHolders((byte) rng.rand(12));
      car.setHasNavSystem(rng.rand(2) != 0);
    }

    @Override
    long setup(Rng rng, CarsalesCapnp.ParkingLot.Builder request) {
      StructList.Builder<CarsalesCapnp.Car.Builder> cars = request.initCars(rng.rand(200));
      long total = 0;
      for (int i = 0, n = cars.size(); i < n; ++i) {
        CarsalesCapnp.Car.Builder car = cars.get(i);
        randomCar(rng, car);
        total += carValue(car);
      }
      return total;
    }

    @Override
    void handle(CarsalesCapnp.ParkingLot.Reader request, CarsalesCapnp.TotalValue.Builder resp) {
      StructList.Reader<CarsalesCapnp.Car.Reader> cars = request.getCars();
      long total = 0;
      for (int i = 0, n = elements(cars.size()); i < n; ++i) {
        total += carValue(cars.get(i), this);
      }
      resp.setAmount(total);
    }

    @Override
    long answer(CarsalesCapnp.TotalValue.Reader response) {
      return response.getAmount();
    }
  }

  // Text.Reader views of the constant names: setMake copies their bytes into the message,
  // as C++'s setMake(const char*) does, without encoding a String every time.
  private static final Text.Reader[] MAKES = texts(Cases.MAKE_BYTES);
  private static final Text.Reader[] MODELS = texts(Cases.MODEL_BYTES);

  private static Text.Reader[] texts(byte[][] b) {
    Text.Reader[] out = new Text.Reader[b.length];
    for (int i = 0; i < b.length; ++i) {
      out[i] = new Text.Reader(ByteBuffer.wrap(b[i]), 0, b[i].length);
    }
    return out;
  }

  // ---- catrank --------------------------------------------------------------------------

  static final class CatRank
      extends Case<
          CatrankCapnp.SearchResultList.Builder,
          CatrankCapnp.SearchResultList.Reader,
          CatrankCapnp.SearchResultList.Builder,
          CatrankCapnp.SearchResultList.Reader> {
    // The snippet being drawn, and the server's sort scratch: kept per cell (the C++ driver
    // keeps a static snippet string too; its sort vector is per message).
    private final Bytes snippet = new Bytes(512);
    private double[] scores = new double[1024];
    private int[] order = new int[1024];
    private CatrankCapnp.SearchResult.Reader[] readers = new CatrankCapnp.SearchResult.Reader[1024];

    CatRank() {
      super(CatrankCapnp.SearchResultList.factory, CatrankCapnp.SearchResultList.factory);
    }

    @Override
    long setup(Rng rng, CatrankCapnp.SearchResultList.Builder request) {
      int count = rng.rand(1000);
      StructList.Builder<CatrankCapnp.SearchResult.Builder> list = request.initResults(count);
      long good = 0;
      byte[] prefix = Cases.URL_PREFIX_BYTES;
      for (int i = 0; i < count; ++i) {
        CatrankCapnp.SearchResult.Builder result = list.get(i);
        result.setScore(1000 - i);
        int letters = rng.rand(100);
        Text.Builder url = result.initUrl(prefix.length + letters);
        ByteBuffer b = url.buffer;
        int at = url.offset;
        b.put(at, prefix, 0, prefix.length);
        at += prefix.length;
        for (int j = 0; j < letters; ++j) {
          b.put(at + j, (byte) ('a' + rng.rand(26)));
        }
        snippet.clear();
        if (Cases.appendSnippet(rng, snippet)) {
          ++good;
        }
        Text.Builder s = result.initSnippet(snippet.n);
        s.buffer.put(s.offset, snippet.a, 0, snippet.n);
      }
      return good;
    }

    @Override
    void handle(
        CatrankCapnp.SearchResultList.Reader request,
        CatrankCapnp.SearchResultList.Builder response) {
      StructList.Reader<CatrankCapnp.SearchResult.Reader> results = request.getResults();
      int n = elements(results.size());
      if (scores.length < n) {
        scores = new double[n];
        order = new int[n];
        readers = new CatrankCapnp.SearchResult.Reader[n];
      }
      for (int i = 0; i < n; ++i) {
        CatrankCapnp.SearchResult.Reader r = results.get(i);
        Text.Reader s = r.getSnippet();
        readers[i] = r;
        scores[i] =
            Cases.rescore(
                r.getScore(),
                Cases.containsWord(s.buffer, s.offset, s.size, (byte) 'c', (byte) 'a', (byte) 't'),
                Cases.containsWord(s.buffer, s.offset, s.size, (byte) 'd', (byte) 'o', (byte) 'g'));
      }
      Cases.sortByScoreDescending(scores, order, n);
      StructList.Builder<CatrankCapnp.SearchResult.Builder> list = response.initResults(n);
      for (int i = 0; i < n; ++i) {
        CatrankCapnp.SearchResult.Builder out = list.get(i);
        CatrankCapnp.SearchResult.Reader r = readers[order[i]];
        out.setScore(scores[order[i]]);
        out.setUrl(r.getUrl());
        out.setSnippet(r.getSnippet());
      }
      java.util.Arrays.fill(readers, 0, n, null);
    }

    @Override
    long answer(CatrankCapnp.SearchResultList.Reader response) {
      StructList.Reader<CatrankCapnp.SearchResult.Reader> results = response.getResults();
      long good = 0;
      for (int i = 0, n = elements(results.size()); i < n; ++i) {
        if (results.get(i).getScore() > 1001) {
          ++good;
        } else {
          break;
        }
      }
      return good;
    }
  }

  // ---- eval -----------------------------------------------------------------------------

  private static final EvalCapnp.Operation[] OPERATIONS = EvalCapnp.Operation.values();

  static final class Eval
      extends Case<
          EvalCapnp.Expression.Builder,
          EvalCapnp.Expression.Reader,
          EvalCapnp.EvaluationResult.Builder,
          EvalCapnp.EvaluationResult.Reader> {
    Eval() {
      super(EvalCapnp.Expression.factory, EvalCapnp.EvaluationResult.factory);
    }

    private static int make(Rng rng, EvalCapnp.Expression.Builder exp, int depth) {
      int op = rng.rand(Cases.OPS);
      exp.setOp(OPERATIONS[op]);
      int left;
      if (rng.rand(8) < depth) {
        left = rng.rand(128) + 1;
        exp.getLeft().setValue(left);
      } else {
        left = make(rng, exp.getLeft().initExpression(), depth + 1);
      }
      int right;
      if (rng.rand(8) < depth) {
        right = rng.rand(128) + 1;
        exp.getRight().setValue(right);
      } else {
        right = make(rng, exp.getRight().initExpression(), depth + 1);
      }
      return Cases.apply(op, left, right);
    }

    private static int evaluate(EvalCapnp.Expression.Reader exp) throws Failure {
      int left;
      EvalCapnp.Expression.Left.Reader l = exp.getLeft();
      switch (l.which()) {
        case VALUE:
          left = l.getValue();
          break;
        case EXPRESSION:
          left = evaluate(l.getExpression());
          break;
        default:
          throw new Failure("eval: unknown left operand");
      }
      int right;
      EvalCapnp.Expression.Right.Reader r = exp.getRight();
      switch (r.which()) {
        case VALUE:
          right = r.getValue();
          break;
        case EXPRESSION:
          right = evaluate(r.getExpression());
          break;
        default:
          throw new Failure("eval: unknown right operand");
      }
      EvalCapnp.Operation op = exp.getOp();
      if (op == EvalCapnp.Operation._NOT_IN_SCHEMA) {
        throw new Failure("eval: unknown operation");
      }
      return Cases.apply(op.ordinal(), left, right);
    }

    @Override
    long setup(Rng rng, EvalCapnp.Expression.Builder request) {
      return make(rng, request, 0);
    }

    @Override
    void handle(EvalCapnp.Expression.Reader request, EvalCapnp.EvaluationResult.Builder resp)
        throws Failure {
      resp.setValue(evaluate(request));
    }

    @Override
    long answer(EvalCapnp.EvaluationResult.Reader response) {
      return response.getValue();
    }
  }

  // ---- resources ------------------------------------------------------------------------

  /**
   * Sizes segments like C++'s default MallocMessageBuilder: the first 1024 words, then the
   * total allocated so far (1024, 1024, 2048, 4096, ...). The runtime's DefaultAllocator
   * grows one step earlier (1024, 2048, 4096, ...), which would give other segment tables
   * and byte counts than the C++ driver for multi-segment messages. One per message.
   */
  static final class MallocLike implements Allocator {
    private int nextWords = 1024;
    private boolean first = true;

    @Override
    public ByteBuffer allocateSegment(int minimumBytes) {
      int size = Math.max((minimumBytes + 7) / 8, nextWords);
      if (first) {
        first = false;
        nextWords = size;
      } else {
        nextWords = (int) Math.min((long) nextWords + size, (1 << 28) - 1);
      }
      return ByteBuffer.allocate(size * 8);
    }
  }

  /** Segments after a reused 128 Ki-word first one (never needed by these cases). */
  static final Allocator OVERFLOW =
      minimumBytes -> ByteBuffer.allocate(Math.max(minimumBytes, SCRATCH_WORDS * 8));

  /** Why: one policy for every driver (fuzz/README.md): a message over 64 MiB (8 Mi words) is
   *  refused from its segment table, before anything of it is allocated or read; the same
   *  number bounds the words a reader may traverse (the runtime's default, set explicitly). */
  static final long TRAVERSAL_LIMIT_WORDS = 8L << 20;

  /** Why: hostile pointer nesting ends in an error, not a stack overflow (the policy's 64). */
  static final int NESTING_LIMIT = 64;

  /** Why: the segment table of an honest message is small; C++'s reader refuses over 512 too. */
  static final int MAX_SEGMENTS = 512;

  static final ReaderOptions OPTIONS = new ReaderOptions(TRAVERSAL_LIMIT_WORDS, NESTING_LIMIT);

  /**
   * Reads one message (standard framing) from `in` into `scratch`: the segment table, then
   * every segment into the one buffer, sliced. A message larger than the scratch, or every
   * message when `scratch` is null (no reuse: the runtime's Serialize.read does the same), gets
   * a fresh buffer of its size. The table is checked before anything is allocated: 1 to
   * MAX_SEGMENTS segments of at most TRAVERSAL_LIMIT_WORDS words in all.
   */
  static MessageReader readInto(ReadableByteChannel in, ByteBuffer scratch, Case<?, ?, ?, ?> c)
      throws IOException {
    ByteBuffer head =
        (scratch != null ? scratch.duplicate() : ByteBuffer.allocate(8))
            .order(ByteOrder.LITTLE_ENDIAN);
    head.clear().limit(8);
    Serialize.fillBuffer(head, in);
    long segments = (head.getInt(0) & 0xffffffffL) + 1;
    if (segments > MAX_SEGMENTS) {
      throw new org.capnproto.DecodeException(
          "segment table of " + segments + " segments: the limit is " + MAX_SEGMENTS);
    }
    int[] sizes = new int[(int) segments];
    sizes[0] = head.getInt(4);
    if (segments > 1) {
      ByteBuffer more =
          ByteBuffer.allocate(4 * ((int) segments & ~1)).order(ByteOrder.LITTLE_ENDIAN);
      Serialize.fillBuffer(more, in);
      for (int i = 1; i < segments; ++i) {
        sizes[i] = more.getInt(4 * (i - 1));
      }
    }
    long words = 0;
    for (int s : sizes) {
      words += s & 0xffffffffL;
    }
    if (words > TRAVERSAL_LIMIT_WORDS) {
      throw new org.capnproto.DecodeException(
          "message of " + words * 8 + " bytes (" + words + " words): the limit is "
              + TRAVERSAL_LIMIT_WORDS * 8 + " bytes");
    }
    ByteBuffer data =
        scratch != null && words <= SCRATCH_WORDS
            ? scratch.duplicate()
            : ByteBuffer.allocate((int) words * 8);
    data.order(ByteOrder.LITTLE_ENDIAN).clear().limit((int) words * 8);
    Serialize.fillBuffer(data, in);
    ByteBuffer[] slices = new ByteBuffer[(int) segments];
    int at = 0;
    for (int i = 0; i < segments; ++i) {
      data.limit(at + sizes[i] * 8).position(at);
      slices[i] = data.slice().order(ByteOrder.LITTLE_ENDIAN);
      at += sizes[i] * 8;
    }
    c.budget = words;
    return new MessageReader(slices, OPTIONS);
  }

  // ---- the pipe's streams ----------------------------------------------------------------

  /**
   * A buffered reader for the Cap'n Proto runtime (its BufferedInputStream interface, which
   * PackedInputStream needs) over any InputStream, that can also tell a clean end of file
   * at a message boundary: the runtime's own BufferedInputStreamWrapper throws "premature
   * EOF" there, and Serialize.tryRead cannot see through a PackedInputStream.
   */
  static final class CapnpIn implements org.capnproto.BufferedInputStream {
    private final InputStream in;
    private final byte[] array = new byte[Io.BUFFER_BYTES];
    private final ByteBuffer buf = ByteBuffer.wrap(array);

    CapnpIn(InputStream in) {
      this.in = in;
      buf.limit(0);
    }

    /** Fills the empty buffer with at least one byte; false at end of file. */
    private boolean fill() throws IOException {
      int n = in.read(array, 0, array.length);
      if (n < 0) {
        buf.limit(0);
        return false;
      }
      buf.position(0);
      buf.limit(n);
      return true;
    }

    /** True at a clean end of file (nothing buffered, nothing more to read). */
    boolean atCleanEnd() throws IOException {
      return !buf.hasRemaining() && !fill();
    }

    @Override
    public ByteBuffer getReadBuffer() throws IOException {
      if (!buf.hasRemaining() && !fill()) {
        throw new org.capnproto.DecodeException("premature end of file");
      }
      return buf;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      int want = dst.remaining();
      if (want == 0) {
        return 0;
      }
      int done = 0;
      while (done < want) {
        if (buf.hasRemaining()) {
          int k = Math.min(buf.remaining(), want - done);
          int pos = buf.position();
          dst.put(array, pos, k);
          buf.position(pos + k);
          done += k;
        } else if (want - done >= array.length && dst.hasArray()) {
          // A large read goes straight into the destination, without a copy.
          int n = in.read(dst.array(), dst.arrayOffset() + dst.position(), want - done);
          if (n < 0) {
            break;
          }
          dst.position(dst.position() + n);
          done += n;
        } else if (!fill()) {
          break;
        }
      }
      return done == 0 ? -1 : done;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  /**
   * A buffered writer for the Cap'n Proto runtime (its BufferedOutputStream interface,
   * which PackedOutputStream writes into) over any OutputStream; flush() sends the bytes.
   */
  static final class CapnpOut implements org.capnproto.BufferedOutputStream {
    private final OutputStream out;
    private final byte[] array = new byte[Io.BUFFER_BYTES];
    private final ByteBuffer buf = ByteBuffer.wrap(array);

    CapnpOut(OutputStream out) {
      this.out = out;
    }

    @Override
    public ByteBuffer getWriteBuffer() {
      return buf;
    }

    private void drain() throws IOException {
      if (buf.position() > 0) {
        out.write(array, 0, buf.position());
        buf.clear();
      }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int size = src.remaining();
      if (size <= buf.remaining()) {
        buf.put(src);
      } else {
        drain();
        if (size <= buf.remaining()) {
          buf.put(src);
        } else if (src.hasArray()) {
          // A segment larger than the buffer goes straight to the stream, without a copy.
          out.write(src.array(), src.arrayOffset() + src.position(), size);
          src.position(src.limit());
        } else {
          while (src.hasRemaining()) {
            int k = Math.min(src.remaining(), array.length);
            src.get(array, 0, k);
            out.write(array, 0, k);
          }
        }
      }
      return size;
    }

    @Override
    public void flush() throws IOException {
      drain();
      out.flush();
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() throws IOException {
      flush();
      out.close();
    }
  }

  /** The buffered reader and writer of one side of a pipe. */
  static final class Conn {
    final CapnpIn in;
    final CapnpOut out;

    Conn(InputStream in, OutputStream out) {
      this.in = new CapnpIn(in);
      this.out = new CapnpOut(out);
    }
  }

  // ---- the cell -------------------------------------------------------------------------

  static final class Cell<QB, QR extends StructReader, SB, SR extends StructReader>
      implements Impl<Conn> {
    private final Case<QB, QR, SB, SR> c;
    private final boolean packed;
    private final boolean reuse;
    // s1..s6 play the C++ driver's six scratch spaces: client request builder, request
    // bytes, server request reader, server response builder, response bytes, client
    // response reader (pipe and serve: s1 builds, s2 is the reader's scratch).
    private final ByteBuffer s1 = scratch();
    private final ByteBuffer s2 = scratch();
    private final ByteBuffer s3;
    private final ByteBuffer s4;
    private final ByteBuffer s5;
    private final ByteBuffer s6;

    Cell(Case<QB, QR, SB, SR> c, boolean packed, boolean reuse) {
      this.c = c;
      this.packed = packed;
      this.reuse = reuse;
      s3 = reuse ? scratch() : null;
      s4 = scratch();
      s5 = scratch();
      s6 = reuse ? scratch() : null;
    }

    private MessageBuilder builder(ByteBuffer scratch) {
      return reuse ? new MessageBuilder(OVERFLOW, scratch) : new MessageBuilder(new MallocLike());
    }

    /** The builder's message is written: its scratch is zeroed for the next one. */
    private void done(MessageBuilder m) {
      if (reuse) {
        m.clearFirstSegment();
      }
    }

    private void write(BufferedOutputStream o, MessageBuilder m) throws IOException {
      if (packed) {
        SerializePacked.write(o, m);
      } else {
        Serialize.write(o, m);
      }
    }

    /** Serializes into `buf` from its start; returns the bytes written. */
    private int writeBytes(ByteBuffer buf, MessageBuilder m) throws IOException {
      ArrayOutputStream o = new ArrayOutputStream(buf);
      write(o, m);
      return o.buf.position();
    }

    private MessageReader readBytes(ByteBuffer buf, int n, ByteBuffer scratch)
        throws IOException {
      ByteBuffer view = buf.duplicate();
      view.clear().limit(n);
      if (!packed) {
        c.budget = n / 8;
        return Serialize.read(view, OPTIONS);
      }
      return readInto(new PackedInputStream(new ArrayInputStream(view)), reuse ? scratch : null, c);
    }

    private MessageReader readStream(CapnpIn input, ByteBuffer scratch) throws IOException {
      // Without reuse a fresh buffer per message, as the runtime's Serialize.read allocates;
      // through readInto all the same, for its checks of the segment table (MAX_SEGMENTS,
      // TRAVERSAL_LIMIT_WORDS) with errors that name the sizes.
      return readInto(packed ? new PackedInputStream(input) : input, reuse ? scratch : null, c);
    }

    @Override
    public long objectOnce(Rng rng) throws Failure {
      c.budget = Long.MAX_VALUE; // the driver's own builders, not a message read
      try {
        MessageBuilder rq = builder(s1);
        QB request = rq.initRoot(c.req);
        long expected = c.setup(rng, request);
        MessageBuilder rs = builder(s4);
        SB response = rs.initRoot(c.resp);
        c.handle(c.req.asReader(request), response);
        long term = Cases.verified(expected, c.answer(c.resp.asReader(response)));
        done(rq);
        done(rs);
        return term;
      } catch (RuntimeException e) {
        throw Failure.of("Cap'n Proto", e);
      }
    }

    @Override
    public long bytesOnce(Rng rng, Loops.Tally t) throws Failure {
      try {
        MessageBuilder rq = builder(s1);
        long expected = c.setup(rng, rq.initRoot(c.req));
        int n = writeBytes(s2, rq);
        done(rq);
        t.bytes += n;

        MessageReader requestReader = readBytes(s2, n, s3);
        MessageBuilder rs = builder(s4);
        c.handle(requestReader.getRoot(c.req), rs.initRoot(c.resp));
        int m = writeBytes(s5, rs);
        done(rs);
        t.bytes += m;

        MessageReader responseReader = readBytes(s5, m, s6);
        return Cases.verified(expected, c.answer(responseReader.getRoot(c.resp)));
      } catch (IOException | RuntimeException e) {
        throw Failure.of("Cap'n Proto", e);
      }
    }

    @Override
    public Conn connect(InputStream in, OutputStream out) {
      return new Conn(in, out);
    }

    @Override
    public long sendOnce(Rng rng, Conn conn, Loops.Expectations posted) throws Failure {
      try {
        MessageBuilder rq = builder(s1);
        long expected = c.setup(rng, rq.initRoot(c.req));
        posted.post(expected);
        write(conn.out, rq);
        conn.out.flush();
        done(rq);
        return expected;
      } catch (IOException | RuntimeException e) {
        throw Failure.of("Cap'n Proto", e);
      }
    }

    @Override
    public long receiveOnce(Conn conn, long expected) throws Failure {
      try {
        if (conn.in.atCleanEnd()) {
          throw new Loops.EndOfStream();
        }
        return Cases.verified(expected, c.answer(readStream(conn.in, s2).getRoot(c.resp)));
      } catch (IOException | RuntimeException e) {
        throw Failure.of("Cap'n Proto", e);
      }
    }

    @Override
    public boolean serveOnce(Conn conn) throws Failure {
      try {
        if (conn.in.atCleanEnd()) {
          return false;
        }
        MessageReader reader = readStream(conn.in, s2);
        MessageBuilder rs = builder(s1);
        c.handle(reader.getRoot(c.req), rs.initRoot(c.resp));
        write(conn.out, rs);
        conn.out.flush();
        done(rs);
        return true;
      } catch (IOException | RuntimeException e) {
        throw Failure.of("Cap'n Proto", e);
      }
    }
  }

  /** The library's factory (RpcSuite.LIBS): its cell of a case, or null. */
  static Impl<?> make(String kase, String compression, boolean reuse) {
    boolean packed;
    switch (compression) {
      case "none":
        packed = false;
        break;
      case "packed":
        packed = true;
        break;
      default:
        return null;
    }
    return Cases.<Impl<?>>byCase(
        kase,
        () -> new Cell<>(new CarSales(), packed, reuse),
        () -> new Cell<>(new CatRank(), packed, reuse),
        () -> new Cell<>(new Eval(), packed, reuse));
  }
}
