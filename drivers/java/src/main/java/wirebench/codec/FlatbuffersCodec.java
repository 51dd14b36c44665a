package wirebench.codec;

import com.google.flatbuffers.FlatBufferBuilder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import wirebench.flatbuffers.codec.Logs;

/**
 * flatbuffers-java (2.0.8, with flatc 2.0.8's code for schemas/log.fbs and logs.fbs; default
 * values are not written). populate builds the finished buffer: reused clear()s a kept
 * FlatBufferBuilder (its buffer kept), fresh makes a new one. serialize copies the finished
 * bytes out: into a kept array (reused) or sizedByteArray() (fresh). flatbuffers-java 2.0.8
 * has no verifier, so deserialize and access read unchecked bytes (validation unchecked, the
 * library's only cell): deserialize copies every field into the plain classes; access folds
 * through the generated tables, reading each string's bytes in place (its InByteBuffer
 * accessor positions a kept view of the input on them) with kept table objects.
 */
final class FlatbuffersCodec implements Codec<FlatBufferBuilder> {
  private final boolean batch;
  private final boolean reuse;
  private final FlatBufferBuilder kept = new FlatBufferBuilder(1 << 16);
  private byte[] out = new byte[0];
  private int size;
  private Object last;
  // access: the tables and the string view, kept between iterations
  private final wirebench.flatbuffers.codec.Log log = new wirebench.flatbuffers.codec.Log();
  private final wirebench.flatbuffers.codec.Http http = new wirebench.flatbuffers.codec.Http();
  private final wirebench.flatbuffers.codec.Origin origin =
      new wirebench.flatbuffers.codec.Origin();

  FlatbuffersCodec(String kase, boolean reuse) {
    this.batch = Records.isBatch(kase);
    this.reuse = reuse;
  }

  private static int build(FlatBufferBuilder b, Log r) {
    Http h = r.http;
    Origin o = r.origin;
    int http =
        wirebench.flatbuffers.codec.Http.createHttp(
            b,
            h.protocol,
            h.status,
            h.hostStatus,
            h.upStatus,
            h.method,
            b.createString(h.contentType),
            b.createString(h.userAgent),
            b.createString(h.referer),
            b.createString(h.requestUri));
    int origin =
        wirebench.flatbuffers.codec.Origin.createOrigin(
            b, b.createString(o.ip), o.port, b.createString(o.hostname), o.protocol);
    return wirebench.flatbuffers.codec.Log.createLog(
        b,
        r.timestamp,
        r.zoneId,
        r.zonePlan,
        http,
        origin,
        r.country,
        r.cacheStatus,
        b.createString(r.serverIp),
        b.createString(r.serverName),
        b.createString(r.remoteIp),
        r.bytesDlv,
        b.createString(r.rayId));
  }

  @Override
  public FlatBufferBuilder populateOnce(List<Log> records) {
    FlatBufferBuilder b = reuse ? kept : new FlatBufferBuilder(1 << 16);
    b.clear();
    if (!batch) {
      b.finish(build(b, records.get(0)));
      return b;
    }
    int n = records.size();
    int[] offsets = new int[n];
    for (int i = 0; i < n; ++i) {
      offsets[i] = build(b, records.get(i));
    }
    b.finish(Logs.createLogs(b, Logs.createLogsVector(b, offsets)));
    return b;
  }

  @Override
  public int serializeOnce(FlatBufferBuilder form) {
    if (!reuse) {
      out = form.sizedByteArray();
      return size = out.length;
    }
    ByteBuffer data = form.dataBuffer();
    size = data.remaining();
    if (out.length < size) {
      out = new byte[size];
    }
    data.duplicate().get(out, 0, size);
    return size;
  }

  @Override
  public byte[] output() {
    return Arrays.copyOf(out, size);
  }

  // ---- deserialize: a copy into the plain classes -----------------------------------------

