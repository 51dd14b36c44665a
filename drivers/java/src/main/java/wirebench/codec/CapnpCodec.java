package wirebench.codec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.capnproto.ArrayOutputStream;
import org.capnproto.MessageBuilder;
import org.capnproto.MessageReader;
import org.capnproto.ReaderOptions;
import org.capnproto.Serialize;
import org.capnproto.SerializePacked;
import org.capnproto.StructList;
import org.capnproto.Text;
import wirebench.capnp.LogCapnp;
import wirebench.capnp.LogsCapnp;

/**
 * Cap'n Proto's Java runtime (org.capnproto:runtime) on schemas/log.capnp and logs.capnp, as
 * the rpc suite uses it (rpc.CapnpRpc). The first segment is big enough for the case's
 * message (1024 words for log, the runtime's default; 128 Ki words for logs, the rpc suite's
 * scratch), so every message is one segment and the bytes do not depend on the mode. reused:
 * a MessageBuilder over a kept first segment, re-zeroed (clearFirstSegment) before the next
 * message, and a kept output buffer; fresh: a new MessageBuilder and a new output array of the
 * message's size. serialize writes the standard stream framing. deserialize reads the bytes
 * in place (Serialize.read of a ByteBuffer) and copies every field into the plain classes;
 * access folds through the reader, strings read in place. Reads are bounds-checked when they
 * happen (validation lazy). packed: serialize writes the packed framing (SerializePacked.write
 * into the same output buffer, sized for the worst case when fresh); deserialize and access
 * read it with SerializePacked.read, which unpacks into segments it allocates (the runtime
 * reads a packed stream into no buffer of the caller's).
 */
final class CapnpCodec implements Codec<MessageBuilder> {
  private static final LogCapnp.ZonePlan[] ZONE_PLANS = LogCapnp.ZonePlan.values();
  private static final LogCapnp.HttpProtocol[] HTTP_PROTOCOLS = LogCapnp.HttpProtocol.values();
  private static final LogCapnp.Method[] METHODS = LogCapnp.Method.values();
  private static final LogCapnp.OriginProtocol[] ORIGIN_PROTOCOLS =
      LogCapnp.OriginProtocol.values();
  private static final LogCapnp.Country[] COUNTRIES = LogCapnp.Country.values();
  private static final LogCapnp.CacheStatus[] CACHE_STATUSES = LogCapnp.CacheStatus.values();
  /** Why: one policy for every driver (fuzz/README.md): a reader traverses at most 64 MiB
   *  (8 Mi words), so a hostile message cannot amplify a small input into endless reads; the
   *  runtime's default, set explicitly. */
  static final long TRAVERSAL_LIMIT_WORDS = 8L << 20;

  /** Why: hostile pointer nesting ends in an error, not a stack overflow (the policy's 64). */
  static final int NESTING_LIMIT = 64;

  private static final ReaderOptions OPTIONS =
      new ReaderOptions(TRAVERSAL_LIMIT_WORDS, NESTING_LIMIT);

  private final boolean batch;
  private final boolean reuse;
  private final boolean packed;
  private final int segmentWords;
  private final ByteBuffer segment;
  private MessageBuilder built;
  private ByteBuffer out;
  private int size;
  private Object last;

  CapnpCodec(String kase, boolean reuse) {
    this(kase, reuse, false);
  }

  private CapnpCodec(String kase, boolean reuse, boolean packed) {
    this.batch = Records.isBatch(kase);
    this.reuse = reuse;
    this.packed = packed;
    // One segment holds the message: about 1 KiB a record is more than any needs.
    segmentWords = batch ? 1024 + 128 * Records.SIZES.get(kase) : 1024;
    segment = reuse ? words(segmentWords) : null;
    // Packing writes at most a tag and a run count beside a word's 8 bytes.
    out = reuse ? ByteBuffer.allocate((segmentWords + 1) * (packed ? 10 : 8)) : null;
  }

  /** The codec of the packed encoding (packing packed). */
  static CapnpCodec packed(String kase, boolean reuse) {
    return new CapnpCodec(kase, reuse, true);
  }

