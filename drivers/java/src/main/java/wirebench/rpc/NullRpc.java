package wirebench.rpc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Supplier;
import wirebench.Failure;
import wirebench.Rng;

/**
 * The rpc suite with no serialization library: plain Java objects, the floor the libraries
 * are measured against. The byte format is the C++ driver's, documented at the top of
 * drivers/cpp/src/rpc/null.cpp (little-endian, no padding; str = u32 count + bytes; list =
 * u32 count + elements; bool = u8 0/1; eval: op u8, kinds u8 (bit 0: left is an
 * Expression, bit 1: right), operands pre-order; a reader accepts a message only if it is
 * exactly consumed and every value is in range). On a pipe each message is a u32 LE byte
 * count followed by the message, written with one write and read with two reads straight
 * from the fd (as the Rust driver does); `bytes` counts the messages only, pipes the
 * prefixes too.
 *
 * <p>Memory: reuse keeps every message's objects, lists and byte arrays (a {@link Slots}
 * list keeps its cleared elements, and their {@link Bytes} keep their arrays, so after
 * warm-up a message allocates nothing), like the C++ arena; no-reuse builds every message
 * and buffer afresh, like the C++ per-object mallocs (the garbage collector frees them).
 * Text is bytes, never java.lang.String: the C++ and Rust structs hold raw bytes too.
 */
final class NullRpc {
  private NullRpc() {}

  // ---- memory ---------------------------------------------------------------------------

  /** A list whose cleared elements are kept for reuse. */
  static final class Slots<T> {
    private final Supplier<T> make;
    private Object[] items = new Object[4];
    private int made;
    int len;

    Slots(Supplier<T> make) {
      this.make = make;
    }

    void clear() {
      len = 0;
    }

    @SuppressWarnings("unchecked")
    T next() {
      if (len == made) {
        if (made == items.length) {
          items = Arrays.copyOf(items, 2 * made);
        }
        items[made++] = make.get();
      }
      return (T) items[len++];
    }

    void reserve(int n) {
      if (items.length < n) {
        items = Arrays.copyOf(items, n);
      }
    }

    @SuppressWarnings("unchecked")
    T get(int i) {
      return (T) items[i];
    }
  }

  // ---- the byte format ------------------------------------------------------------------

  private static final VarHandle I16 =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle I32 =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle I64 =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** A growable output buffer: kept (reuse) or fresh per message (no-reuse). */
  static final class W {
    byte[] a = new byte[256];
    int n;

    private void room(int k) {
      if (n + k > a.length) {
        a = Arrays.copyOf(a, Math.max(n + k, 2 * a.length));
      }
    }

    void u8(int v) {
      room(1);
      a[n++] = (byte) v;
    }

    void u16(int v) {
      room(2);
      I16.set(a, n, (short) v);
      n += 2;
    }

    void u32(int v) {
      room(4);
      I32.set(a, n, v);
      n += 4;
    }

    void u64(long v) {
      room(8);
      I64.set(a, n, v);
      n += 8;
    }

    void f32(float v) {
      u32(Float.floatToRawIntBits(v));
    }

    void f64(double v) {
      u64(Double.doubleToRawLongBits(v));
    }

    void bool(boolean v) {
      u8(v ? 1 : 0);
    }

    void str(Bytes s) {
      u32(s.n);
      room(s.n);
      System.arraycopy(s.a, 0, a, n, s.n);
      n += s.n;
    }
  }

  /** Reads a message from a[0..end), checking every bound and value. */
  static final class R {
    private final byte[] a;
    private int p;
    private final int end;

    R(byte[] a, int end) {
      this.a = a;
      this.end = end;
    }

    private void need(int k) throws Failure {
      if (k > end - p) {
        throw new Failure("null: truncated message");
      }
    }

    int u8() throws Failure {
      need(1);
      return a[p++] & 0xff;
    }

