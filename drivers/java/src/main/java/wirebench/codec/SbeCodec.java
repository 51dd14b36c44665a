package wirebench.codec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import wirebench.codec.sbe.LogDecoder;
import wirebench.codec.sbe.LogEncoder;
import wirebench.codec.sbe.LogsDecoder;
import wirebench.codec.sbe.LogsEncoder;
import wirebench.codec.sbe.MessageHeaderDecoder;
import wirebench.codec.sbe.MessageHeaderEncoder;

/**
 * Simple Binary Encoding with the flyweights SBE's own generator (sbe-all 1.30.0, the pom's
 * SbeTool run) writes for schemas/log.sbe.xml, over Agrona's UnsafeBuffer (agrona 1.20.0, the
 * version sbe-tool 1.30.0 is built on). The message header, then Log's 34-byte block and ten
 * strings; or Logs's empty block and its group (named `records` in the pom's copy of the schema:
 * Java forbids the class LogsDecoder.LogsDecoder that `logs` would make; the bytes are the
 * same).
 *
 * <p>SBE has no object model: a program encodes its own objects with the generated encoders and
 * decodes into them with the decoders. So the native form is the plain classes (populate copies
 * the records, PlainCodec), serialize is the generated encoder writing them (wrapAndApplyHeader,
 * each field in schema order, each string with its US-ASCII setter) into the output buffer: a
 * kept array grown to fit (reused) or a new one of the encoding's exact size (fresh); deserialize
 * reads every field through the generated decoders into new plain records (strings copied out:
 * owned); access folds through the decoders in place, each string's bytes through a kept
 * UnsafeBuffer view that wrapX positions on them (zero-copy).
 *
 * <p>Reads are bounds-checked by UnsafeBuffer (Agrona's default; an IndexOutOfBoundsException
 * is the loops' error) as they go, nothing verifies the message first: validation lazy. Both
 * reads refuse a header that is not this schema's message (template, schema id and version,
 * block length: wrapAndApplyHeader itself checks the template only), a group whose block length
 * is not 34, and bytes after the message.
 */
