package wirebench.rpc;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.Parser;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import wirebench.Failure;
import wirebench.Rng;
import wirebench.carsales.Carsales;
import wirebench.catrank.Catrank;
import wirebench.eval.Eval;

/**
 * The rpc suite on Protocol Buffers (protobuf-java), doing per iteration the work of the
 * C++ driver (drivers/cpp/src/rpc/protobuf.cpp). protobuf-java messages are immutable:
 * requests and responses are filled through Builders and serialized from
 * Builder.buildPartial() (the C++ driver serializes partially too).
 *
 * <ul>
 *   <li>reuse: one Builder per role, kept and clear()ed after each use; messages are parsed
 *       into the kept Builder (clear() then mergeFrom, the runtime's only in-place parse);
 *       kept byte[] buffers in bytes mode, one kept CodedOutputStream and CodedInputStream
 *       (64 KiB buffers) on a pipe. What protobuf-java cannot keep: nested messages and
 *       the repeated fields' elements, which C++'s Clear() keeps for reuse, are new objects
 *       for every message (a Builder's clear() drops them, and built messages are
 *       immutable), and buildPartial() allocates the message it returns.
 *   <li>no-reuse: fresh Builders, Parser.parsePartialFrom / parsePartialDelimitedFrom
 *       into fresh messages, toByteArray() and writeDelimitedTo() (fresh coded streams).
 *       On a pipe both modes read and write through 64 KiB buffers on the fd (the
 *       connection's, not a message's), flushed after every message.
 *   <li>pipe: each message preceded by its size as a varint (the delimited framing of
 *       writeDelimitedTo); bytes are counted at the fd, varint included.
 *   <li>text: String fields, as protobuf-java users write them; the catrank server searches
 *       the snippet String and copies the url's bytes (getUrlBytes, no decoding).
 * </ul>
 */
final class ProtobufRpc {
  private ProtobufRpc() {}

  /** The cases on the generated classes; builders implement the OrBuilder interfaces. */
  abstract static class Case<
      QB extends Message.Builder,
      QO extends MessageOrBuilder,
      SB extends Message.Builder,
      SO extends MessageOrBuilder> {
    abstract QB newRequest();

    abstract SB newResponse();

    abstract Parser<? extends QO> requestParser();

    abstract Parser<? extends SO> responseParser();

    abstract long setup(Rng rng, QB request);

    abstract void handle(QO request, SB response) throws Failure;

    abstract long answer(SO response) throws Failure;
  }

  // ---- carsales -------------------------------------------------------------------------

  private static final Carsales.Color[] COLORS = new Carsales.Color[Cases.COLORS];

  static {
    for (int i = 0; i < COLORS.length; ++i) {
      COLORS[i] = Carsales.Color.forNumber(i);
    }
  }

  static long carValue(Carsales.CarOrBuilder car) {
    int wheelSum = 0;
    for (int i = 0, n = car.getWheelCount(); i < n; ++i) {
      Carsales.Wheel w = car.getWheel(i);
      wheelSum += Cases.wheelValue(w.getDiameter(), w.getSnowTires());
    }
    Carsales.Engine e = car.getEngine();
    return Cases.carValue(
        car.getSeats(),
        car.getDoors(),
        wheelSum,
        car.getLength(),
        car.getWidth(),
        car.getHeight(),
        e.getHorsepower(),
        e.getUsesGas(),
        e.getUsesElectric(),
        car.getHasPowerWindows(),
        car.getHasPowerSteering(),
        car.getHasCruiseControl(),
        car.getHasNavSystem(),
        car.getCupHolders());
  }