    int u16() throws Failure {
      need(2);
      int v = (short) I16.get(a, p) & 0xffff;
      p += 2;
      return v;
    }

    int u32() throws Failure {
      need(4);
      int v = (int) I32.get(a, p);
      p += 4;
      return v;
    }

    long u64() throws Failure {
      need(8);
      long v = (long) I64.get(a, p);
      p += 8;
      return v;
    }

    float f32() throws Failure {
      return Float.intBitsToFloat(u32());
    }

    double f64() throws Failure {
      return Double.longBitsToDouble(u64());
    }

    boolean bool() throws Failure {
      int b = u8();
      if (b > 1) {
        throw new Failure("null: corrupt message: bool byte " + b);
      }
      return b != 0;
    }

    int below(int limit, String what) throws Failure {
      int v = u8();
      if (v >= limit) {
        throw new Failure("null: corrupt message: " + what + " " + v);
      }
      return v;
    }

    /** Reads a str into `out` (cleared first, array kept). */
    void str(Bytes out) throws Failure {
      long n = Cases.u32(u32());
      if (n > end - p) {
        throw new Failure("null: truncated message");
      }
      out.clear();
      out.add(a, p, (int) n);
      p += (int) n;
    }

    /** An element count, refused if the rest cannot hold that many elements. */
    int count(int minElementBytes) throws Failure {
      long n = Cases.u32(u32());
      if (n > (end - p) / minElementBytes) {
        throw new Failure(
            "null: corrupt message: list of " + n + " elements in " + (end - p) + " bytes");
      }
      return (int) n;
    }

    void finish() throws Failure {
      if (p != end) {
        throw new Failure("null: corrupt message: " + (end - p) + " bytes after the end");
      }
    }
  }

  interface Msg {
    void encode(W w);

    void decode(R r) throws Failure;
  }

  /** One case: its messages, the client's setup and check, the server's work. */
  interface Case<Q extends Msg, S extends Msg> {
    Q newRequest();

    S newResponse();

    /** Fills `request` (cleared first) with the next request; returns its expectation. */
    long setup(Rng rng, Q request);

    void handle(Q request, S response);

    long answer(S response);
  }

  // ---- carsales -------------------------------------------------------------------------

  static final class Wheel {
    int diameter;
    float airPressure;
    boolean snowTires;
  }

  static final class Car {
    Bytes make = new Bytes(0);
    Bytes model = new Bytes(0);
    int color;
    int seats;
    int doors;
    final Slots<Wheel> wheels = new Slots<>(Wheel::new);
    int length;
    int width;
    int height;
    int weight;
    int horsepower;
    int cylinders;
    int cc;
    boolean usesGas;
    boolean usesElectric;
    float fuelCapacity;
    float fuelLevel;
    boolean hasPowerWindows;
    boolean hasPowerSteering;
    boolean hasCruiseControl;
    int cupHolders;
    boolean hasNavSystem;

    long value() {
      int wheelSum = 0;
      for (int i = 0; i < wheels.len; ++i) {
        Wheel w = wheels.get(i);
        wheelSum += Cases.wheelValue(w.diameter, w.snowTires);
      }
      return Cases.carValue(
          seats, doors, wheelSum, length, width, height, horsepower, usesGas, usesElectric,
          hasPowerWindows, hasPowerSteering, hasCruiseControl, hasNavSystem, cupHolders);
    }
  }

  private static final int WHEEL_BYTES = 2 + 4 + 1;
  private static final int ENGINE_BYTES = 2 + 1 + 4 + 1 + 1;
  private static final int CAR_FIXED_BYTES = 4 + 4 + 3 + 4 + 6 + 4 + ENGINE_BYTES + 8 + 5;

  static final class ParkingLot implements Msg {
    final Slots<Car> cars = new Slots<>(Car::new);