final class SbeCodec extends PlainCodec {
  /** The generator's version, which the pom writes next to the classes (sbe.version). */
  static String generatorVersion() {
    try (InputStream in = SbeCodec.class.getResourceAsStream("sbe.version")) {
      return in == null ? "unknown" : new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static final int HEADER = MessageHeaderEncoder.ENCODED_LENGTH;
  private static final int BLOCK = LogEncoder.BLOCK_LENGTH;

  private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
  private final LogEncoder logEncoder = new LogEncoder();
  private final LogsEncoder logsEncoder = new LogsEncoder();
  private final UnsafeBuffer out = new UnsafeBuffer(new byte[0]);
  private byte[] kept = new byte[1 << 16];
  private int size;

  private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
  private final LogDecoder logDecoder = new LogDecoder();
  private final LogsDecoder logsDecoder = new LogsDecoder();
  private final UnsafeBuffer in = new UnsafeBuffer(new byte[0]);
  /** access: the view of one string's bytes. */
  private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);

  SbeCodec(String kase, boolean reuse) {
    super(kase, reuse);
  }

  // ---- serialize ------------------------------------------------------------------------------

  /** The encoding's size: strings are ASCII, one byte a char. */
  private int encodedSize(Logs form) {
    int n = HEADER + (batch ? LogsEncoder.RecordsEncoder.HEADER_SIZE : 0);
    for (int i = 0, k = batch ? form.logs.size() : 1; i < k; ++i) {
      Log r = form.logs.get(i);
      n += BLOCK + 10 * 2 + r.http.contentType.length() + r.http.userAgent.length()
          + r.http.referer.length() + r.http.requestUri.length() + r.origin.ip.length()
          + r.origin.hostname.length() + r.serverIp.length() + r.serverName.length()
          + r.remoteIp.length() + r.rayId.length();
    }
    return n;
  }

  private static void encode(LogEncoder e, Log r) {
    Http h = r.http;
    Origin o = r.origin;
    e.timestamp(r.timestamp)
        .zoneId(r.zoneId)
        .zonePlan((short) r.zonePlan)
        .httpProtocol((short) h.protocol)
        .httpStatus(h.status)
        .httpHostStatus(h.hostStatus)
        .httpUpStatus(h.upStatus)
        .httpMethod((short) h.method)
        .originPort(o.port)
        .originProtocol((short) o.protocol)
        .country((short) r.country)
        .cacheStatus((short) r.cacheStatus)
        .bytesDlv(r.bytesDlv)
        .httpContentType(h.contentType)
        .httpUserAgent(h.userAgent)
        .httpReferer(h.referer)
        .httpRequestUri(h.requestUri)
        .originIp(o.ip)
        .originHostname(o.hostname)
        .serverIp(r.serverIp)
        .serverName(r.serverName)
        .remoteIp(r.remoteIp)
        .rayId(r.rayId);
  }

  private static void encode(LogsEncoder.RecordsEncoder e, Log r) {
    Http h = r.http;
    Origin o = r.origin;
    e.timestamp(r.timestamp)
        .zoneId(r.zoneId)
        .zonePlan((short) r.zonePlan)
        .httpProtocol((short) h.protocol)
        .httpStatus(h.status)
        .httpHostStatus(h.hostStatus)
        .httpUpStatus(h.upStatus)
        .httpMethod((short) h.method)
        .originPort(o.port)
        .originProtocol((short) o.protocol)
        .country((short) r.country)
        .cacheStatus((short) r.cacheStatus)
        .bytesDlv(r.bytesDlv)
        .httpContentType(h.contentType)
        .httpUserAgent(h.userAgent)
        .httpReferer(h.referer)
        .httpRequestUri(h.requestUri)
        .originIp(o.ip)
        .originHostname(o.hostname)
        .serverIp(r.serverIp)
        .serverName(r.serverName)
        .remoteIp(r.remoteIp)
        .rayId(r.rayId);
  }

  @Override
  public int serializeOnce(Logs form) {
    int need = encodedSize(form);
    if (!reuse) {
      kept = new byte[need];
    } else if (kept.length < need) {
      kept = new byte[Math.max(need, 2 * kept.length)];
    }
    out.wrap(kept);
    if (!batch) {
      logEncoder.wrapAndApplyHeader(out, 0, headerEncoder);
      encode(logEncoder, form.logs.get(0));
      return size = HEADER + logEncoder.encodedLength();
    }
    logsEncoder.wrapAndApplyHeader(out, 0, headerEncoder);
    int n = form.logs.size();
    LogsEncoder.RecordsEncoder g = logsEncoder.recordsCount(n);
    for (int i = 0; i < n; ++i) {
      encode(g.next(), form.logs.get(i));
    }
    return size = HEADER + logsEncoder.encodedLength();
  }

  @Override
  public byte[] output() {
    return Arrays.copyOf(kept, size);
  }

  // ---- reading: the header and the end --------------------------------------------------------

  /** The input wrapped, its header checked: this schema's message `templateId`, its block. */
  private void header(byte[] bytes, int len, int templateId, int blockLength) {
    in.wrap(bytes, 0, len);
    headerDecoder.wrap(in, 0);
    if (headerDecoder.templateId() != templateId
        || headerDecoder.schemaId() != MessageHeaderDecoder.SCHEMA_ID
        || headerDecoder.version() != MessageHeaderDecoder.SCHEMA_VERSION
        || headerDecoder.blockLength() != blockLength) {
      throw new IllegalStateException(
          "sbe: header (block " + headerDecoder.blockLength() + ", template "
              + headerDecoder.templateId() + ", schema " + headerDecoder.schemaId() + ", version "
              + headerDecoder.version() + ") is not message " + templateId + "'s");
    }
  }

  private static void end(int limit, int len) {
    if (limit != len) {
      throw new IllegalStateException("sbe: " + (len - limit) + " bytes after the message");
    }
  }

  private LogsDecoder.RecordsDecoder group() {
    LogsDecoder.RecordsDecoder g = logsDecoder.records();
    if (g.actingBlockLength() != BLOCK) {
      throw new IllegalStateException("sbe: a group block of " + g.actingBlockLength() + " bytes");
    }
    return g;
  }

  // ---- deserialize ----------------------------------------------------------------------------

  private static Log decode(LogDecoder d) {
    Log r = new Log();
    Http h = r.http = new Http();
    Origin o = r.origin = new Origin();
    r.timestamp = d.timestamp();
    r.zoneId = d.zoneId();
    r.zonePlan = d.zonePlan();
    h.protocol = d.httpProtocol();
    h.status = d.httpStatus();
    h.hostStatus = d.httpHostStatus();
    h.upStatus = d.httpUpStatus();
    h.method = d.httpMethod();
    o.port = d.originPort();
    o.protocol = d.originProtocol();
    r.country = d.country();
    r.cacheStatus = d.cacheStatus();
    r.bytesDlv = d.bytesDlv();
    h.contentType = d.httpContentType();
    h.userAgent = d.httpUserAgent();
    h.referer = d.httpReferer();
    h.requestUri = d.httpRequestUri();
    o.ip = d.originIp();
    o.hostname = d.originHostname();
    r.serverIp = d.serverIp();
    r.serverName = d.serverName();
    r.remoteIp = d.remoteIp();
    r.rayId = d.rayId();
    return r;
  }

  private static Log decode(LogsDecoder.RecordsDecoder d) {
    Log r = new Log();
    Http h = r.http = new Http();
    Origin o = r.origin = new Origin();
    r.timestamp = d.timestamp();
    r.zoneId = d.zoneId();
    r.zonePlan = d.zonePlan();
    h.protocol = d.httpProtocol();
    h.status = d.httpStatus();
    h.hostStatus = d.httpHostStatus();
    h.upStatus = d.httpUpStatus();
    h.method = d.httpMethod();
    o.port = d.originPort();
    o.protocol = d.originProtocol();
    r.country = d.country();
    r.cacheStatus = d.cacheStatus();
    r.bytesDlv = d.bytesDlv();
    h.contentType = d.httpContentType();
    h.userAgent = d.httpUserAgent();
    h.referer = d.httpReferer();
    h.requestUri = d.httpRequestUri();
    o.ip = d.originIp();
    o.hostname = d.originHostname();
    r.serverIp = d.serverIp();
    r.serverName = d.serverName();
    r.remoteIp = d.remoteIp();
    r.rayId = d.rayId();
    return r;
  }

  @Override
  public long deserializeOnce(byte[] bytes, int len) {
    if (!batch) {
      header(bytes, len, LogDecoder.TEMPLATE_ID, BLOCK);
      logDecoder.wrap(in, HEADER, BLOCK, MessageHeaderDecoder.SCHEMA_VERSION);
      Log r = decode(logDecoder);
      end(logDecoder.limit(), len);
      return keep(r);
    }
    header(bytes, len, LogsDecoder.TEMPLATE_ID, LogsDecoder.BLOCK_LENGTH);
    logsDecoder.wrap(in, HEADER, LogsDecoder.BLOCK_LENGTH, MessageHeaderDecoder.SCHEMA_VERSION);
    LogsDecoder.RecordsDecoder g = group();
    Logs logs = new Logs();
    logs.logs = new ArrayList<>(g.count());
    while (g.hasNext()) {
      logs.logs.add(decode(g.next()));
    }
    end(logsDecoder.limit(), len);
    return keep(logs);
  }

  // ---- access ---------------------------------------------------------------------------------

  /** The fold term of the string `view` is on: its length and its first and last byte. */
  private static long fold(DirectBuffer s) {
    int n = s.capacity();
    return n == 0 ? 0 : n + (s.getByte(0) & 0xff) + (s.getByte(n - 1) & 0xff);
  }

  private long access(LogDecoder d) {
    long sum = d.timestamp() + d.zoneId() + d.zonePlan() + d.httpProtocol() + d.httpStatus()
        + d.httpHostStatus() + d.httpUpStatus() + d.httpMethod() + d.originPort()
        + d.originProtocol() + d.country() + d.cacheStatus() + d.bytesDlv();
    UnsafeBuffer v = view;
    d.wrapHttpContentType(v);
    sum += fold(v);
    d.wrapHttpUserAgent(v);
    sum += fold(v);
    d.wrapHttpReferer(v);
    sum += fold(v);
    d.wrapHttpRequestUri(v);
    sum += fold(v);
    d.wrapOriginIp(v);
    sum += fold(v);
    d.wrapOriginHostname(v);
    sum += fold(v);
    d.wrapServerIp(v);
    sum += fold(v);
    d.wrapServerName(v);
    sum += fold(v);
    d.wrapRemoteIp(v);
    sum += fold(v);
    d.wrapRayId(v);
    return sum + fold(v);
  }

  private long access(LogsDecoder.RecordsDecoder d) {
    long sum = d.timestamp() + d.zoneId() + d.zonePlan() + d.httpProtocol() + d.httpStatus()
        + d.httpHostStatus() + d.httpUpStatus() + d.httpMethod() + d.originPort()
        + d.originProtocol() + d.country() + d.cacheStatus() + d.bytesDlv();
    UnsafeBuffer v = view;
    d.wrapHttpContentType(v);
    sum += fold(v);
    d.wrapHttpUserAgent(v);
    sum += fold(v);
    d.wrapHttpReferer(v);
    sum += fold(v);
    d.wrapHttpRequestUri(v);
    sum += fold(v);
    d.wrapOriginIp(v);
    sum += fold(v);
    d.wrapOriginHostname(v);
    sum += fold(v);
    d.wrapServerIp(v);
    sum += fold(v);
    d.wrapServerName(v);
    sum += fold(v);
    d.wrapRemoteIp(v);
    sum += fold(v);
    d.wrapRayId(v);
    return sum + fold(v);
  }

  @Override
  public long accessOnce(byte[] bytes, int len) {
    if (!batch) {
      header(bytes, len, LogDecoder.TEMPLATE_ID, BLOCK);
      logDecoder.wrap(in, HEADER, BLOCK, MessageHeaderDecoder.SCHEMA_VERSION);
      long sum = access(logDecoder);
      end(logDecoder.limit(), len);
      return sum;
    }
    header(bytes, len, LogsDecoder.TEMPLATE_ID, LogsDecoder.BLOCK_LENGTH);
    logsDecoder.wrap(in, HEADER, LogsDecoder.BLOCK_LENGTH, MessageHeaderDecoder.SCHEMA_VERSION);
    LogsDecoder.RecordsDecoder g = group();
    long sum = 0;
    while (g.hasNext()) {
      sum += access(g.next());
    }
    end(logsDecoder.limit(), len);
    return sum;
  }
}
