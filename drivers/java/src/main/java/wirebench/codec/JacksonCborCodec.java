package wirebench.codec;

import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * jackson-dataformat-cbor (the version of jackson-databind) on the plain classes, writing RFC
 * 8949's core deterministic encoding (docs/workloads.md, CBOR): definite-length maps with the
 * keys in their encoded order (shorter first, then bytewise) and integers in their shortest
 * form (CBORGenerator.Feature.WRITE_MINIMAL_INTS, on by default).
 *
 * <p>serialize: jackson-databind cannot write these bytes: its BeanSerializer opens every object
 * with writeStartObject(bean), which CBORGenerator writes as an indefinite-length map (0xbf ...
 * 0xff), and no CBORGenerator.Feature changes that (2.17); the @JsonPropertyOrder of the plain
 * classes is the JSON's order besides. So serialize writes through the streaming CBORGenerator
 * (from a CBORFactory kept for the codec): writeStartObject(value, size) and writeStartArray(value,
 * size) write definite lengths, the keys are pre-encoded SerializedStrings in the deterministic
 * order. reused: a generator over a kept stream (reset() keeps its array); fresh: over a new
 * stream, and toByteArray(). deserialize: jackson-databind (a CBORMapper's ObjectReader for the
 * root class, which takes the keys in any order), every token and type checked, unknown keys
 * refused, trailing content refused (FAIL_ON_TRAILING_TOKENS): validated.
 */
final class JacksonCborCodec extends PlainCodec {
  private static final CBORMapper MAPPER =
      CBORMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
  private static final CBORFactory FACTORY = MAPPER.getFactory();

  // The keys, in the deterministic order of docs/workloads.md.
  private static final SerializedString HTTP = new SerializedString("http");
  private static final SerializedString RAY_ID = new SerializedString("rayId");
  private static final SerializedString ORIGIN = new SerializedString("origin");
  private static final SerializedString ZONE_ID = new SerializedString("zoneId");
  private static final SerializedString COUNTRY = new SerializedString("country");
  private static final SerializedString BYTES_DLV = new SerializedString("bytesDlv");
  private static final SerializedString REMOTE_IP = new SerializedString("remoteIp");
  private static final SerializedString SERVER_IP = new SerializedString("serverIp");
  private static final SerializedString ZONE_PLAN = new SerializedString("zonePlan");
  private static final SerializedString TIMESTAMP = new SerializedString("timestamp");
  private static final SerializedString SERVER_NAME = new SerializedString("serverName");
  private static final SerializedString CACHE_STATUS = new SerializedString("cacheStatus");
  private static final SerializedString METHOD = new SerializedString("method");
  private static final SerializedString STATUS = new SerializedString("status");
  private static final SerializedString REFERER = new SerializedString("referer");
  private static final SerializedString PROTOCOL = new SerializedString("protocol");
  private static final SerializedString UP_STATUS = new SerializedString("upStatus");
  private static final SerializedString USER_AGENT = new SerializedString("userAgent");
  private static final SerializedString HOST_STATUS = new SerializedString("hostStatus");
  private static final SerializedString REQUEST_URI = new SerializedString("requestUri");
  private static final SerializedString CONTENT_TYPE = new SerializedString("contentType");
  private static final SerializedString IP = new SerializedString("ip");
  private static final SerializedString PORT = new SerializedString("port");
  private static final SerializedString HOSTNAME = new SerializedString("hostname");
  private static final SerializedString LOGS = new SerializedString("logs");

  private final ObjectReader reader;
  private final Sink sink = new Sink();
  private byte[] fresh;

  JacksonCborCodec(String kase, boolean reuse) {
    super(kase, reuse);
    reader = MAPPER.readerFor(rootClass());
  }

  private static void write(CBORGenerator g, Log r) throws IOException {
    Http h = r.http;
    Origin o = r.origin;
    g.writeStartObject(r, 12);
    g.writeFieldName(HTTP);
    g.writeStartObject(h, 9);
    g.writeFieldName(METHOD);
    g.writeNumber(h.method);
    g.writeFieldName(STATUS);
    g.writeNumber(h.status);
    g.writeFieldName(REFERER);
    g.writeString(h.referer);
    g.writeFieldName(PROTOCOL);
    g.writeNumber(h.protocol);
    g.writeFieldName(UP_STATUS);
    g.writeNumber(h.upStatus);
    g.writeFieldName(USER_AGENT);
    g.writeString(h.userAgent);
    g.writeFieldName(HOST_STATUS);
    g.writeNumber(h.hostStatus);
    g.writeFieldName(REQUEST_URI);
    g.writeString(h.requestUri);
    g.writeFieldName(CONTENT_TYPE);
    g.writeString(h.contentType);
    g.writeEndObject();
    g.writeFieldName(RAY_ID);
    g.writeString(r.rayId);
    g.writeFieldName(ORIGIN);
    g.writeStartObject(o, 4);
    g.writeFieldName(IP);
    g.writeString(o.ip);
    g.writeFieldName(PORT);
    g.writeNumber(o.port);
    g.writeFieldName(HOSTNAME);
    g.writeString(o.hostname);
    g.writeFieldName(PROTOCOL);
    g.writeNumber(o.protocol);
    g.writeEndObject();
    g.writeFieldName(ZONE_ID);
    g.writeNumber(r.zoneId);
    g.writeFieldName(COUNTRY);
    g.writeNumber(r.country);
    g.writeFieldName(BYTES_DLV);
    g.writeNumber(r.bytesDlv);
    g.writeFieldName(REMOTE_IP);
    g.writeString(r.remoteIp);
    g.writeFieldName(SERVER_IP);
    g.writeString(r.serverIp);
    g.writeFieldName(ZONE_PLAN);
    g.writeNumber(r.zonePlan);
    g.writeFieldName(TIMESTAMP);
    g.writeNumber(r.timestamp);
    g.writeFieldName(SERVER_NAME);
    g.writeString(r.serverName);
    g.writeFieldName(CACHE_STATUS);
    g.writeNumber(r.cacheStatus);
    g.writeEndObject();
  }

  private void write(OutputStream out, Logs form) throws IOException {
    try (CBORGenerator g = FACTORY.createGenerator(out)) {
      if (!batch) {
        write(g, form.logs.get(0));
        return;
      }
      int n = form.logs.size();
      g.writeStartObject(form, 1);
      g.writeFieldName(LOGS);
      g.writeStartArray(form.logs, n);
      for (int i = 0; i < n; ++i) {
        write(g, form.logs.get(i));
      }
      g.writeEndArray();
      g.writeEndObject();
    }
  }

  @Override
  public int serializeOnce(Logs form) throws IOException {
    if (reuse) {
      sink.reset();
      write(sink, form);
      return sink.size();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    write(out, form);
    fresh = out.toByteArray();
    return fresh.length;
  }

  @Override
  public byte[] output() {
    return reuse ? sink.copy() : fresh.clone();
  }

  @Override
  public long deserializeOnce(byte[] in, int len) throws IOException {
    return keep(reader.readValue(in, 0, len));
  }
}