    @Override
    public void encode(W w) {
      w.u32(cars.len);
      for (int i = 0; i < cars.len; ++i) {
        Car car = cars.get(i);
        w.str(car.make);
        w.str(car.model);
        w.u8(car.color);
        w.u8(car.seats);
        w.u8(car.doors);
        w.u32(car.wheels.len);
        for (int j = 0; j < car.wheels.len; ++j) {
          Wheel wh = car.wheels.get(j);
          w.u16(wh.diameter);
          w.f32(wh.airPressure);
          w.bool(wh.snowTires);
        }
        w.u16(car.length);
        w.u16(car.width);
        w.u16(car.height);
        w.u32(car.weight);
        w.u16(car.horsepower);
        w.u8(car.cylinders);
        w.u32(car.cc);
        w.bool(car.usesGas);
        w.bool(car.usesElectric);
        w.f32(car.fuelCapacity);
        w.f32(car.fuelLevel);
        w.bool(car.hasPowerWindows);
        w.bool(car.hasPowerSteering);
        w.bool(car.hasCruiseControl);
        w.u8(car.cupHolders);
        w.bool(car.hasNavSystem);
      }
    }

    @Override
    public void decode(R r) throws Failure {
      int n = r.count(CAR_FIXED_BYTES);
      cars.clear();
      cars.reserve(n);
      for (int i = 0; i < n; ++i) {
        Car car = cars.next();
        // A decoded car owns its text (a car filled by setup shares the constants).
        r.str(ownText(car, true));
        r.str(ownText(car, false));
        car.color = r.below(Cases.COLORS, "color");
        car.seats = r.u8();
        car.doors = r.u8();
        int wheels = r.count(WHEEL_BYTES);
        car.wheels.clear();
        for (int j = 0; j < wheels; ++j) {
          Wheel wh = car.wheels.next();
          wh.diameter = r.u16();
          wh.airPressure = r.f32();
          wh.snowTires = r.bool();
        }
        car.length = r.u16();
        car.width = r.u16();
        car.height = r.u16();
        car.weight = r.u32();
        car.horsepower = r.u16();
        car.cylinders = r.u8();
        car.cc = r.u32();
        car.usesGas = r.bool();
        car.usesElectric = r.bool();
        car.fuelCapacity = r.f32();
        car.fuelLevel = r.f32();
        car.hasPowerWindows = r.bool();
        car.hasPowerSteering = r.bool();
        car.hasCruiseControl = r.bool();
        car.cupHolders = r.u8();
        car.hasNavSystem = r.bool();
      }
    }
  }

  /** The car's make or model Bytes, replaced by an owned one if it shares a constant. */
  private static Bytes ownText(Car car, boolean make) {
    Bytes b = make ? car.make : car.model;
    for (byte[] c : make ? Cases.MAKE_BYTES : Cases.MODEL_BYTES) {
      if (b.a == c) {
        b = new Bytes();
        break;
      }
    }
    if (make) {
      car.make = b;
    } else {
      car.model = b;
    }
    return b;
  }

  static final class TotalValue implements Msg {
    long amount;

    @Override
    public void encode(W w) {
      w.u64(amount);
    }

    @Override
    public void decode(R r) throws Failure {
      amount = r.u64();
    }
  }

  /** Shared make/model text: the C++ null library points at the static strings too. */
  private static final Bytes[] MAKES = constants(Cases.MAKE_BYTES);

  private static final Bytes[] MODELS = constants(Cases.MODEL_BYTES);

  private static Bytes[] constants(byte[][] b) {
    Bytes[] out = new Bytes[b.length];
    for (int i = 0; i < b.length; ++i) {
      out[i] = Bytes.constant(b[i]);
    }
    return out;
  }

  static final class CarSales implements Case<ParkingLot, TotalValue> {
    @Override
    public ParkingLot newRequest() {
      return new ParkingLot();
    }

    @Override
    public TotalValue newResponse() {
      return new TotalValue();
    }