  static final class CarSales
      extends Case<
          Carsales.ParkingLot.Builder,
          Carsales.ParkingLotOrBuilder,
          Carsales.TotalValue.Builder,
          Carsales.TotalValueOrBuilder> {
    @Override
    Carsales.ParkingLot.Builder newRequest() {
      return Carsales.ParkingLot.newBuilder();
    }

    @Override
    Carsales.TotalValue.Builder newResponse() {
      return Carsales.TotalValue.newBuilder();
    }

    @Override
    Parser<Carsales.ParkingLot> requestParser() {
      return Carsales.ParkingLot.parser();
    }

    @Override
    Parser<Carsales.TotalValue> responseParser() {
      return Carsales.TotalValue.parser();
    }

    private static Carsales.Car randomCar(Rng rng) {
      Carsales.Car.Builder car = Carsales.Car.newBuilder();
      car.setMake(Cases.MAKES[rng.rand(5)]);
      car.setModel(Cases.MODELS[rng.rand(6)]);
      // rand(9) as documented (the reference protobuf program draws rand(8)).
      car.setColor(COLORS[rng.rand(Cases.COLORS)]);
      car.setSeats(2 + rng.rand(6));
      car.setDoors(2 + rng.rand(3));
      for (int i = 0; i < 4; ++i) {
        car.addWheel(
            Carsales.Wheel.newBuilder()
                .setDiameter(25 + rng.rand(15))
                .setAirPressure((float) (30 + rng.randDouble(20)))
                .setSnowTires(rng.rand(16) == 0)
                .buildPartial());
      }
      int length = 170 + rng.rand(150);
      int width = 48 + rng.rand(36);
      int height = 54 + rng.rand(48);
      car.setLength(length);
      car.setWidth(width);
      car.setHeight(height);
      car.setWeight(Integer.divideUnsigned(length * width * height, 200));
      car.setEngine(
          Carsales.Engine.newBuilder()
              .setHorsepower(100 * rng.rand(400))
              .setCylinders(4 + 2 * rng.rand(3))
              .setCc(800 + rng.rand(10000))
              .setUsesGas(true)
              .setUsesElectric(rng.rand(2) != 0)
              .buildPartial());
      float capacity = (float) (10.0 + rng.randDouble(30.0));
      car.setFuelCapacity(capacity);
      car.setFuelLevel((float) rng.randDouble(capacity));
      car.setHasPowerWindows(rng.rand(2) != 0);
      car.setHasPowerSteering(rng.rand(2) != 0);
      car.setHasCruiseControl(rng.rand(2) != 0);
      car.setCupHolders(rng.rand(12));
      car.setHasNavSystem(rng.rand(2) != 0);
      return car.buildPartial();
    }

    @Override
    long setup(Rng rng, Carsales.ParkingLot.Builder request) {
      long total = 0;
      for (int n = rng.rand(200); n > 0; --n) {
        Carsales.Car car = randomCar(rng);
        request.addCar(car);
        total += carValue(car);
      }
      return total;
    }

    @Override
    void handle(Carsales.ParkingLotOrBuilder request, Carsales.TotalValue.Builder response) {
      long total = 0;
      for (int i = 0, n = request.getCarCount(); i < n; ++i) {
        total += carValue(request.getCar(i));
      }
      response.setAmount(total);
    }

    @Override
    long answer(Carsales.TotalValueOrBuilder response) {
      return response.getAmount();
    }
  }

  // ---- catrank --------------------------------------------------------------------------

