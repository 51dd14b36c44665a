package wirebench.codec;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.thrift.TBase;
import org.apache.thrift.TException;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TByteBuffer;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TTransportException;
import wirebench.codec.thrift.Http;
import wirebench.codec.thrift.Logs;
import wirebench.codec.thrift.Origin;

/**
 * Apache Thrift's Java library (libthrift 0.17.0) on the classes the thrift compiler 0.17.0
 * generates from schemas/log.thrift (every field required, so always written, in field-id
 * order). The binary protocol (TBinaryProtocol, strict writes: the default cell, packing
 * unpacked) or the compact protocol (TCompactProtocol: packing compact).
 *
 * <p>populate: reused sets the fields of kept generated objects (the batch's records and their
 * list kept), fresh builds new ones with the generated all-fields constructors. serialize:
 * reused writes through a kept protocol over a kept TByteBuffer on a kept heap buffer (cleared
 * each iteration; grown if a message outgrows it); fresh is a kept TSerializer's serialize(),
 * which returns a new array. deserialize: into new generated objects, through a kept protocol
 * over a kept TMemoryInputTransport reset to the input, whose message size is the input's
 * length (updateKnownMessageSize: a string or list count larger than the bytes left is an
 * error before anything is allocated; TDeserializer would leave the limit at the configured
 * 100 MB); the generated read() refuses a missing required field; nothing may be left over:
 * validated.
 *
 * <p>A list of structs passes the size check whatever its count (Thrift takes a struct's
 * smallest encoding as 0 bytes), and the generated read() sizes its ArrayList from the count:
 * the protocols are made with a container length limit (CONTAINER_LIMIT) far above the batch's
 * 1000, so that a corrupt count is an error rather than gigabytes.
 */
final class ThriftCodec implements Codec<TBase<?, ?>> {
  /** The most elements a list may claim (the batch has 1000); see the class comment. */
  static final int CONTAINER_LIMIT = 1 << 20;

  private final boolean batch;
  private final boolean reuse;
  private final TProtocolFactory factory;

  // populate, reused
  private final Logs logs = new Logs(new ArrayList<>());
  private final wirebench.codec.thrift.Log log = new wirebench.codec.thrift.Log();

  // serialize
  private ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
  private TByteBuffer transport;
  private TProtocol writer;
  private final TSerializer serializer;
  private byte[] fresh;
  private int size;

  // deserialize
  private final TMemoryInputTransport input;
  private final TProtocol reader;
  private TBase<?, ?> last;

  ThriftCodec(String kase, boolean reuse) {
    this(kase, reuse, false);
  }

  /** The cell packing=compact: the compact protocol. */
  static ThriftCodec compact(String kase, boolean reuse) {
    return new ThriftCodec(kase, reuse, true);
  }

  private ThriftCodec(String kase, boolean reuse, boolean compact) {
    this.batch = Records.isBatch(kase);
    this.reuse = reuse;
    factory =
        compact
            ? new TCompactProtocol.Factory(-1, CONTAINER_LIMIT)
            : new TBinaryProtocol.Factory(false, true, -1, CONTAINER_LIMIT);
    try {
      serializer = new TSerializer(factory);
      input = new TMemoryInputTransport();
      reader = factory.getProtocol(input);
      wrap(buffer);
    } catch (TTransportException e) {
      throw new IllegalStateException(e);
    }
  }

  private void wrap(ByteBuffer b) throws TTransportException {
    buffer = b;
    transport = new TByteBuffer(b);
    writer = factory.getProtocol(transport);
  }

  // ---- populate -------------------------------------------------------------------------------

  private static wirebench.codec.thrift.Log build(Log r) {
    Http h =
        new Http(
            (byte) r.http.protocol,
            (short) r.http.status,
            (short) r.http.hostStatus,
            (short) r.http.upStatus,
            (byte) r.http.method,
            r.http.contentType,
            r.http.userAgent,
            r.http.referer,
            r.http.requestUri);
    Origin o =
        new Origin(r.origin.ip, r.origin.port, r.origin.hostname, (byte) r.origin.protocol);
    return new wirebench.codec.thrift.Log(
        r.timestamp,
        (int) r.zoneId,
        (byte) r.zonePlan,
        h,
        o,
        (short) r.country,
        (byte) r.cacheStatus,
        r.serverIp,
        r.serverName,
        r.remoteIp,
        r.bytesDlv,
        r.rayId);
  }