    @Override
    public long setup(Rng rng, ParkingLot req) {
      int count = rng.rand(200);
      req.cars.clear();
      req.cars.reserve(count);
      long total = 0;
      for (int i = 0; i < count; ++i) {
        Car car = req.cars.next();
        car.make = MAKES[rng.rand(5)];
        car.model = MODELS[rng.rand(6)];
        car.color = rng.rand(Cases.COLORS);
        car.seats = 2 + rng.rand(6);
        car.doors = 2 + rng.rand(3);
        car.wheels.clear();
        for (int j = 0; j < 4; ++j) {
          Wheel w = car.wheels.next();
          w.diameter = 25 + rng.rand(15);
          w.airPressure = (float) (30 + rng.randDouble(20));
          w.snowTires = rng.rand(16) == 0;
        }
        int length = 170 + rng.rand(150);
        int width = 48 + rng.rand(36);
        int height = 54 + rng.rand(48);
        car.length = length;
        car.width = width;
        car.height = height;
        car.weight = Integer.divideUnsigned(length * width * height, 200);
        car.horsepower = 100 * rng.rand(400);
        car.cylinders = 4 + 2 * rng.rand(3);
        car.cc = 800 + rng.rand(10000);
        car.usesGas = true;
        car.usesElectric = rng.rand(2) != 0;
        car.fuelCapacity = (float) (10.0 + rng.randDouble(30.0));
        car.fuelLevel = (float) rng.randDouble(car.fuelCapacity);
        car.hasPowerWindows = rng.rand(2) != 0;
        car.hasPowerSteering = rng.rand(2) != 0;
        car.hasCruiseControl = rng.rand(2) != 0;
        car.cupHolders = rng.rand(12);
        car.hasNavSystem = rng.rand(2) != 0;
        total += car.value();
      }
      return total;
    }

    @Override
    public void handle(ParkingLot req, TotalValue resp) {
      long total = 0;
      for (int i = 0; i < req.cars.len; ++i) {
        total += req.cars.get(i).value();
      }
      resp.amount = total;
    }

    @Override
    public long answer(TotalValue resp) {
      return resp.amount;
    }
  }

  // ---- catrank --------------------------------------------------------------------------

  static final class SearchResult {
    final Bytes url = new Bytes(128);
    double score;
    final Bytes snippet = new Bytes(256);
  }

  private static final int RESULT_FIXED_BYTES = 4 + 8 + 4;

  static final class SearchResultList implements Msg {
    final Slots<SearchResult> results = new Slots<>(SearchResult::new);

    @Override
    public void encode(W w) {
      w.u32(results.len);
      for (int i = 0; i < results.len; ++i) {
        SearchResult r = results.get(i);
        w.str(r.url);
        w.f64(r.score);
        w.str(r.snippet);
      }
    }

    @Override
    public void decode(R r) throws Failure {
      int n = r.count(RESULT_FIXED_BYTES);
      results.clear();
      results.reserve(n);
      for (int i = 0; i < n; ++i) {
        SearchResult out = results.next();
        r.str(out.url);
        out.score = r.f64();
        r.str(out.snippet);
      }
    }
  }

  private static final byte[] CAT = "cat".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DOG = "dog".getBytes(StandardCharsets.US_ASCII);

  static final class CatRank implements Case<SearchResultList, SearchResultList> {
    // The server's scratch for sorting: kept by the cell's case object in both reuse modes
    // (the C++ driver's std::vector is fresh per message; these are not message memory).
    private double[] scores = new double[1024];
    private int[] order = new int[1024];

    @Override
    public SearchResultList newRequest() {
      return new SearchResultList();
    }

    @Override
    public SearchResultList newResponse() {
      return new SearchResultList();
    }