  static final class CatRank
      extends Case<
          Catrank.SearchResultList.Builder,
          Catrank.SearchResultListOrBuilder,
          Catrank.SearchResultList.Builder,
          Catrank.SearchResultListOrBuilder> {
    // Drawing and sorting scratch, kept per cell (not message memory).
    private final StringBuilder text = new StringBuilder(512);
    private double[] scores = new double[1024];
    private int[] order = new int[1024];
    private String[] snippets = new String[1024];

    @Override
    Catrank.SearchResultList.Builder newRequest() {
      return Catrank.SearchResultList.newBuilder();
    }

    @Override
    Catrank.SearchResultList.Builder newResponse() {
      return Catrank.SearchResultList.newBuilder();
    }

    @Override
    Parser<Catrank.SearchResultList> requestParser() {
      return Catrank.SearchResultList.parser();
    }

    @Override
    Parser<Catrank.SearchResultList> responseParser() {
      return Catrank.SearchResultList.parser();
    }

    @Override
    long setup(Rng rng, Catrank.SearchResultList.Builder request) {
      int count = rng.rand(1000);
      long good = 0;
      for (int i = 0; i < count; ++i) {
        Catrank.SearchResult.Builder result = Catrank.SearchResult.newBuilder();
        result.setScore(1000 - i);
        text.setLength(0);
        text.append(Cases.URL_PREFIX);
        for (int n = rng.rand(100); n > 0; --n) {
          text.append((char) ('a' + rng.rand(26)));
        }
        result.setUrl(text.toString());
        text.setLength(0);
        if (Cases.appendSnippet(rng, text)) {
          ++good;
        }
        result.setSnippet(text.toString());
        request.addResult(result.buildPartial());
      }
      return good;
    }

    @Override
    void handle(Catrank.SearchResultListOrBuilder request, Catrank.SearchResultList.Builder resp) {
      int n = request.getResultCount();
      if (scores.length < n) {
        scores = new double[n];
        order = new int[n];
        snippets = new String[n];
      }
      for (int i = 0; i < n; ++i) {
        Catrank.SearchResult r = request.getResult(i);
        String s = r.getSnippet();
        snippets[i] = s;
        scores[i] = Cases.rescore(r.getScore(), s.contains(" cat "), s.contains(" dog "));
      }
      Cases.sortByScoreDescending(scores, order, n);
      for (int i = 0; i < n; ++i) {
        int k = order[i];
        Catrank.SearchResult r = request.getResult(k);
        resp.addResult(
            Catrank.SearchResult.newBuilder()
                .setScore(scores[k])
                .setUrlBytes(r.getUrlBytes())
                .setSnippet(snippets[k])
                .buildPartial());
      }
      Arrays.fill(snippets, 0, n, null);
    }

    @Override
    long answer(Catrank.SearchResultListOrBuilder response) {
      long good = 0;
      for (int i = 0, n = response.getResultCount(); i < n; ++i) {
        if (response.getResult(i).getScore() > 1001) {
          ++good;
        } else {
          break;
        }
      }
      return good;
    }
  }

  // ---- eval -----------------------------------------------------------------------------

  private static final Eval.Operation[] OPERATIONS = new Eval.Operation[Cases.OPS];

  static {
    for (int i = 0; i < OPERATIONS.length; ++i) {
      OPERATIONS[i] = Eval.Operation.forNumber(i);
    }
  }

  static final class EvalCase
      extends Case<
          Eval.Expression.Builder,
          Eval.ExpressionOrBuilder,
          Eval.EvaluationResult.Builder,
          Eval.EvaluationResultOrBuilder> {
    @Override
    Eval.Expression.Builder newRequest() {
      return Eval.Expression.newBuilder();
    }

    @Override
    Eval.EvaluationResult.Builder newResponse() {
      return Eval.EvaluationResult.newBuilder();
    }

    @Override
    Parser<Eval.Expression> requestParser() {
      return Eval.Expression.parser();
    }

    @Override
    Parser<Eval.EvaluationResult> responseParser() {
      return Eval.EvaluationResult.parser();
    }

    /** make(depth) into `exp`; sub-expressions are built bottom-up and set as messages. */
    private static int make(Rng rng, Eval.Expression.Builder exp, int depth) {
      int op = rng.rand(Cases.OPS);
      exp.setOp(OPERATIONS[op]);
      int left;
      if (rng.rand(8) < depth) {
        left = rng.rand(128) + 1;
        exp.setLeftValue(left);
      } else {
        Eval.Expression.Builder sub = Eval.Expression.newBuilder();
        left = make(rng, sub, depth + 1);
        exp.setLeftExpression(sub.buildPartial());
      }
      int right;
      if (rng.rand(8) < depth) {
        right = rng.rand(128) + 1;
        exp.setRightValue(right);
      } else {
        Eval.Expression.Builder sub = Eval.Expression.newBuilder();
        right = make(rng, sub, depth + 1);
        exp.setRightExpression(sub.buildPartial());
      }
      return Cases.apply(op, left, right);
    }

    private static int evaluate(Eval.ExpressionOrBuilder e, int depth) throws Failure {
      if (depth > 64) {
        throw new Failure("eval: expression nested too deeply");
      }
      int l;
      if (e.hasLeftValue()) {
        l = e.getLeftValue();
      } else if (e.hasLeftExpression()) {
        l = evaluate(e.getLeftExpression(), depth + 1);
      } else {
        throw new Failure("eval: expression without a left operand");
      }
      int r;
      if (e.hasRightValue()) {
        r = e.getRightValue();
      } else if (e.hasRightExpression()) {
        r = evaluate(e.getRightExpression(), depth + 1);
      } else {
        throw new Failure("eval: expression without a right operand");
      }
      int op = e.getOp().getNumber();
      if (op < 0 || op >= Cases.OPS) {
        throw new Failure("eval: unknown operation " + op);
      }
      return Cases.apply(op, l, r);
    }

    @Override
    long setup(Rng rng, Eval.Expression.Builder request) {
      return make(rng, request, 0);
    }

    @Override
    void handle(Eval.ExpressionOrBuilder request, Eval.EvaluationResult.Builder response)
        throws Failure {
      response.setValue(evaluate(request, 0));
    }

    @Override
    long answer(Eval.EvaluationResultOrBuilder response) {
      return response.getValue();
    }
  }