  /** `r` into the kept `m` (its http and origin kept too, made on first use). */
  private static void set(wirebench.codec.thrift.Log m, Log r) {
    Http h = m.getHttp();
    if (h == null) {
      m.setHttp(h = new Http());
    }
    h.setProtocol((byte) r.http.protocol)
        .setStatus((short) r.http.status)
        .setHostStatus((short) r.http.hostStatus)
        .setUpStatus((short) r.http.upStatus)
        .setMethod((byte) r.http.method)
        .setContentType(r.http.contentType)
        .setUserAgent(r.http.userAgent)
        .setReferer(r.http.referer)
        .setRequestUri(r.http.requestUri);
    Origin o = m.getOrigin();
    if (o == null) {
      m.setOrigin(o = new Origin());
    }
    o.setIp(r.origin.ip)
        .setPort(r.origin.port)
        .setHostname(r.origin.hostname)
        .setProtocol((byte) r.origin.protocol);
    m.setTimestamp(r.timestamp)
        .setZoneId((int) r.zoneId)
        .setZonePlan((byte) r.zonePlan)
        .setCountry((short) r.country)
        .setCacheStatus((byte) r.cacheStatus)
        .setServerIp(r.serverIp)
        .setServerName(r.serverName)
        .setRemoteIp(r.remoteIp)
        .setBytesDlv(r.bytesDlv)
        .setRayId(r.rayId);
  }

  @Override
  public TBase<?, ?> populateOnce(List<Log> records) {
    if (!reuse) {
      if (!batch) {
        return build(records.get(0));
      }
      int n = records.size();
      List<wirebench.codec.thrift.Log> list = new ArrayList<>(n);
      for (int i = 0; i < n; ++i) {
        list.add(build(records.get(i)));
      }
      return new Logs(list);
    }
    if (!batch) {
      set(log, records.get(0));
      return log;
    }
    List<wirebench.codec.thrift.Log> list = logs.getLogs();
    int n = records.size();
    for (int i = 0; i < n; ++i) {
      if (i == list.size()) {
        list.add(new wirebench.codec.thrift.Log());
      }
      set(list.get(i), records.get(i));
    }
    while (list.size() > n) {
      list.remove(list.size() - 1);
    }
    return logs;
  }

  // ---- serialize ------------------------------------------------------------------------------

  @Override
  public int serializeOnce(TBase<?, ?> form) throws TException {
    if (!reuse) {
      fresh = serializer.serialize(form);
      return size = fresh.length;
    }
    while (true) {
      transport.clear();
      try {
        form.write(writer);
        return size = buffer.position();
      } catch (TTransportException e) {
        if (!(e.getCause() instanceof java.nio.BufferOverflowException)) {
          throw e;
        }
        wrap(ByteBuffer.allocate(buffer.capacity() * 2)); // outgrown: a larger buffer
      }
    }
  }

  @Override
  public byte[] output() {
    return reuse ? Arrays.copyOf(buffer.array(), size) : fresh.clone();
  }

  // ---- deserialize ----------------------------------------------------------------------------

  private static long fold(wirebench.codec.thrift.Log r) {
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
  public long deserializeOnce(byte[] in, int len) throws TException {
    input.reset(in, 0, len);
    input.updateKnownMessageSize(len);
    reader.reset();
    TBase<?, ?> m = batch ? new Logs() : new wirebench.codec.thrift.Log();
    m.read(reader);
    if (input.getBytesRemainingInBuffer() != 0) {
      throw new TProtocolException(
          "thrift: " + input.getBytesRemainingInBuffer() + " bytes after the message");
    }
    last = m;
    if (!batch) {
      return fold((wirebench.codec.thrift.Log) m);
    }
    long sum = 0;
    List<wirebench.codec.thrift.Log> list = ((Logs) m).getLogs();
    for (int i = 0, n = list.size(); i < n; ++i) {
      sum += fold(list.get(i));
    }
    return sum;
  }

  @Override
  public List<Log> deserialized() {
    return plain(last);
  }

  private static Log plain(wirebench.codec.thrift.Log m) {
    Log r = new Log();
    r.timestamp = m.getTimestamp();
    r.zoneId = m.getZoneId();
    r.zonePlan = m.getZonePlan();
    Http mh = m.getHttp();
    if (mh != null) {
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
    }
    Origin mo = m.getOrigin();
    if (mo != null) {
      r.origin = new wirebench.codec.Origin();
      r.origin.ip = mo.getIp();
      r.origin.port = mo.getPort();
      r.origin.hostname = mo.getHostname();
      r.origin.protocol = mo.getProtocol();
    }
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
  public List<Log> plain(TBase<?, ?> form) {
    List<Log> out = new ArrayList<>();
    if (form instanceof Logs) {
      List<wirebench.codec.thrift.Log> list = ((Logs) form).getLogs();
      if (list != null) {
        list.forEach(m -> out.add(plain(m)));
      }
    } else {
      out.add(plain((wirebench.codec.thrift.Log) form));
    }
    return out;
  }
}
