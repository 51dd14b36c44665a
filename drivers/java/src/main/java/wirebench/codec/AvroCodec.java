package wirebench.codec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecordBase;
import wirebench.codec.avro.Http;
import wirebench.codec.avro.Logs;
import wirebench.codec.avro.Origin;

/**
 * Apache Avro's Java library with the specific classes avro-maven-plugin generates from
 * schemas/logs.avsc (Log, Http, Origin, Logs of wirebench.codec.avro; strings as String):
 * one datum in Avro's binary encoding, no container file or single-object header, an array in
 * one block (fastavro's schemaless_writer's bytes).
 *
 * <p>populate: reused sets the fields of kept generated records (the batch's records and list
 * kept), fresh makes new ones (no-argument constructors and setters; the Builders would also
 * validate defaults). serialize: a SpecificDatumWriter made once, through a BinaryEncoder from
 * EncoderFactory.binaryEncoder (buffered) that is flushed: reused re-targets a kept encoder at a
 * kept stream (reset() keeps its array), fresh makes a new encoder over a new stream and
 * toByteArray(). deserialize: a SpecificDatumReader made once reads new records (read(null,
 * ...): owned Strings) through a kept BinaryDecoder that DecoderFactory re-targets at the input;
 * every read is bounds-checked and nothing may be left over (isEnd): validated.
 *
 * <p>Avro allocates a string's bytes and an array's backing array from the lengths in the input
 * before reading them; its only bounds are the system properties of SystemLimitException, which
 * default to about 2^31. {@link #limits} sets them (unless already set) to bounds far above the
 * workload's (a string of 16 MiB, an array of 4 Mi items), so that a corrupt length is an error
 * rather than gigabytes; they are read once, when Avro first checks a length.
 */
final class AvroCodec implements Codec<SpecificRecordBase> {
  static final String MAX_STRING = "org.apache.avro.limits.string.maxLength";
  static final String MAX_BYTES = "org.apache.avro.limits.bytes.maxLength";
  static final String MAX_ITEMS = "org.apache.avro.limits.collectionItems.maxLength";

  static {
    limits();
  }

  /** Avro's length limits (see the class comment); idempotent. */
  static void limits() {
    for (String p : new String[] {MAX_STRING, MAX_BYTES}) {
      if (System.getProperty(p) == null) {
        System.setProperty(p, Integer.toString(1 << 24));
      }
    }
    if (System.getProperty(MAX_ITEMS) == null) {
      System.setProperty(MAX_ITEMS, Integer.toString(1 << 22));
    }
  }

  private final boolean batch;
  private final boolean reuse;
  private final SpecificDatumWriter<SpecificRecordBase> writer;
  private final SpecificDatumReader<SpecificRecordBase> reader;

  private final Logs logs = new Logs(new ArrayList<>());
  private final wirebench.codec.avro.Log log = record();

  private final Sink sink = new Sink();
  private BinaryEncoder encoder;
  private byte[] fresh;
  private BinaryDecoder decoder;
  private SpecificRecordBase last;

  AvroCodec(String kase, boolean reuse) {
    this.batch = Records.isBatch(kase);
    this.reuse = reuse;
    org.apache.avro.Schema schema =
        batch ? Logs.getClassSchema() : wirebench.codec.avro.Log.getClassSchema();
    writer = new SpecificDatumWriter<>(schema);
    reader = new SpecificDatumReader<>(schema);
  }

  // ---- populate -------------------------------------------------------------------------------

  private static wirebench.codec.avro.Log record() {
    wirebench.codec.avro.Log m = new wirebench.codec.avro.Log();
    m.setHttp(new Http());
    m.setOrigin(new Origin());
    return m;
  }

  /** `r` into `m` and its http and origin. */
  private static void set(wirebench.codec.avro.Log m, Log r) {
    Http h = m.getHttp();
    h.setProtocol(r.http.protocol);
    h.setStatus(r.http.status);
    h.setHostStatus(r.http.hostStatus);
    h.setUpStatus(r.http.upStatus);
    h.setMethod(r.http.method);
    h.setContentType(r.http.contentType);
    h.setUserAgent(r.http.userAgent);
    h.setReferer(r.http.referer);
    h.setRequestUri(r.http.requestUri);
    Origin o = m.getOrigin();
    o.setIp(r.origin.ip);
    o.setPort(r.origin.port);
    o.setHostname(r.origin.hostname);
    o.setProtocol(r.origin.protocol);
    m.setTimestamp(r.timestamp);
    m.setZoneId((int) r.zoneId);
    m.setZonePlan(r.zonePlan);
    m.setCountry(r.country);
    m.setCacheStatus(r.cacheStatus);
    m.setServerIp(r.serverIp);
    m.setServerName(r.serverName);
    m.setRemoteIp(r.remoteIp);
    m.setBytesDlv(r.bytesDlv);
    m.setRayId(r.rayId);
  }

