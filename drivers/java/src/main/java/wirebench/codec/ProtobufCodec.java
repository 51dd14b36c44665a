package wirebench.codec;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import wirebench.codec.LogOuterClass.Http;
import wirebench.codec.LogOuterClass.Origin;
import wirebench.codec.LogsOuterClass.Logs;

/**
 * protobuf-java's generated messages of schemas/log.proto and logs.proto (proto3: zero values
 * are not written). populate builds the message with builders: reused keeps the builders and
 * clear()s them, fresh makes new ones (protobuf-java's messages are immutable: every message
 * is a new object either way). serialize: reused writes into a kept array through
 * CodedOutputStream.newInstance(byte[]); fresh is toByteArray(). deserialize: parseFrom the
 * byte array, which checks the input completely (validated; proto3 strings are decoded and
 * UTF-8-checked while parsing, into owned Strings).
 */
final class ProtobufCodec implements Codec<Message> {
  private final boolean batch;
  private final boolean reuse;
  private final Logs.Builder logs = Logs.newBuilder();
  private final LogOuterClass.Log.Builder log = LogOuterClass.Log.newBuilder();
  private final Http.Builder http = Http.newBuilder();
  private final Origin.Builder origin = Origin.newBuilder();
  private byte[] out = new byte[0];
  private int size;
  private Message last;

  ProtobufCodec(String kase, boolean reuse) {
    this.batch = Records.isBatch(kase);
    this.reuse = reuse;
  }

  private LogOuterClass.Log build(Log r) {
    Http.Builder h = reuse ? http.clear() : Http.newBuilder();
    h.setProtocolValue(r.http.protocol)
        .setStatus(r.http.status)
        .setHostStatus(r.http.hostStatus)
        .setUpStatus(r.http.upStatus)
        .setMethodValue(r.http.method)
        .setContentType(r.http.contentType)
        .setUserAgent(r.http.userAgent)
        .setReferer(r.http.referer)
        .setRequestUri(r.http.requestUri);
    Origin.Builder o = reuse ? origin.clear() : Origin.newBuilder();
    o.setIp(r.origin.ip)
        .setPort(r.origin.port)
        .setHostname(r.origin.hostname)
        .setProtocolValue(r.origin.protocol);
    LogOuterClass.Log.Builder b = reuse ? log.clear() : LogOuterClass.Log.newBuilder();
    return b.setTimestamp(r.timestamp)
        .setZoneId((int) r.zoneId)
        .setZonePlanValue(r.zonePlan)
        .setHttp(h.build())
        .setOrigin(o.build())
        .setCountryValue(r.country)
        .setCacheStatusValue(r.cacheStatus)
        .setServerIp(r.serverIp)
        .setServerName(r.serverName)
        .setRemoteIp(r.remoteIp)
        .setBytesDlv(r.bytesDlv)
        .setRayId(r.rayId)
        .build();
  }

  @Override
  public Message populateOnce(List<Log> records) {
    if (!batch) {
      return build(records.get(0));
    }
    Logs.Builder b = reuse ? logs.clear() : Logs.newBuilder();
    for (int i = 0, n = records.size(); i < n; ++i) {
      b.addLogs(build(records.get(i)));
    }
    return b.build();
  }

  @Override
  public int serializeOnce(Message form) throws IOException {
    if (!reuse) {
      out = form.toByteArray();
      return size = out.length;
    }
    size = form.getSerializedSize();
    if (out.length < size) {
      out = new byte[size];
    }
    CodedOutputStream cos = CodedOutputStream.newInstance(out, 0, size);
    form.writeTo(cos);
    cos.checkNoSpaceLeft();
    return size;
  }

  @Override
  public byte[] output() {
    return java.util.Arrays.copyOf(out, size);
  }

  private static long fold(LogOuterClass.Log r) {
    Http h = r.getHttp();
    Origin o = r.getOrigin();
    return r.getTimestamp() + (r.getZoneId() & 0xffffffffL) + r.getZonePlanValue()
        + h.getProtocolValue() + h.getStatus() + h.getHostStatus() + h.getUpStatus()
        + h.getMethodValue() + o.getPort() + o.getProtocolValue() + r.getCountryValue()
        + r.getCacheStatusValue() + r.getBytesDlv() + Records.fold(h.getContentType())
        + Records.fold(h.getUserAgent()) + Records.fold(h.getReferer())
        + Records.fold(h.getRequestUri()) + Records.fold(o.getIp())
        + Records.fold(o.getHostname()) + Records.fold(r.getServerIp())
        + Records.fold(r.getServerName()) + Records.fold(r.getRemoteIp())
        + Records.fold(r.getRayId());
  }

  /** Why: hostile nesting (unknown groups) must end in an error, not a stack overflow; one
   *  policy for every driver (fuzz/README.md), protobuf's own default set explicitly. */
  static final int RECURSION_LIMIT = 100;

  /** A coded stream over the bytes, with the recursion limit (what parseFrom(byte[]) makes). */
  private static CodedInputStream coded(byte[] in, int len) {
    CodedInputStream c = CodedInputStream.newInstance(in, 0, len);
    c.setRecursionLimit(RECURSION_LIMIT);
    return c;
  }

  @Override
  public long deserializeOnce(byte[] in, int len) throws InvalidProtocolBufferException {
    CodedInputStream c = coded(in, len);
    if (!batch) {
      LogOuterClass.Log r = LogOuterClass.Log.parser().parseFrom(c);
      c.checkLastTagWas(0);
      last = r;
      return fold(r);
    }
    Logs m = Logs.parser().parseFrom(c);
    c.checkLastTagWas(0);
    last = m;
    long sum = 0;
    for (int i = 0, n = m.getLogsCount(); i < n; ++i) {
      sum += fold(m.getLogs(i));
    }
    return sum;
  }

  @Override
  public List<Log> deserialized() {
    return plain(last);
  }

  private static Log plain(LogOuterClass.Log m) {
    Log r = new Log();
    r.timestamp = m.getTimestamp();
    r.zoneId = m.getZoneId() & 0xffffffffL;
    r.zonePlan = m.getZonePlanValue();
    r.http = new wirebench.codec.Http();
    r.http.protocol = m.getHttp().getProtocolValue();
    r.http.status = m.getHttp().getStatus();
    r.http.hostStatus = m.getHttp().getHostStatus();
    r.http.upStatus = m.getHttp().getUpStatus();
    r.http.method = m.getHttp().getMethodValue();
    r.http.contentType = m.getHttp().getContentType();
    r.http.userAgent = m.getHttp().getUserAgent();
    r.http.referer = m.getHttp().getReferer();
    r.http.requestUri = m.getHttp().getRequestUri();
    r.origin = new wirebench.codec.Origin();
    r.origin.ip = m.getOrigin().getIp();
    r.origin.port = m.getOrigin().getPort();
    r.origin.hostname = m.getOrigin().getHostname();
    r.origin.protocol = m.getOrigin().getProtocolValue();
    r.country = m.getCountryValue();
    r.cacheStatus = m.getCacheStatusValue();
    r.serverIp = m.getServerIp();
    r.serverName = m.getServerName();
    r.remoteIp = m.getRemoteIp();
    r.bytesDlv = m.getBytesDlv();
    r.rayId = m.getRayId();
    return r;
  }

  @Override
  public List<Log> plain(Message form) {
    List<Log> out = new ArrayList<>();
    if (form instanceof Logs) {
      ((Logs) form).getLogsList().forEach(m -> out.add(plain(m)));
    } else {
      out.add(plain((LogOuterClass.Log) form));
    }
    return out;
  }
}