    @Override
    public long setup(Rng rng, SearchResultList req) {
      int count = rng.rand(1000);
      req.results.clear();
      req.results.reserve(count);
      long good = 0;
      for (int i = 0; i < count; ++i) {
        SearchResult r = req.results.next();
        r.score = 1000 - i;
        r.url.clear();
        r.url.add(Cases.URL_PREFIX_BYTES);
        int letters = rng.rand(100);
        int at = r.url.extend(letters);
        byte[] u = r.url.a;
        for (int j = 0; j < letters; ++j) {
          u[at + j] = (byte) ('a' + rng.rand(26));
        }
        r.snippet.clear();
        if (Cases.appendSnippet(rng, r.snippet)) {
          ++good;
        }
      }
      return good;
    }

    @Override
    public void handle(SearchResultList req, SearchResultList resp) {
      int n = req.results.len;
      if (scores.length < n) {
        scores = new double[n];
        order = new int[n];
      }
      for (int i = 0; i < n; ++i) {
        SearchResult r = req.results.get(i);
        Bytes s = r.snippet;
        scores[i] =
            Cases.rescore(
                r.score,
                Cases.containsWord(s.a, 0, s.n, CAT[0], CAT[1], CAT[2]),
                Cases.containsWord(s.a, 0, s.n, DOG[0], DOG[1], DOG[2]));
      }
      Cases.sortByScoreDescending(scores, order, n);
      resp.results.clear();
      resp.results.reserve(n);
      for (int i = 0; i < n; ++i) {
        SearchResult r = req.results.get(order[i]);
        SearchResult out = resp.results.next();
        out.url.clear();
        out.url.add(r.url.a, 0, r.url.n);
        out.score = scores[order[i]];
        out.snippet.clear();
        out.snippet.add(r.snippet.a, 0, r.snippet.n);
      }
    }

    @Override
    public long answer(SearchResultList resp) {
      long good = 0;
      for (int i = 0; i < resp.results.len; ++i) {
        if (resp.results.get(i).score > 1001) {
          ++good;
        } else {
          break;
        }
      }
      return good;
    }
  }

  // ---- eval -----------------------------------------------------------------------------

  static final class Node {
    int op;
    boolean leftIsExpr;
    /** The value, or the index of the sub-expression in the node list. */
    int left;

    boolean rightIsExpr;
    int right;
  }

  /** Why: the null format's only recursion (eval's expressions, decoded and evaluated
   *  recursively) is bounded like Cap'n Proto's nesting limit, so that hostile nesting is an
   *  error, not a stack overflow; the generator never nests deeper than 9. */
  static final int MAX_DEPTH = 64;

  /** An expression tree: nodes in pre-order, the root at index 0. */
  static final class Expression implements Msg {
    final Slots<Node> nodes = new Slots<>(Node::new);

    /** Builds make(depth) at the next node; returns its value. */
    int build(Rng rng, int depth) {
      Node n = nodes.next();
      int op = rng.rand(Cases.OPS);
      n.op = op;
      int lv;
      if (rng.rand(8) < depth) {
        lv = rng.rand(128) + 1;
        n.leftIsExpr = false;
        n.left = lv;
      } else {
        n.leftIsExpr = true;
        n.left = nodes.len;
        lv = build(rng, depth + 1);
      }
      int rv;
      if (rng.rand(8) < depth) {
        rv = rng.rand(128) + 1;
        n.rightIsExpr = false;
        n.right = rv;
      } else {
        n.rightIsExpr = true;
        n.right = nodes.len;
        rv = build(rng, depth + 1);
      }
      return Cases.apply(op, lv, rv);
    }

    int evaluate(int at) {
      Node n = nodes.get(at);
      int l = n.leftIsExpr ? evaluate(n.left) : n.left;
      int r = n.rightIsExpr ? evaluate(n.right) : n.right;
      return Cases.apply(n.op, l, r);
    }

    private void encodeAt(W w, int at) {
      Node n = nodes.get(at);
      w.u8(n.op);
      w.u8((n.leftIsExpr ? 1 : 0) | (n.rightIsExpr ? 2 : 0));
      if (n.leftIsExpr) {
        encodeAt(w, n.left);
      } else {
        w.u32(n.left);
      }
      if (n.rightIsExpr) {
        encodeAt(w, n.right);
      } else {
        w.u32(n.right);
      }
    }

