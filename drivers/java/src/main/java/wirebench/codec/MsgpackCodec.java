package wirebench.codec;

import java.io.IOException;
import java.util.ArrayList;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormatException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;
import org.msgpack.core.MessageUnpacker;

/**
 * msgpack-java's core (org.msgpack:msgpack-core) on the plain classes: maps with the JSON key
 * names in the JSON's order, integers in their shortest form (packLong) and strings as
 * fixstr/str8/str16 (str8 is on by default): Python msgpack.packb's bytes. reused: a kept
 * MessagePacker over a kept stream (reset() keeps its array); MessageBufferPacker.clear() would
 * drop its buffers and allocate them again. fresh: a new MessageBufferPacker and
 * toByteArray(). deserialize: a MessageUnpacker over the byte array, every key and type
 * checked as it is read, nothing left over (validated).
 */
final class MsgpackCodec extends PlainCodec {
  private final Sink sink = new Sink();
  private final MessagePacker kept = MessagePack.newDefaultPacker(sink);
  private byte[] fresh;

  MsgpackCodec(String kase, boolean reuse) {
    super(kase, reuse);
  }

  /** msgpack-core's version, from its manifest (its jar has no Maven pom.properties). */
  static String version() {
    String v = MessagePack.class.getPackage().getImplementationVersion();
    return v == null ? "unknown" : v;
  }

  private static void pack(MessagePacker p, Log r) throws IOException {
    Http h = r.http;
    Origin o = r.origin;
    p.packMapHeader(12);
    p.packString("timestamp").packLong(r.timestamp);
    p.packString("zoneId").packLong(r.zoneId);
    p.packString("zonePlan").packInt(r.zonePlan);
    p.packString("http").packMapHeader(9);
    p.packString("protocol").packInt(h.protocol);
    p.packString("status").packInt(h.status);
    p.packString("hostStatus").packInt(h.hostStatus);
    p.packString("upStatus").packInt(h.upStatus);
    p.packString("method").packInt(h.method);
    p.packString("contentType").packString(h.contentType);
    p.packString("userAgent").packString(h.userAgent);
    p.packString("referer").packString(h.referer);
    p.packString("requestUri").packString(h.requestUri);
    p.packString("origin").packMapHeader(4);
    p.packString("ip").packString(o.ip);
    p.packString("port").packInt(o.port);
    p.packString("hostname").packString(o.hostname);
    p.packString("protocol").packInt(o.protocol);
    p.packString("country").packInt(r.country);
    p.packString("cacheStatus").packInt(r.cacheStatus);
    p.packString("serverIp").packString(r.serverIp);
    p.packString("serverName").packString(r.serverName);
    p.packString("remoteIp").packString(r.remoteIp);
    p.packString("bytesDlv").packLong(r.bytesDlv);
    p.packString("rayId").packString(r.rayId);
  }

  private void pack(MessagePacker p, Logs form) throws IOException {
    if (!batch) {
      pack(p, form.logs.get(0));
      return;
    }
    int n = form.logs.size();
    p.packMapHeader(1).packString("logs").packArrayHeader(n);
    for (int i = 0; i < n; ++i) {
      pack(p, form.logs.get(i));
    }
  }

  @Override
  public int serializeOnce(Logs form) throws IOException {
    if (reuse) {
      sink.reset();
      pack(kept, form);
      kept.flush();
      return sink.size();
    }
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    pack(p, form);
    fresh = p.toByteArray();
    return fresh.length;
  }

  @Override
  public byte[] output() {
    return reuse ? sink.copy() : fresh.clone();
  }

  private static MessageFormatException unexpected(String what, String key) {
    return new MessageFormatException("msgpack: unexpected key '" + key + "' in " + what);
  }

  private static Http http(MessageUnpacker u) throws IOException {
    Http h = new Http();
    for (int i = u.unpackMapHeader(); i > 0; --i) {
      String key = u.unpackString();
      switch (key) {
        case "protocol": h.protocol = u.unpackInt(); break;
        case "status": h.status = u.unpackInt(); break;
        case "hostStatus": h.hostStatus = u.unpackInt(); break;
        case "upStatus": h.upStatus = u.unpackInt(); break;
        case "method": h.method = u.unpackInt(); break;
        case "contentType": h.contentType = u.unpackString(); break;
        case "userAgent": h.userAgent = u.unpackString(); break;
        case "referer": h.referer = u.unpackString(); break;
        case "requestUri": h.requestUri = u.unpackString(); break;
        default: throw unexpected("http", key);
      }
    }
    return h;
  }

  private static Origin origin(MessageUnpacker u) throws IOException {
    Origin o = new Origin();
    for (int i = u.unpackMapHeader(); i > 0; --i) {
      String key = u.unpackString();
      switch (key) {
        case "ip": o.ip = u.unpackString(); break;
        case "port": o.port = u.unpackInt(); break;
        case "hostname": o.hostname = u.unpackString(); break;
        case "protocol": o.protocol = u.unpackInt(); break;
        default: throw unexpected("origin", key);
      }
    }
    return o;
  }

  private static Log log(MessageUnpacker u) throws IOException {
    Log r = new Log();
    for (int i = u.unpackMapHeader(); i > 0; --i) {
      String key = u.unpackString();
      switch (key) {
        case "timestamp": r.timestamp = u.unpackLong(); break;
        case "zoneId": r.zoneId = u.unpackLong(); break;
        case "zonePlan": r.zonePlan = u.unpackInt(); break;
        case "http": r.http = http(u); break;
        case "origin": r.origin = origin(u); break;
        case "country": r.country = u.unpackInt(); break;
        case "cacheStatus": r.cacheStatus = u.unpackInt(); break;
        case "serverIp": r.serverIp = u.unpackString(); break;
        case "serverName": r.serverName = u.unpackString(); break;
        case "remoteIp": r.remoteIp = u.unpackString(); break;
        case "bytesDlv": r.bytesDlv = u.unpackLong(); break;
        case "rayId": r.rayId = u.unpackString(); break;
        default: throw unexpected("a record", key);
      }
    }
    return r;
  }

  @Override
  public long deserializeOnce(byte[] in, int len) throws IOException {
    try (MessageUnpacker u = MessagePack.newDefaultUnpacker(in, 0, len)) {
      Object root;
      if (batch) {
        if (u.unpackMapHeader() != 1 || !u.unpackString().equals("logs")) {
          throw new MessageFormatException("msgpack: not a map of logs");
        }
        Logs logs = new Logs();
        int n = u.unpackArrayHeader();
        logs.logs = new ArrayList<>(Math.min(n, len));
        for (int i = 0; i < n; ++i) {
          logs.logs.add(log(u));
        }
        root = logs;
      } else {
        root = log(u);
      }
      if (u.hasNext()) {
        throw new MessageFormatException("msgpack: bytes after the message");
      }
      return keep(root);
    }
  }
}