  // ---- the cell -------------------------------------------------------------------------

  /** Why: one policy for every driver (fuzz/README.md): a frame over 64 MiB is refused before
   *  it is read or allocated, whatever its size prefix says. */
  static final int MAX_MESSAGE_BYTES = 64 << 20;

  /** Why: hostile nesting (unknown groups, nested messages) must end in an error, not a stack
   *  overflow; protobuf's own default, set explicitly so that no library change moves it. */
  static final int RECURSION_LIMIT = 100;

  /** Writes delimited messages: a kept coded stream (reuse) or writeDelimitedTo. */
  private static final class Writer {
    private final boolean reuse;
    private final CodedOutputStream coded;
    private final OutputStream buffered;

    Writer(OutputStream out, boolean reuse) {
      this.reuse = reuse;
      coded = reuse ? CodedOutputStream.newInstance(out, Io.BUFFER_BYTES) : null;
      buffered = reuse ? null : new BufferedOutputStream(out, Io.BUFFER_BYTES);
    }

    void send(Message m) throws IOException {
      if (reuse) {
        coded.writeUInt32NoTag(m.getSerializedSize());
        m.writeTo(coded);
        coded.flush();
      } else {
        m.writeDelimitedTo(buffered);
        buffered.flush();
      }
    }
  }

  /**
   * Reads delimited messages: into a kept Builder through a kept coded stream (reuse), or into a
   * fresh message through a fresh coded stream over the message's bytes (no-reuse; what the
   * parser's parsePartialDelimitedFrom does, with the limits below set explicitly). Both read the
   * varint size prefix themselves and refuse a size over {@link #MAX_MESSAGE_BYTES} before
   * reading or allocating anything of the message.
   */
  private static final class Reader {
    private final boolean reuse;
    private final CodedInputStream coded;
    private final InputStream buffered;

    Reader(InputStream in, boolean reuse) {
      this.reuse = reuse;
      coded = reuse ? CodedInputStream.newInstance(in, Io.BUFFER_BYTES) : null;
      if (coded != null) {
        coded.setRecursionLimit(RECURSION_LIMIT);
        coded.setSizeLimit(MAX_MESSAGE_BYTES + 10); // the prefix and one message
      }
      buffered = reuse ? null : new BufferedInputStream(in, Io.BUFFER_BYTES);
    }

