package wirebench.codec;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinaryWriter;
import org.bson.BsonSerializationException;
import org.bson.BsonType;
import org.bson.io.BasicOutputBuffer;

/**
 * MongoDB's bson library (org.mongodb:bson) on the plain classes, through its streaming
 * BsonBinaryWriter and BsonBinaryReader (no BsonDocument or RawBsonDocument in between): one
 * document with the JSON's keys in the JSON's order, timestamp and bytesDlv as int64 (0x12),
 * every other integer as int32 (0x10), strings as 0x02, http and origin embedded documents,
 * `logs` an array (the writer names its elements "0", "1", ...): pymongo's bytes.
 *
 * <p>serialize: a BsonBinaryWriter (one per document: a writer ends DONE) over a kept
 * BasicOutputBuffer truncated to 0 (reused), or over a new one and toByteArray() (fresh).
 * deserialize: a BsonBinaryReader over the byte array, every key and element type checked as
 * it is read (readInt32 on an int64 is an error), nothing left over: validated.
 */
final class BsonCodec extends PlainCodec {
  private final BasicOutputBuffer kept = new BasicOutputBuffer(1 << 16);
  private byte[] fresh;

  BsonCodec(String kase, boolean reuse) {
    super(kase, reuse);
  }

  private static void write(BsonBinaryWriter w, Log r) {
    Http h = r.http;
    Origin o = r.origin;
    w.writeStartDocument();
    w.writeInt64("timestamp", r.timestamp);
    w.writeInt32("zoneId", (int) r.zoneId);
    w.writeInt32("zonePlan", r.zonePlan);
    w.writeStartDocument("http");
    w.writeInt32("protocol", h.protocol);
    w.writeInt32("status", h.status);
    w.writeInt32("hostStatus", h.hostStatus);
    w.writeInt32("upStatus", h.upStatus);
    w.writeInt32("method", h.method);
    w.writeString("contentType", h.contentType);
    w.writeString("userAgent", h.userAgent);
    w.writeString("referer", h.referer);
    w.writeString("requestUri", h.requestUri);
    w.writeEndDocument();
    w.writeStartDocument("origin");
    w.writeString("ip", o.ip);
    w.writeInt32("port", o.port);
    w.writeString("hostname", o.hostname);
    w.writeInt32("protocol", o.protocol);
    w.writeEndDocument();
    w.writeInt32("country", r.country);
    w.writeInt32("cacheStatus", r.cacheStatus);
    w.writeString("serverIp", r.serverIp);
    w.writeString("serverName", r.serverName);
    w.writeString("remoteIp", r.remoteIp);
    w.writeInt64("bytesDlv", r.bytesDlv);
    w.writeString("rayId", r.rayId);
    w.writeEndDocument();
  }

  private void write(BasicOutputBuffer out, Logs form) {
    BsonBinaryWriter w = new BsonBinaryWriter(out);
    if (!batch) {
      write(w, form.logs.get(0));
      return;
    }
    w.writeStartDocument();
    w.writeStartArray("logs");
    for (int i = 0, n = form.logs.size(); i < n; ++i) {
      write(w, form.logs.get(i));
    }
    w.writeEndArray();
    w.writeEndDocument();
  }

  @Override
  public int serializeOnce(Logs form) {
    if (reuse) {
      kept.truncateToPosition(0);
      write(kept, form);
      return kept.getPosition();
    }
    BasicOutputBuffer out = new BasicOutputBuffer();
    write(out, form);
    fresh = out.toByteArray();
    return fresh.length;
  }

  @Override
  public byte[] output() {
    return reuse
        ? java.util.Arrays.copyOf(kept.getInternalBuffer(), kept.getPosition())
        : fresh.clone();
  }

  private static BsonSerializationException unexpected(String what, String key) {
    return new BsonSerializationException("bson: unexpected key '" + key + "' in " + what);
  }

  private static Http http(BsonBinaryReader u) {
    Http h = new Http();
    u.readStartDocument();
    while (u.readBsonType() != BsonType.END_OF_DOCUMENT) {
      String key = u.readName();
      switch (key) {
        case "protocol": h.protocol = u.readInt32(); break;
        case "status": h.status = u.readInt32(); break;
        case "hostStatus": h.hostStatus = u.readInt32(); break;
        case "upStatus": h.upStatus = u.readInt32(); break;
        case "method": h.method = u.readInt32(); break;
        case "contentType": h.contentType = u.readString(); break;
        case "userAgent": h.userAgent = u.readString(); break;
        case "referer": h.referer = u.readString(); break;
        case "requestUri": h.requestUri = u.readString(); break;
        default: throw unexpected("http", key);
      }
    }
    u.readEndDocument();
    return h;
  }

  private static Origin origin(BsonBinaryReader u) {
    Origin o = new Origin();
    u.readStartDocument();
    while (u.readBsonType() != BsonType.END_OF_DOCUMENT) {
      String key = u.readName();
      switch (key) {
        case "ip": o.ip = u.readString(); break;
        case "port": o.port = u.readInt32(); break;
        case "hostname": o.hostname = u.readString(); break;
        case "protocol": o.protocol = u.readInt32(); break;
        default: throw unexpected("origin", key);
      }
    }
    u.readEndDocument();
    return o;
  }

  private static Log log(BsonBinaryReader u) {
    Log r = new Log();
    u.readStartDocument();
    while (u.readBsonType() != BsonType.END_OF_DOCUMENT) {
      String key = u.readName();
      switch (key) {
        case "timestamp": r.timestamp = u.readInt64(); break;
        case "zoneId": r.zoneId = u.readInt32(); break;
        case "zonePlan": r.zonePlan = u.readInt32(); break;
        case "http": r.http = http(u); break;
        case "origin": r.origin = origin(u); break;
        case "country": r.country = u.readInt32(); break;
        case "cacheStatus": r.cacheStatus = u.readInt32(); break;
        case "serverIp": r.serverIp = u.readString(); break;
        case "serverName": r.serverName = u.readString(); break;
        case "remoteIp": r.remoteIp = u.readString(); break;
        case "bytesDlv": r.bytesDlv = u.readInt64(); break;
        case "rayId": r.rayId = u.readString(); break;
        default: throw unexpected("a record", key);
      }
    }
    u.readEndDocument();
    return r;
  }

  @Override
  public long deserializeOnce(byte[] in, int len) {
    try (BsonBinaryReader u = new BsonBinaryReader(ByteBuffer.wrap(in, 0, len))) {
      Object root;
      if (batch) {
        u.readStartDocument();
        u.readName("logs");
        Logs logs = new Logs();
        logs.logs = new ArrayList<>();
        u.readStartArray();
        while (u.readBsonType() != BsonType.END_OF_DOCUMENT) {
          logs.logs.add(log(u));
        }
        u.readEndArray();
        u.readEndDocument();
        root = logs;
      } else {
        root = log(u);
      }
      if (u.getBsonInput().hasRemaining()) {
        throw new BsonSerializationException("bson: bytes after the document");
      }
      return keep(root);
    }
  }
}