  private static ByteBuffer words(int n) {
    return ByteBuffer.allocate(n * 8).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static void set(LogCapnp.Log.Builder b, Log r) {
    b.setTimestamp(r.timestamp);
    b.setZoneId((int) r.zoneId);
    b.setZonePlan(ZONE_PLANS[r.zonePlan]);
    LogCapnp.Http.Builder h = b.initHttp();
    h.setProtocol(HTTP_PROTOCOLS[r.http.protocol]);
    h.setStatus((short) r.http.status);
    h.setHostStatus((short) r.http.hostStatus);
    h.setUpStatus((short) r.http.upStatus);
    h.setMethod(METHODS[r.http.method]);
    h.setContentType(r.http.contentType);
    h.setUserAgent(r.http.userAgent);
    h.setReferer(r.http.referer);
    h.setRequestUri(r.http.requestUri);
    LogCapnp.Origin.Builder o = b.initOrigin();
    o.setIp(r.origin.ip);
    o.setPort((short) r.origin.port);
    o.setHostname(r.origin.hostname);
    o.setProtocol(ORIGIN_PROTOCOLS[r.origin.protocol]);
    b.setCountry(COUNTRIES[r.country]);
    b.setCacheStatus(CACHE_STATUSES[r.cacheStatus]);
    b.setServerIp(r.serverIp);
    b.setServerName(r.serverName);
    b.setRemoteIp(r.remoteIp);
    b.setBytesDlv(r.bytesDlv);
    b.setRayId(r.rayId);
  }

  @Override
  public MessageBuilder populateOnce(List<Log> records) {
    MessageBuilder m;
    if (reuse) {
      if (built != null) {
        built.clearFirstSegment();
      }
      m = built = new MessageBuilder(size -> words(Math.max(size / 8 + 1, segmentWords)), segment);
    } else {
      m = new MessageBuilder(segmentWords);
    }
    if (!batch) {
      set(m.initRoot(LogCapnp.Log.factory), records.get(0));
      return m;
    }
    int n = records.size();
    StructList.Builder<LogCapnp.Log.Builder> list =
        m.initRoot(LogsCapnp.Logs.factory).initLogs(n);
    for (int i = 0; i < n; ++i) {
      set(list.get(i), records.get(i));
    }
    return m;
  }

  @Override
  public int serializeOnce(MessageBuilder form) throws IOException {
    if (!reuse) {
      int words = (int) Serialize.computeSerializedSizeInWords(form);
      out = ByteBuffer.allocate(words * (packed ? 10 : 8));
    }
    ArrayOutputStream o = new ArrayOutputStream(out); // writes through a duplicate of out
    if (packed) {
      SerializePacked.write(o, form);
    } else {
      Serialize.write(o, form);
    }
    return size = o.buf.position();
  }

  @Override
  public byte[] output() {
    return Arrays.copyOf(out.array(), size);
  }

  private MessageReader read(byte[] in, int len) throws IOException {
    if (!packed) {
      return Serialize.read(ByteBuffer.wrap(in, 0, len), OPTIONS);
    }
    PackedIn stream = new PackedIn(ByteBuffer.wrap(in, 0, len));
    MessageReader m = SerializePacked.read(stream, OPTIONS);
    if (stream.buf.hasRemaining()) {
      throw new org.capnproto.DecodeException(
          stream.buf.remaining() + " bytes after the packed message");
    }
    return m;
  }

  /**
   * The bytes SerializePacked.read unpacks. Not the runtime's ArrayInputStream: at the end of
   * its bytes that hands PackedInputStream (0.1.16) an empty buffer, which asks for another,
   * forever, so a truncated packed message would hang the reader (found by this class's
   * tests); this one throws instead.
   */
  private static final class PackedIn implements org.capnproto.BufferedInputStream {
    final ByteBuffer buf;

    PackedIn(ByteBuffer buf) {
      this.buf = buf;
    }

    @Override
    public ByteBuffer getReadBuffer() {
      if (!buf.hasRemaining()) {
        throw new org.capnproto.DecodeException("the packed message is truncated");
      }
      return buf;
    }

    @Override
    public int read(ByteBuffer dst) {
      int n = Math.min(dst.remaining(), buf.remaining());
      if (n == 0) {
        return dst.hasRemaining() ? -1 : 0;
      }
      ByteBuffer part = buf.duplicate();
      part.limit(buf.position() + n);
      dst.put(part);
      buf.position(buf.position() + n);
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }

  // ---- deserialize: a copy into the plain classes ----------------------------------------

  private static Log copy(LogCapnp.Log.Reader m) {
    Log r = new Log();
    r.timestamp = m.getTimestamp();
    r.zoneId = m.getZoneId() & 0xffffffffL;
    r.zonePlan = m.getZonePlan().ordinal();
    LogCapnp.Http.Reader mh = m.getHttp();
    Http h = r.http = new Http();
    h.protocol = mh.getProtocol().ordinal();
    h.status = mh.getStatus() & 0xffff;
    h.hostStatus = mh.getHostStatus() & 0xffff;
    h.upStatus = mh.getUpStatus() & 0xffff;
    h.method = mh.getMethod().ordinal();
    h.contentType = mh.getContentType().toString();
    h.userAgent = mh.getUserAgent().toString();
    h.referer = mh.getReferer().toString();
    h.requestUri = mh.getRequestUri().toString();
    LogCapnp.Origin.Reader mo = m.getOrigin();
    Origin o = r.origin = new Origin();
    o.ip = mo.getIp().toString();
    o.port = mo.getPort() & 0xffff;
    o.hostname = mo.getHostname().toString();
    o.protocol = mo.getProtocol().ordinal();
    r.country = m.getCountry().ordinal();
    r.cacheStatus = m.getCacheStatus().ordinal();
    r.serverIp = m.getServerIp().toString();
    r.serverName = m.getServerName().toString();
    r.remoteIp = m.getRemoteIp().toString();
    r.bytesDlv = m.getBytesDlv();
    r.rayId = m.getRayId().toString();
    return r;
  }

  /**
   * The batch's record count, refused if larger than the message's words: capnp-java charges a
   * list's words to the traversal limit, so a list of zero-sized structs (one pointer word)
   * could claim 2^29 records for nothing (2 GB allocated for a 1250-byte input, found by
   * fuzzing; fuzz/README.md). Every honest record takes words of its own, packed too (its
   * pointers alone, none of them zero, pack to more than a word), so a packed message's length
   * in words bounds it as well.
   */
  private static int elements(int n, long words) {
    if (n > words) {
      throw new org.capnproto.DecodeException(
          "a list of " + n + " records in a message of " + words + " words");
    }
    return n;
  }

  private Object copy(MessageReader m, long words) {
    if (!batch) {
      return copy(m.getRoot(LogCapnp.Log.factory));
    }
    StructList.Reader<LogCapnp.Log.Reader> list = m.getRoot(LogsCapnp.Logs.factory).getLogs();
    Logs logs = new Logs();
    int n = elements(list.size(), words);
    logs.logs = new ArrayList<>(n);
    for (int i = 0; i < n; ++i) {
      logs.logs.add(copy(list.get(i)));
    }
    return logs;
  }

  @Override
  public long deserializeOnce(byte[] in, int len) throws IOException {
    Object root = copy(read(in, len), len / 8);
    last = root;
    return root instanceof Logs ? Records.fold(((Logs) root).logs) : Records.fold((Log) root);
  }

  @Override
  public List<Log> deserialized() {
    return PlainCodec.list(last);
  }

  @Override
  public List<Log> plain(MessageBuilder form) {
    ByteBuffer b = ByteBuffer.allocate((int) Serialize.computeSerializedSizeInWords(form) * 8);
    try {
      Serialize.write(new ArrayOutputStream(b), form);
      // b is exactly the message
      return PlainCodec.list(copy(Serialize.read(b, OPTIONS), b.capacity() / 8));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- access: the fold through the reader -------------------------------------------------

  private static long fold(Text.Reader t) {
    int n = t.size;
    return n == 0 ? 0 : n + (t.buffer.get(t.offset) & 0xff) + (t.buffer.get(t.offset + n - 1) & 0xff);
  }

  private static long fold(LogCapnp.Log.Reader m) {
    LogCapnp.Http.Reader h = m.getHttp();
    LogCapnp.Origin.Reader o = m.getOrigin();
    return m.getTimestamp() + (m.getZoneId() & 0xffffffffL) + m.getZonePlan().ordinal()
        + h.getProtocol().ordinal() + (h.getStatus() & 0xffff) + (h.getHostStatus() & 0xffff)
        + (h.getUpStatus() & 0xffff) + h.getMethod().ordinal() + (o.getPort() & 0xffff)
        + o.getProtocol().ordinal() + m.getCountry().ordinal() + m.getCacheStatus().ordinal()
        + m.getBytesDlv() + fold(h.getContentType()) + fold(h.getUserAgent())
        + fold(h.getReferer()) + fold(h.getRequestUri()) + fold(o.getIp())
        + fold(o.getHostname()) + fold(m.getServerIp()) + fold(m.getServerName())
        + fold(m.getRemoteIp()) + fold(m.getRayId());
  }

  @Override
  public long accessOnce(byte[] in, int len) throws IOException {
    MessageReader m = read(in, len);
    if (!batch) {
      return fold(m.getRoot(LogCapnp.Log.factory));
    }
    StructList.Reader<LogCapnp.Log.Reader> list = m.getRoot(LogsCapnp.Logs.factory).getLogs();
    long sum = 0;
    for (int i = 0, n = elements(list.size(), len / 8); i < n; ++i) {
      sum += fold(list.get(i));
    }
    return sum;
  }
}