    /** The next message, or null at a clean end of file before its size prefix. */
    <O extends MessageOrBuilder> O next(Message.Builder kept, Parser<? extends O> parser)
        throws IOException, Failure {
      if (!reuse) {
        int first = buffered.read();
        if (first < 0) {
          return null;
        }
        int size = checkedSize(CodedInputStream.readRawVarint32(first, buffered));
        CodedInputStream message = CodedInputStream.newInstance(new Bounded(buffered, size));
        message.setRecursionLimit(RECURSION_LIMIT);
        O o = parser.parsePartialFrom(message);
        message.checkLastTagWas(0);
        if (message.getTotalBytesRead() != size) {
          throw new Failure("protobuf: truncated message of " + size + " bytes");
        }
        return o;
      }
      if (coded.isAtEnd()) {
        return null;
      }
      int size = checkedSize(coded.readRawVarint32());
      int old = coded.pushLimit(size);
      kept.clear();
      kept.mergeFrom(coded);
      if (coded.getBytesUntilLimit() != 0) {
        throw new Failure("corrupt protobuf message of " + size + " bytes");
      }
      coded.popLimit(old);
      coded.resetSizeCounter();
      @SuppressWarnings("unchecked")
      O o = (O) kept;
      return o;
    }
  }

  /** A size prefix, refused (naming it and the limit) if it is over MAX_MESSAGE_BYTES. */
  private static int checkedSize(int size) throws Failure {
    if (size < 0 || size > MAX_MESSAGE_BYTES) {
      throw new Failure(
          "corrupt protobuf stream: message size " + Integer.toUnsignedString(size)
              + " bytes is over the limit of " + MAX_MESSAGE_BYTES + " bytes");
    }
    return size;
  }

  /** At most `left` bytes of `in`: one delimited message's (as protobuf's own reader bounds it). */
  private static final class Bounded extends InputStream {
    private final InputStream in;
    private int left;

    Bounded(InputStream in, int left) {
      this.in = in;
      this.left = left;
    }

    @Override
    public int read() throws IOException {
      if (left == 0) {
        return -1;
      }
      int b = in.read();
      if (b >= 0) {
        --left;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left == 0) {
        return -1;
      }
      int n = in.read(b, off, Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }

    @Override
    public int available() throws IOException {
      return Math.min(in.available(), left);
    }
  }

  /** The reader and writer of one side of a pipe. */
  static final class Conn {
    final Reader in;
    final Writer out;

    Conn(InputStream in, OutputStream out, boolean reuse) {
      this.in = new Reader(in, reuse);
      this.out = new Writer(out, reuse);
    }
  }