  private static Log copy(wirebench.flatbuffers.codec.Log m) {
    Log r = new Log();
    r.timestamp = m.timestamp();
    r.zoneId = m.zoneId();
    r.zonePlan = m.zonePlan();
    wirebench.flatbuffers.codec.Http mh = m.http();
    Http h = r.http = new Http();
    h.protocol = mh.protocol();
    h.status = mh.status();
    h.hostStatus = mh.hostStatus();
    h.upStatus = mh.upStatus();
    h.method = mh.method();
    h.contentType = mh.contentType();
    h.userAgent = mh.userAgent();
    h.referer = mh.referer();
    h.requestUri = mh.requestUri();
    wirebench.flatbuffers.codec.Origin mo = m.origin();
    Origin o = r.origin = new Origin();
    o.ip = mo.ip();
    o.port = mo.port();
    o.hostname = mo.hostname();
    o.protocol = mo.protocol();
    r.country = m.country();
    r.cacheStatus = m.cacheStatus();
    r.serverIp = m.serverIp();
    r.serverName = m.serverName();
    r.remoteIp = m.remoteIp();
    r.bytesDlv = m.bytesDlv();
    r.rayId = m.rayId();
    return r;
  }

  /**
   * The batch's record count, refused if the buffer cannot hold that many 4-byte offsets:
   * flatbuffers-java has no verifier, and the list was sized from it (a count of 2^31 was an
   * OutOfMemoryError, found by fuzzing; fuzz/README.md). Every other read is bounds-checked by
   * the ByteBuffer (an IndexOutOfBoundsException, an error of the loops).
   */
  private static int logsLength(Logs m, ByteBuffer bb) {
    int n = m.logsLength();
    if (n < 0 || (long) n * 4 > bb.limit()) {
      throw new IndexOutOfBoundsException(
          "flatbuffers: a vector of " + Integer.toUnsignedString(n) + " offsets overruns the "
              + bb.limit() + "-byte buffer");
    }
    return n;
  }

  private Object copy(ByteBuffer bb) {
    if (!batch) {
      return copy(wirebench.flatbuffers.codec.Log.getRootAsLog(bb));
    }
    Logs m = Logs.getRootAsLogs(bb);
    wirebench.codec.Logs logs = new wirebench.codec.Logs();
    int n = logsLength(m, bb);
    logs.logs = new ArrayList<>(n);
    for (int i = 0; i < n; ++i) {
      logs.logs.add(copy(m.logs(i)));
    }
    return logs;
  }

  @Override
  public long deserializeOnce(byte[] in, int len) {
    Object root = copy(ByteBuffer.wrap(in, 0, len));
    last = root;
    return root instanceof wirebench.codec.Logs
        ? Records.fold(((wirebench.codec.Logs) root).logs)
        : Records.fold((Log) root);
  }

  @Override
  public List<Log> deserialized() {
    return PlainCodec.list(last);
  }

  @Override
  public List<Log> plain(FlatBufferBuilder form) {
    return PlainCodec.list(copy(form.dataBuffer().duplicate()));
  }

  // ---- access: the fold through the tables ------------------------------------------------

  /** A string's fold term from the view its InByteBuffer accessor positioned (null: absent). */
  private static long fold(ByteBuffer s) {
    if (s == null) {
      return 0;
    }
    int n = s.remaining();
    return n == 0 ? 0 : n + (s.get(s.position()) & 0xff) + (s.get(s.limit() - 1) & 0xff);
  }

  private long fold(wirebench.flatbuffers.codec.Log m, ByteBuffer view) {
    wirebench.flatbuffers.codec.Http h = m.http(http);
    wirebench.flatbuffers.codec.Origin o = m.origin(origin);
    return m.timestamp() + m.zoneId() + m.zonePlan() + h.protocol() + h.status()
        + h.hostStatus() + h.upStatus() + h.method() + o.port() + o.protocol() + m.country()
        + m.cacheStatus() + m.bytesDlv() + fold(h.contentTypeInByteBuffer(view))
        + fold(h.userAgentInByteBuffer(view)) + fold(h.refererInByteBuffer(view))
        + fold(h.requestUriInByteBuffer(view)) + fold(o.ipInByteBuffer(view))
        + fold(o.hostnameInByteBuffer(view)) + fold(m.serverIpInByteBuffer(view))
        + fold(m.serverNameInByteBuffer(view)) + fold(m.remoteIpInByteBuffer(view))
        + fold(m.rayIdInByteBuffer(view));
  }

  @Override
  public long accessOnce(byte[] in, int len) {
    ByteBuffer bb = ByteBuffer.wrap(in, 0, len);
    ByteBuffer view = bb.duplicate();
    if (!batch) {
      return fold(wirebench.flatbuffers.codec.Log.getRootAsLog(bb, log), view);
    }
    Logs m = Logs.getRootAsLogs(bb);
    long sum = 0;
    for (int i = 0, n = logsLength(m, bb); i < n; ++i) {
      sum += fold(m.logs(log, i), view);
    }
    return sum;
  }
}
