package wirebench.codec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * Apache Avro's Java library without generated code: GenericRecords of the schemas
 * schemas/log.avsc and logs.avsc themselves (copied into the jar as resources, parsed at run
 * time, each by its own Schema.Parser), the same bytes as the specific classes (AvroCodec).
 * Strings are read as String (GenericData.setStringType: owned, as every Java string; Avro's
 * default would be its Utf8).
 *
 * <p>populate: GenericData.Records filled by field position (their integers boxed, as a generic
 * record holds them): reused puts into kept records (the batch's records and array kept), fresh
 * into new ones. serialize: a GenericDatumWriter made once, through a buffered BinaryEncoder
 * that is flushed: reused re-targets a kept encoder at a kept stream, fresh makes a new encoder
 * over a new stream and toByteArray(). deserialize: a GenericDatumReader made once reads new
 * records through a kept BinaryDecoder re-targeted at the input, every read bounds-checked,
 * nothing left over (isEnd): validated. Avro's length limits: see AvroCodec.
 */
final class AvroGenericCodec implements Codec<GenericRecord> {
  static {
    AvroCodec.limits();
  }

  /** The schema of resource `name` (log.avsc, logs.avsc), its strings read as String. */
  private static Schema schema(String name) {
    try (InputStream in = AvroGenericCodec.class.getResourceAsStream("avro/" + name)) {
      if (in == null) {
        throw new IllegalStateException("avro-generic: no resource wirebench/codec/avro/" + name);
      }
      Schema s = new Schema.Parser().parse(in);
      Schema log = name.equals("logs.avsc") ? s.getField("logs").schema().getElementType() : s;
      for (Schema.Field f : log.getFields()) {
        stringsAsString(f.schema());
      }
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void stringsAsString(Schema s) {
    if (s.getType() == Schema.Type.STRING) {
      GenericData.setStringType(s, GenericData.StringType.String);
    } else if (s.getType() == Schema.Type.RECORD) {
      for (Schema.Field f : s.getFields()) {
        stringsAsString(f.schema());
      }
    }
  }

  // Field positions, the schemas' order.
  private static final int TIMESTAMP = 0;
  private static final int ZONE_ID = 1;
  private static final int ZONE_PLAN = 2;
  private static final int HTTP = 3;
  private static final int ORIGIN = 4;
  private static final int COUNTRY = 5;
  private static final int CACHE_STATUS = 6;
  private static final int SERVER_IP = 7;
  private static final int SERVER_NAME = 8;
  private static final int REMOTE_IP = 9;
  private static final int BYTES_DLV = 10;
  private static final int RAY_ID = 11;
  private static final int H_PROTOCOL = 0;
  private static final int H_STATUS = 1;
  private static final int H_HOST_STATUS = 2;
  private static final int H_UP_STATUS = 3;
  private static final int H_METHOD = 4;
  private static final int H_CONTENT_TYPE = 5;
  private static final int H_USER_AGENT = 6;
  private static final int H_REFERER = 7;
  private static final int H_REQUEST_URI = 8;
  private static final int O_IP = 0;
  private static final int O_PORT = 1;
  private static final int O_HOSTNAME = 2;
  private static final int O_PROTOCOL = 3;

  private final boolean batch;
  private final boolean reuse;
  private final Schema schema;
  private final Schema logSchema;
  private final Schema httpSchema;
  private final Schema originSchema;
  private final Schema arraySchema;
  private final GenericDatumWriter<GenericRecord> writer;
  private final GenericDatumReader<GenericRecord> reader;

  private final GenericRecord kept;

  private final Sink sink = new Sink();
  private BinaryEncoder encoder;
  private byte[] fresh;
  private BinaryDecoder decoder;
  private GenericRecord last;

  AvroGenericCodec(String kase, boolean reuse) {
    this.batch = Records.isBatch(kase);
    this.reuse = reuse;
    schema = schema(batch ? "logs.avsc" : "log.avsc");
    arraySchema = batch ? schema.getField("logs").schema() : null;
    logSchema = batch ? arraySchema.getElementType() : schema;
    httpSchema = logSchema.getField("http").schema();
    originSchema = logSchema.getField("origin").schema();
    writer = new GenericDatumWriter<>(schema);
    reader = new GenericDatumReader<>(schema);
    if (batch) {
      kept = new GenericData.Record(schema);
      kept.put(0, new GenericData.Array<GenericRecord>(0, arraySchema));
    } else {
      kept = record();
    }
  }

  // ---- populate -------------------------------------------------------------------------------

  private GenericRecord record() {
    GenericRecord m = new GenericData.Record(logSchema);
    m.put(HTTP, new GenericData.Record(httpSchema));
    m.put(ORIGIN, new GenericData.Record(originSchema));
    return m;
  }

  /** `r` into `m` and its http and origin. */
  private static void set(GenericRecord m, Log r) {
    GenericRecord h = (GenericRecord) m.get(HTTP);
    h.put(H_PROTOCOL, r.http.protocol);
    h.put(H_STATUS, r.http.status);
    h.put(H_HOST_STATUS, r.http.hostStatus);
    h.put(H_UP_STATUS, r.http.upStatus);
    h.put(H_METHOD, r.http.method);
    h.put(H_CONTENT_TYPE, r.http.contentType);
    h.put(H_USER_AGENT, r.http.userAgent);
    h.put(H_REFERER, r.http.referer);
    h.put(H_REQUEST_URI, r.http.requestUri);
    GenericRecord o = (GenericRecord) m.get(ORIGIN);
    o.put(O_IP, r.origin.ip);
    o.put(O_PORT, r.origin.port);
    o.put(O_HOSTNAME, r.origin.hostname);
    o.put(O_PROTOCOL, r.origin.protocol);
    m.put(TIMESTAMP, r.timestamp);
    m.put(ZONE_ID, (int) r.zoneId);
    m.put(ZONE_PLAN, r.zonePlan);
    m.put(COUNTRY, r.country);
    m.put(CACHE_STATUS, r.cacheStatus);
    m.put(SERVER_IP, r.serverIp);
    m.put(SERVER_NAME, r.serverName);
    m.put(REMOTE_IP, r.remoteIp);
    m.put(BYTES_DLV, r.bytesDlv);
    m.put(RAY_ID, r.rayId);
  }

  @Override
  @SuppressWarnings("unchecked")
  public GenericRecord populateOnce(List<Log> records) {
    if (!batch) {
      GenericRecord m = reuse ? kept : record();
      set(m, records.get(0));
      return m;
    }
    int n = records.size();
    if (!reuse) {
      GenericData.Array<GenericRecord> list = new GenericData.Array<>(n, arraySchema);
      for (int i = 0; i < n; ++i) {
        GenericRecord m = record();
        set(m, records.get(i));
        list.add(m);
      }
      GenericRecord logs = new GenericData.Record(schema);
      logs.put(0, list);
      return logs;
    }
    GenericData.Array<GenericRecord> list = (GenericData.Array<GenericRecord>) kept.get(0);
    for (int i = 0; i < n; ++i) {
      if (i == list.size()) {
        list.add(record());
      }
      set(list.get(i), records.get(i));
    }
    while (list.size() > n) {
      list.remove(list.size() - 1);
    }
    return kept;
  }

  // ---- serialize ------------------------------------------------------------------------------

  private void write(GenericRecord form, OutputStream out, BinaryEncoder old) throws IOException {
    encoder = EncoderFactory.get().binaryEncoder(out, old);
    writer.write(form, encoder);
    encoder.flush();
  }

  @Override
  public int serializeOnce(GenericRecord form) throws IOException {
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

  private static long num(GenericRecord m, int i) {
    return ((Number) m.get(i)).longValue();
  }

  private static long str(GenericRecord m, int i) {
    return Records.fold((String) m.get(i));
  }

  private static long fold(GenericRecord r) {
    GenericRecord h = (GenericRecord) r.get(HTTP);
    GenericRecord o = (GenericRecord) r.get(ORIGIN);
    return num(r, TIMESTAMP) + num(r, ZONE_ID) + num(r, ZONE_PLAN) + num(h, H_PROTOCOL)
        + num(h, H_STATUS) + num(h, H_HOST_STATUS) + num(h, H_UP_STATUS) + num(h, H_METHOD)
        + num(o, O_PORT) + num(o, O_PROTOCOL) + num(r, COUNTRY) + num(r, CACHE_STATUS)
        + num(r, BYTES_DLV) + str(h, H_CONTENT_TYPE) + str(h, H_USER_AGENT) + str(h, H_REFERER)
        + str(h, H_REQUEST_URI) + str(o, O_IP) + str(o, O_HOSTNAME) + str(r, SERVER_IP)
        + str(r, SERVER_NAME) + str(r, REMOTE_IP) + str(r, RAY_ID);
  }

  @SuppressWarnings("unchecked")
  private static List<GenericRecord> logs(GenericRecord m) {
    return (List<GenericRecord>) m.get(0);
  }

  @Override
  public long deserializeOnce(byte[] in, int len) throws IOException {
    decoder = DecoderFactory.get().binaryDecoder(in, 0, len, decoder);
    GenericRecord m = reader.read(null, decoder);
    if (!decoder.isEnd()) {
      throw new AvroRuntimeException("avro: bytes after the datum");
    }
    last = m;
    if (!batch) {
      return fold(m);
    }
    long sum = 0;
    List<GenericRecord> list = logs(m);
    for (int i = 0, n = list.size(); i < n; ++i) {
      sum += fold(list.get(i));
    }
    return sum;
  }

  @Override
  public List<Log> deserialized() {
    return plain(last);
  }

  private static Log plain1(GenericRecord m) {
    Log r = new Log();
    r.timestamp = num(m, TIMESTAMP);
    r.zoneId = num(m, ZONE_ID);
    r.zonePlan = (int) num(m, ZONE_PLAN);
    GenericRecord mh = (GenericRecord) m.get(HTTP);
    r.http = new Http();
    r.http.protocol = (int) num(mh, H_PROTOCOL);
    r.http.status = (int) num(mh, H_STATUS);
    r.http.hostStatus = (int) num(mh, H_HOST_STATUS);
    r.http.upStatus = (int) num(mh, H_UP_STATUS);
    r.http.method = (int) num(mh, H_METHOD);
    r.http.contentType = (String) mh.get(H_CONTENT_TYPE);
    r.http.userAgent = (String) mh.get(H_USER_AGENT);
    r.http.referer = (String) mh.get(H_REFERER);
    r.http.requestUri = (String) mh.get(H_REQUEST_URI);
    GenericRecord mo = (GenericRecord) m.get(ORIGIN);
    r.origin = new Origin();
    r.origin.ip = (String) mo.get(O_IP);
    r.origin.port = (int) num(mo, O_PORT);
    r.origin.hostname = (String) mo.get(O_HOSTNAME);
    r.origin.protocol = (int) num(mo, O_PROTOCOL);
    r.country = (int) num(m, COUNTRY);
    r.cacheStatus = (int) num(m, CACHE_STATUS);
    r.serverIp = (String) m.get(SERVER_IP);
    r.serverName = (String) m.get(SERVER_NAME);
    r.remoteIp = (String) m.get(REMOTE_IP);
    r.bytesDlv = num(m, BYTES_DLV);
    r.rayId = (String) m.get(RAY_ID);
    return r;
  }

  @Override
  public List<Log> plain(GenericRecord form) {
    List<Log> out = new ArrayList<>();
    if (batch) {
      logs(form).forEach(m -> out.add(plain1(m)));
    } else {
      out.add(plain1(form));
    }
    return out;
  }
}