  static final class Cell<
          QB extends Message.Builder,
          QO extends MessageOrBuilder,
          SB extends Message.Builder,
          SO extends MessageOrBuilder>
      implements Impl<Conn> {
    private final Case<QB, QO, SB, SO> c;
    private final boolean reuse;
    private final QB clientRequest;
    private final QB serverRequest;
    private final SB serverResponse;
    private final SB clientResponse;
    private byte[] requestBytes = new byte[1024];
    private byte[] responseBytes = new byte[1024];

    Cell(Case<QB, QO, SB, SO> c, boolean reuse) {
      this.c = c;
      this.reuse = reuse;
      clientRequest = c.newRequest();
      serverRequest = c.newRequest();
      serverResponse = c.newResponse();
      clientResponse = c.newResponse();
    }

    private QB requestBuilder() {
      return reuse ? clientRequest : c.newRequest();
    }

    private SB responseBuilder() {
      return reuse ? serverResponse : c.newResponse();
    }

    @SuppressWarnings("unchecked")
    private QO asRequest(QB b) {
      return (QO) b;
    }

    @SuppressWarnings("unchecked")
    private SO asResponse(SB b) {
      return (SO) b;
    }

    /** The builder's message, built; a kept builder is cleared for its next use. */
    private static Message built(Message.Builder b, boolean clear) {
      Message m = b.buildPartial();
      if (clear) {
        b.clear();
      }
      return m;
    }

    /** Serializes `m` into the kept buffer (reuse, grown as needed) or a fresh one. */
    private byte[] serialize(Message m, byte[] kept) throws IOException {
      if (!reuse) {
        return m.toByteArray();
      }
      int n = m.getSerializedSize();
      byte[] b = kept.length >= n ? kept : new byte[Math.max(n, 2 * kept.length)];
      CodedOutputStream o = CodedOutputStream.newInstance(b, 0, n);
      m.writeTo(o);
      o.checkNoSpaceLeft();
      return b;
    }

    private <O extends MessageOrBuilder> O parse(
        byte[] b, int n, Message.Builder kept, Parser<? extends O> parser)
        throws InvalidProtocolBufferException, IOException {
      if (!reuse) {
        return parser.parsePartialFrom(b, 0, n);
      }
      kept.clear();
      kept.mergeFrom(CodedInputStream.newInstance(b, 0, n));
      @SuppressWarnings("unchecked")
      O o = (O) kept;
      return o;
    }

    @Override
    public long objectOnce(Rng rng) throws Failure {
      QB request = requestBuilder();
      long expected = c.setup(rng, request);
      SB response = responseBuilder();
      c.handle(asRequest(request), response);
      long term = Cases.verified(expected, c.answer(asResponse(response)));
      if (reuse) {
        request.clear();
        response.clear();
      }
      return term;
    }

    @Override
    public long bytesOnce(Rng rng, Loops.Tally t) throws Failure {
      try {
        QB request = requestBuilder();
        long expected = c.setup(rng, request);
        Message rq = built(request, reuse);
        int n = rq.getSerializedSize();
        byte[] rqb = serialize(rq, requestBytes);
        requestBytes = reuse ? rqb : requestBytes;
        t.bytes += n;

        QO sreq = parse(rqb, n, serverRequest, c.requestParser());
        SB response = responseBuilder();
        c.handle(sreq, response);
        Message rs = built(response, reuse);
        int m = rs.getSerializedSize();
        byte[] rsb = serialize(rs, responseBytes);
        responseBytes = reuse ? rsb : responseBytes;
        t.bytes += m;

        SO cresp = parse(rsb, m, clientResponse, c.responseParser());
        return Cases.verified(expected, c.answer(cresp));
      } catch (IOException | RuntimeException e) {
        // protobuf-java's parser lets some corrupt input through as runtime exceptions
        // (IndexOutOfBoundsException from its unknown-field parsing, found by fuzzing).
        throw Failure.of("protobuf", e);
      }
    }

    @Override
    public Conn connect(InputStream in, OutputStream out) {
      return new Conn(in, out, reuse);
    }

    @Override
    public long sendOnce(Rng rng, Conn conn, Loops.Expectations posted) throws Failure {
      try {
        QB request = requestBuilder();
        long expected = c.setup(rng, request);
        posted.post(expected);
        conn.out.send(built(request, reuse));
        return expected;
      } catch (IOException | RuntimeException e) {
        // protobuf-java's parser lets some corrupt input through as runtime exceptions
        // (IndexOutOfBoundsException from its unknown-field parsing, found by fuzzing).
        throw Failure.of("protobuf", e);
      }
    }

    @Override
    public long receiveOnce(Conn conn, long expected) throws Failure {
      try {
        SO response = conn.in.next(clientResponse, c.responseParser());
        if (response == null) {
          throw new Loops.EndOfStream();
        }
        return Cases.verified(expected, c.answer(response));
      } catch (IOException | RuntimeException e) {
        // protobuf-java's parser lets some corrupt input through as runtime exceptions
        // (IndexOutOfBoundsException from its unknown-field parsing, found by fuzzing).
        throw Failure.of("protobuf", e);
      }
    }

    @Override
    public boolean serveOnce(Conn conn) throws Failure {
      try {
        QO request = conn.in.next(serverRequest, c.requestParser());
        if (request == null) {
          return false;
        }
        SB response = responseBuilder();
        c.handle(request, response);
        conn.out.send(built(response, reuse));
        return true;
      } catch (IOException | RuntimeException e) {
        // protobuf-java's parser lets some corrupt input through as runtime exceptions
        // (IndexOutOfBoundsException from its unknown-field parsing, found by fuzzing).
        throw Failure.of("protobuf", e);
      }
    }
  }

  /** The library's factory (RpcSuite.LIBS): its cell of a case, or null. */
  static Impl<?> make(String kase, String compression, boolean reuse) {
    if (!compression.equals("none")) {
      return null;
    }
    return Cases.<Impl<?>>byCase(
        kase,
        () -> new Cell<>(new CarSales(), reuse),
        () -> new Cell<>(new CatRank(), reuse),
        () -> new Cell<>(new EvalCase(), reuse));
  }
}