  @Override
  public SpecificRecordBase populateOnce(List<Log> records) {
    if (!batch) {
      wirebench.codec.avro.Log m = reuse ? log : record();
      set(m, records.get(0));
      return m;
    }
    int n = records.size();
    if (!reuse) {
      List<wirebench.codec.avro.Log> list = new ArrayList<>(n);
      for (int i = 0; i < n; ++i) {
        wirebench.codec.avro.Log m = record();
        set(m, records.get(i));
        list.add(m);
      }
      return new Logs(list);
    }
    List<wirebench.codec.avro.Log> list = logs.getLogs();
    for (int i = 0; i < n; ++i) {
      if (i == list.size()) {
        list.add(record());
      }
      set(list.get(i), records.get(i));
    }
    while (list.size() > n) {
      list.remove(list.size() - 1);
    }
    return logs;
  }

  // ---- serialize ------------------------------------------------------------------------------

  private void write(SpecificRecordBase form, OutputStream out, BinaryEncoder old)
      throws IOException {
    encoder = EncoderFactory.get().binaryEncoder(out, old);
    writer.write(form, encoder);
    encoder.flush();
  }

  @Override
  public int serializeOnce(SpecificRecordBase form) throws IOException {
    if (reuse) {
      sink.reset();
      write(form, sink, encoder);
      return sink.size();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    write(form, out, null);
    fresh = out.toByteArray();
    return fresh.length;
  }

  @Override
  public byte[] output() {
    return reuse ? sink.copy() : fresh.clone();
  }

  // ---- deserialize ----------------------------------------------------------------------------

  private static long fold(wirebench.codec.avro.Log r) {
    Http h = r.getHttp();
    Origin o = r.getOrigin();
    return r.getTimestamp() + r.getZoneId() + r.getZonePlan() + h.getProtocol() + h.getStatus()
        + h.getHostStatus() + h.getUpStatus() + h.getMethod() + o.getPort() + o.getProtocol()
        + r.getCountry() + r.getCacheStatus() + r.getBytesDlv()
        + Records.fold(h.getContentType()) + Records.fold(h.getUserAgent())
        + Records.fold(h.getReferer()) + Records.fold(h.getRequestUri())
        + Records.fold(o.getIp()) + Records.fold(o.getHostname())
        + Records.fold(r.getServerIp()) + Records.fold(r.getServerName())
        + Records.fold(r.getRemoteIp()) + Records.fold(r.getRayId());
  }

  @Override
  public long deserializeOnce(byte[] in, int len) throws IOException {
    decoder = DecoderFactory.get().binaryDecoder(in, 0, len, decoder);
    SpecificRecordBase m = reader.read(null, decoder);
    if (!decoder.isEnd()) {
      throw new AvroRuntimeException("avro: bytes after the datum");
    }
    last = m;
    if (!batch) {
      return fold((wirebench.codec.avro.Log) m);
    }
    long sum = 0;
    List<wirebench.codec.avro.Log> list = ((Logs) m).getLogs();
    for (int i = 0, n = list.size(); i < n; ++i) {
      sum += fold(list.get(i));
    }
    return sum;
  }

  @Override
  public List<Log> deserialized() {
    return plain(last);
  }

  private static Log plain(wirebench.codec.avro.Log m) {
    Log r = new Log();
    r.timestamp = m.getTimestamp();
    r.zoneId = m.getZoneId();
    r.zonePlan = m.getZonePlan();
    Http mh = m.getHttp();
    r.http = new wirebench.codec.Http();
    r.http.protocol = mh.getProtocol();
    r.http.status = mh.getStatus();
    r.http.hostStatus = mh.getHostStatus();
    r.http.upStatus = mh.getUpStatus();
    r.http.method = mh.getMethod();
    r.http.contentType = mh.getContentType();
    r.http.userAgent = mh.getUserAgent();
    r.http.referer = mh.getReferer();
    r.http.requestUri = mh.getRequestUri();
    Origin mo = m.getOrigin();
    r.origin = new wirebench.codec.Origin();
    r.origin.ip = mo.getIp();
    r.origin.port = mo.getPort();
    r.origin.hostname = mo.getHostname();
    r.origin.protocol = mo.getProtocol();
    r.country = m.getCountry();
    r.cacheStatus = m.getCacheStatus();
    r.serverIp = m.getServerIp();
    r.serverName = m.getServerName();
    r.remoteIp = m.getRemoteIp();
    r.bytesDlv = m.getBytesDlv();
    r.rayId = m.getRayId();
    return r;
  }

  @Override
  public List<Log> plain(SpecificRecordBase form) {
    List<Log> out = new ArrayList<>();
    if (form instanceof Logs) {
      ((Logs) form).getLogs().forEach(m -> out.add(plain(m)));
    } else {
      out.add(plain((wirebench.codec.avro.Log) form));
    }
    return out;
  }
}
