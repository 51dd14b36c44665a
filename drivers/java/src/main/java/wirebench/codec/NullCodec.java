package wirebench.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The null library of the codec suite: the hand-written null format of docs/workloads.md
 * (codec: encodings) over a byte array, the floor the libraries are read against. Per record a
 * 34-byte little-endian fixed part, then ten strings, each a u32 byte count and its bytes;
 * case logs starts with a u32 record count. reused: a kept output array (grown when a message
 * could not fit); fresh: a new array of the message's exact size. deserialize builds the plain
 * classes; access folds straight from the bytes. Reads are bounds-checked as they happen
 * (validation lazy): a truncated or overlong input is an error.
 */
final class NullCodec extends PlainCodec {
  /** The fixed part and the ten string lengths of a record: the least a record takes. */
  private static final int MIN_RECORD = 34 + 10 * 4;

  private ByteBuffer out = ByteBuffer.allocate(0);

  NullCodec(String kase, boolean reuse) {
    super(kase, reuse);
  }

  // ---- serialize --------------------------------------------------------------------------

  private static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); ++i) {
      char c = s.charAt(i);
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
    }
    return n;
  }

  private static int size(Log r) {
    Http h = r.http;
    Origin o = r.origin;
    return MIN_RECORD + utf8Length(h.contentType) + utf8Length(h.userAgent)
        + utf8Length(h.referer) + utf8Length(h.requestUri) + utf8Length(o.ip)
        + utf8Length(o.hostname) + utf8Length(r.serverIp) + utf8Length(r.serverName)
        + utf8Length(r.remoteIp) + utf8Length(r.rayId);
  }

  /** At least the size of a record (a char takes at most 3 UTF-8 bytes). */
  private static int bound(Log r) {
    Http h = r.http;
    Origin o = r.origin;
    return MIN_RECORD + 3 * (h.contentType.length() + h.userAgent.length()
        + h.referer.length() + h.requestUri.length() + o.ip.length() + o.hostname.length()
        + r.serverIp.length() + r.serverName.length() + r.remoteIp.length() + r.rayId.length());
  }

  /** A string's count and bytes: ASCII char by char, anything else through the encoder. */
  private static void put(ByteBuffer b, String s) {
    int at = b.position();
    b.position(at + 4);
    for (int i = 0, n = s.length(); i < n; ++i) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        b.position(at + 4);
        b.put(s.getBytes(StandardCharsets.UTF_8));
        break;
      }
      b.put((byte) c);
    }
    b.putInt(at, b.position() - at - 4);
  }

  private static void put(ByteBuffer b, Log r) {
    Http h = r.http;
    Origin o = r.origin;
    b.putLong(r.timestamp)
        .putInt((int) r.zoneId)
        .put((byte) r.zonePlan)
        .put((byte) h.protocol)
        .putShort((short) h.status)
        .putShort((short) h.hostStatus)
        .putShort((short) h.upStatus)
        .put((byte) h.method)
        .putShort((short) o.port)
        .put((byte) o.protocol)
        .put((byte) r.country)
        .put((byte) r.cacheStatus)
        .putLong(r.bytesDlv);
    put(b, h.contentType);
    put(b, h.userAgent);
    put(b, h.referer);
    put(b, h.requestUri);
    put(b, o.ip);
    put(b, o.hostname);
    put(b, r.serverIp);
    put(b, r.serverName);
    put(b, r.remoteIp);
    put(b, r.rayId);
  }

  @Override
  public int serializeOnce(Logs form) {
    List<Log> logs = form.logs;
    int n = logs.size();
    int size = batch ? 4 : 0;
    for (int i = 0; i < n; ++i) {
      size += reuse ? bound(logs.get(i)) : size(logs.get(i));
    }
    if (!reuse) {
      out = ByteBuffer.allocate(size);
    } else if (out.capacity() < size) {
      out = ByteBuffer.allocate(size);
    }
    ByteBuffer b = out.clear().order(ByteOrder.LITTLE_ENDIAN);
    if (batch) {
      b.putInt(n);
    }
    for (int i = 0; i < n; ++i) {
      put(b, logs.get(i));
    }
    return b.position();
  }

  @Override
  public byte[] output() {
    return Arrays.copyOf(out.array(), out.position());
  }

  // ---- deserialize and access -------------------------------------------------------------

  /** The record count, refused if the input cannot hold that many records. */
  private int count(ByteBuffer b) {
    if (!batch) {
      return 1;
    }
    int n = b.getInt();
    if (n < 0 || (long) n * MIN_RECORD > b.remaining()) {
      throw new IllegalArgumentException("null: " + n + " records cannot fit");
    }
    return n;
  }

  private static void end(ByteBuffer b) {
    if (b.hasRemaining()) {
      throw new IllegalArgumentException("null: " + b.remaining() + " bytes after the last record");
    }
  }

  /** A string's byte count, refused if the input ends before its bytes. */
  private static int length(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0 || n > b.remaining()) {
      throw new IllegalArgumentException("null: a string of " + n + " bytes overruns the input");
    }
    return n;
  }

  private static String string(ByteBuffer b) {
    int n = length(b);
    int at = b.position();
    b.position(at + n);
    return new String(b.array(), at, n, StandardCharsets.UTF_8);
  }

  private static Log record(ByteBuffer b) {
    Log r = new Log();
    Http h = r.http = new Http();
    Origin o = r.origin = new Origin();
    r.timestamp = b.getLong();
    r.zoneId = b.getInt() & 0xffffffffL;
    r.zonePlan = b.get() & 0xff;
    h.protocol = b.get() & 0xff;
    h.status = b.getShort() & 0xffff;
    h.hostStatus = b.getShort() & 0xffff;
    h.upStatus = b.getShort() & 0xffff;
    h.method = b.get() & 0xff;
    o.port = b.getShort() & 0xffff;
    o.protocol = b.get() & 0xff;
    r.country = b.get() & 0xff;
    r.cacheStatus = b.get() & 0xff;
    r.bytesDlv = b.getLong();
    h.contentType = string(b);
    h.userAgent = string(b);
    h.referer = string(b);
    h.requestUri = string(b);
    o.ip = string(b);
    o.hostname = string(b);
    r.serverIp = string(b);
    r.serverName = string(b);
    r.remoteIp = string(b);
    r.rayId = string(b);
    return r;
  }

  @Override
  public long deserializeOnce(byte[] in, int len) {
    ByteBuffer b = ByteBuffer.wrap(in, 0, len).order(ByteOrder.LITTLE_ENDIAN);
    int n = count(b);
    Object root;
    if (batch) {
      Logs logs = new Logs();
      logs.logs = new ArrayList<>(n);
      for (int i = 0; i < n; ++i) {
        logs.logs.add(record(b));
      }
      root = logs;
    } else {
      root = record(b);
    }
    end(b);
    return keep(root);
  }

  /** A string's fold term read in place: its count, first and last byte. */
  private static long foldString(ByteBuffer b) {
    int n = length(b);
    int at = b.position();
    b.position(at + n);
    return n == 0 ? 0 : n + (b.get(at) & 0xff) + (b.get(at + n - 1) & 0xff);
  }

  @Override
  public long accessOnce(byte[] in, int len) {
    ByteBuffer b = ByteBuffer.wrap(in, 0, len).order(ByteOrder.LITTLE_ENDIAN);
    long sum = 0;
    for (int i = count(b); i > 0; --i) {
      sum += b.getLong() + (b.getInt() & 0xffffffffL) + (b.get() & 0xff) + (b.get() & 0xff)
          + (b.getShort() & 0xffff) + (b.getShort() & 0xffff) + (b.getShort() & 0xffff)
          + (b.get() & 0xff) + (b.getShort() & 0xffff) + (b.get() & 0xff) + (b.get() & 0xff)
          + (b.get() & 0xff) + b.getLong();
      for (int k = 0; k < 10; ++k) {
        sum += foldString(b);
      }
    }
    end(b);
    return sum;
  }
}