    private void decodeAt(R r, int depth) throws Failure {
      if (depth > MAX_DEPTH) {
        throw new Failure("null: corrupt message: expression nested too deeply");
      }
      Node n = nodes.next();
      n.op = r.below(Cases.OPS, "operation");
      int kinds = r.below(4, "operand kinds");
      n.leftIsExpr = (kinds & 1) != 0;
      if (n.leftIsExpr) {
        n.left = nodes.len;
        decodeAt(r, depth + 1);
      } else {
        n.left = r.u32();
      }
      n.rightIsExpr = (kinds & 2) != 0;
      if (n.rightIsExpr) {
        n.right = nodes.len;
        decodeAt(r, depth + 1);
      } else {
        n.right = r.u32();
      }
    }

    @Override
    public void encode(W w) {
      encodeAt(w, 0);
    }

    @Override
    public void decode(R r) throws Failure {
      nodes.clear();
      decodeAt(r, 0);
    }
  }

  static final class EvaluationResult implements Msg {
    int value;

    @Override
    public void encode(W w) {
      w.u32(value);
    }

    @Override
    public void decode(R r) throws Failure {
      value = r.u32();
    }
  }

  static final class Eval implements Case<Expression, EvaluationResult> {
    @Override
    public Expression newRequest() {
      return new Expression();
    }

    @Override
    public EvaluationResult newResponse() {
      return new EvaluationResult();
    }

    @Override
    public long setup(Rng rng, Expression req) {
      req.nodes.clear();
      return req.build(rng, 0);
    }

    @Override
    public void handle(Expression req, EvaluationResult resp) {
      resp.value = req.evaluate(0);
    }

    @Override
    public long answer(EvaluationResult resp) {
      return resp.value;
    }
  }

  // ---- framing --------------------------------------------------------------------------

  /** Why: one policy for every driver (fuzz/README.md): a frame whose u32 count says more
   *  than 64 MiB is refused before its buffer is allocated or anything of it read. */
  static final long MAX_MESSAGE_BYTES = 64 << 20;

  /** Encodes `m` into `w` (cleared); returns its size. */
  private static int encode(Msg m, W w) {
    w.n = 0;
    m.encode(w);
    return w.n;
  }

  private static void decode(Msg m, byte[] a, int n) throws Failure {
    R r = new R(a, n);
    m.decode(r);
    r.finish();
  }

  /** Writes the u32 size prefix and the message with one write. */
  private static void writeFramed(OutputStream out, Msg m, W w) throws IOException {
    w.n = 4;
    m.encode(w);
    I32.set(w.a, 0, w.n - 4);
    out.write(w.a, 0, w.n);
  }

  /** Reads exactly `len` bytes into a[off..); returns how many were read before the end. */
  private static int readFully(InputStream in, byte[] a, int off, int len) throws IOException {
    int got = 0;
    while (got < len) {
      int n = in.read(a, off + got, len - got);
      if (n < 0) {
        break;
      }
      got += n;
    }
    return got;
  }

  /**
   * Reads the next framed message into `m` through `buf`; false at a clean end of file
   * before the size prefix.
   */
  private static boolean readFramed(InputStream in, Msg m, W buf) throws IOException, Failure {
    if (buf.a.length < 4) {
      buf.a = new byte[4];
    }
    int got = readFully(in, buf.a, 0, 4);
    if (got < 4) {
      if (got == 0) {
        return false;
      }
      throw new Failure(
          "truncated null message size prefix: end of file after " + got + " of 4 bytes");
    }
    long size = Cases.u32((int) I32.get(buf.a, 0));
    if (size > MAX_MESSAGE_BYTES) {
      throw new Failure(
          "null: corrupt stream: message size " + size + " bytes is over the limit of "
              + MAX_MESSAGE_BYTES + " bytes");
    }
    int n = (int) size;
    if (buf.a.length < n) {
      buf.a = new byte[Math.max(n, 2 * buf.a.length)];
    }
    int body = readFully(in, buf.a, 0, n);
    if (body < n) {
      throw new Failure(
          "null: truncated message of " + n + " bytes: end of file after " + body);
    }
    decode(m, buf.a, n);
    return true;
  }

  // ---- the cell -------------------------------------------------------------------------

  /**
   * One side of a pipe: the streams themselves, unbuffered (each message is written with one
   * write and read with two reads).
   */
  static final class Conn {
    final InputStream in;
    final OutputStream out;

    Conn(InputStream in, OutputStream out) {
      this.in = in;
      this.out = out;
    }
  }

  static final class Cell<Q extends Msg, S extends Msg> implements Impl<Conn> {
    private final Case<Q, S> c;
    private final boolean reuse;
    // Kept messages and buffers (reuse): client request, server request, server response,
    // client response, request bytes, response bytes.
    private final Q m1;
    private final Q m2;
    private final S r1;
    private final S r2;
    private final W b1 = new W();
    private final W b2 = new W();

    Cell(Case<Q, S> c, boolean reuse) {
      this.c = c;
      this.reuse = reuse;
      m1 = c.newRequest();
      m2 = c.newRequest();
      r1 = c.newResponse();
      r2 = c.newResponse();
    }

    private Q req(Q kept) {
      return reuse ? kept : c.newRequest();
    }

    private S resp(S kept) {
      return reuse ? kept : c.newResponse();
    }

    private W buf(W kept) {
      return reuse ? kept : new W();
    }

    @Override
    public long objectOnce(Rng rng) throws Failure {
      Q request = req(m1);
      long expected = c.setup(rng, request);
      S response = resp(r1);
      c.handle(request, response);
      return Cases.verified(expected, c.answer(response));
    }

    @Override
    public long bytesOnce(Rng rng, Loops.Tally t) throws Failure {
      Q request = req(m1);
      long expected = c.setup(rng, request);
      W rq = buf(b1);
      t.bytes += encode(request, rq);

      Q serverRequest = req(m2);
      decode(serverRequest, rq.a, rq.n);
      S serverResponse = resp(r1);
      c.handle(serverRequest, serverResponse);
      W rs = buf(b2);
      t.bytes += encode(serverResponse, rs);

      S response = resp(r2);
      decode(response, rs.a, rs.n);
      return Cases.verified(expected, c.answer(response));
    }

    @Override
    public Conn connect(InputStream in, OutputStream out) {
      return new Conn(in, out);
    }

    @Override
    public long sendOnce(Rng rng, Conn conn, Loops.Expectations posted) throws Failure {
      try {
        Q request = req(m1);
        long expected = c.setup(rng, request);
        posted.post(expected);
        writeFramed(conn.out, request, buf(b1));
        return expected;
      } catch (IOException e) {
        throw Failure.of("I/O error", e);
      }
    }

    @Override
    public long receiveOnce(Conn conn, long expected) throws Failure {
      try {
        S response = resp(r2);
        if (!readFramed(conn.in, response, buf(b2))) {
          throw new Loops.EndOfStream();
        }
        return Cases.verified(expected, c.answer(response));
      } catch (IOException e) {
        throw Failure.of("I/O error", e);
      }
    }

    @Override
    public boolean serveOnce(Conn conn) throws Failure {
      try {
        Q request = req(m2);
        if (!readFramed(conn.in, request, buf(b1))) {
          return false;
        }
        S response = resp(r1);
        c.handle(request, response);
        writeFramed(conn.out, response, buf(b2));
        conn.out.flush();
        return true;
      } catch (IOException e) {
        throw Failure.of("I/O error", e);
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
        () -> new Cell<>(new Eval(), reuse));
  }
}
