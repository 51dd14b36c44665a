package wirebench.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import wirebench.Rng;

/**
 * The codec workload (docs/workloads.md, codec): the `log` record, the `logs` generator, the
 * fold every timed read sums, the field-by-field comparison of the checks, and the plain copy
 * that is populate for the libraries whose native form is the plain classes. The Python
 * statement of the same is wirebench/codec_records.py.
 */
public final class Records {
  private Records() {}

  public static final List<String> CASES =
      List.of("log", "logs1", "logs10", "logs100", "logs", "logs10000");

  /** The cases of the golden files: the record and the batch. */
  public static final List<String> GOLDEN = List.of("log", "logs");

  /** The size axis (docs/workloads.md): the first N records of the logs generator. */
  static final java.util.Map<String, Integer> SIZES =
      java.util.Map.of("logs1", 1, "logs10", 10, "logs100", 100, "logs", 1000, "logs10000", 10000);

  /** Whether a case is a Logs message: every case but log. */
  static boolean isBatch(String kase) {
    return !kase.equals("log");
  }

  static final String UA_LOG =
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML,like Gecko) "
          + "Chrome/33.0.1750.146 Safari/537.36";
  private static final int[] STATUS = {
    200, 200, 200, 200, 200, 200, 200, 200, 204, 206, 301, 304, 400, 404, 500, 503
  };
  private static final String[] CONTENT_TYPES = {
    "text/html", "text/html; charset=utf-8", "application/json", "text/css",
    "application/javascript", "image/png", "image/jpeg", "text/plain"
  };
  private static final String[] USER_AGENTS = {
    UA_LOG,
    "curl/7.88.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        + "Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 "
        + "(KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
    "Googlebot/2.1 (+http://www.google.com/bot.html)",
    "python-requests/2.31.0",
    "Go-http-client/1.1",
    ""
  };
  private static final String[] COLOS = {"LAX", "SJC", "AMS", "FRA", "LHR", "NRT", "SIN", "GRU"};

  /** Case `log`: the reference's record. */
  static Log log() {
    Log r = new Log();
    r.timestamp = 25469139677502L;
    r.zoneId = 123456;
    r.zonePlan = 1;
    r.http = new Http();
    r.http.protocol = 2;
    r.http.status = 200;
    r.http.hostStatus = 503;
    r.http.upStatus = 520;
    r.http.method = 1;
    r.http.contentType = "text/html";
    r.http.userAgent = UA_LOG;
    r.http.referer = "https: //www.cloudflare.com/";
    r.http.requestUri = "/cdn-cgi/trace";
    r.origin = new Origin();
    r.origin.ip = "1.2.3.4";
    r.origin.port = 8000;
    r.origin.hostname = "www.example.com";
    r.origin.protocol = 2;
    r.country = 238;
    r.cacheStatus = 3;
    r.serverIp = "192.168.1.1";
    r.serverName = "metal.cloudflare.com";
    r.remoteIp = "10.1.2.3";
    r.bytesDlv = 123456;
    r.rayId = "10c73629cce30078-LAX";
    return r;
  }

  private static String letters(Rng rng, int n) {
    char[] c = new char[n];
    for (int i = 0; i < n; ++i) {
      c[i] = (char) ('a' + rng.rand(26));
    }
    return new String(c);
  }

  private static String ip(Rng rng) {
    return rng.rand(256) + "." + rng.rand(256) + "." + rng.rand(256) + "." + rng.rand(256);
  }

  private static long u64(Rng rng) {
    long hi = rng.next() & 0xffffffffL;
    return hi << 32 | (rng.next() & 0xffffffffL);
  }

  /** Record `i` of the batch; each statement draws in the order docs/workloads.md gives. */
  static Log generate(Rng rng, int i) {
    Log r = new Log();
    r.http = new Http();
    r.origin = new Origin();
    r.timestamp = 25469139677502L + 1000L * i + rng.rand(1000);
    int shift = 1 + rng.rand(31);
    r.zoneId = (rng.next() & 0xffffffffL) >>> shift;
    r.zonePlan = rng.rand(5);
    r.http.protocol = rng.rand(3);
    r.http.status = STATUS[rng.rand(16)];
    r.http.hostStatus = STATUS[rng.rand(16)];
    r.http.upStatus = STATUS[rng.rand(16)];
    r.http.method = rng.rand(11);
    r.http.contentType = CONTENT_TYPES[rng.rand(8)];
    r.http.userAgent = USER_AGENTS[rng.rand(8)];
    String host = letters(rng, 1 + rng.rand(12));
    r.http.referer = "https://" + host + ".com/" + letters(rng, rng.rand(40));
    r.http.requestUri = "/" + letters(rng, rng.rand(80));
    r.origin.ip = ip(rng);
    r.origin.port = rng.rand(65536);
    r.origin.hostname = letters(rng, 1 + rng.rand(16)) + ".example.com";
    r.origin.protocol = rng.rand(3);
    r.country = rng.rand(256);
    r.cacheStatus = rng.rand(4);
    r.serverIp = ip(rng);
    r.serverName = "metal" + rng.rand(1000) + ".cloudflare.com";
    r.remoteIp = ip(rng);
    shift = 16 + rng.rand(48);
    r.bytesDlv = u64(rng) >>> shift;
    String ray = Long.toHexString(u64(rng));
    r.rayId = "0".repeat(16 - ray.length()) + ray + "-" + COLOS[rng.rand(8)];
    return r;
  }

  /** The records of a case: the one `log` record, or the first of a fresh generator (SIZES). */
  public static List<Log> records(String kase) {
    List<Log> out = new ArrayList<>();
    if (kase.equals("log")) {
      out.add(log());
    } else {
      Rng rng = new Rng();
      for (int i = 0, n = SIZES.get(kase); i < n; ++i) {
        out.add(generate(rng, i));
      }
    }
    return out;
  }

  // ---- the fold ---------------------------------------------------------------------------

  /**
   * A string's term: its length in bytes plus its first and last byte. The workload's strings
   * are printable ASCII (docs/workloads.md), so a String's chars are its UTF-8 bytes; a
   * decoder that got one wrong fails the digest.
   */
  static long fold(String s) {
    int n = s.length();
    return n == 0 ? 0 : n + s.charAt(0) + s.charAt(n - 1);
  }

  /** A record's fold: every integer (enums as numbers) and every string's term, wrapping. */
  static long fold(Log r) {
    Http h = r.http;
    Origin o = r.origin;
    return r.timestamp + r.zoneId + r.zonePlan + h.protocol + h.status + h.hostStatus
        + h.upStatus + h.method + o.port + o.protocol + r.country + r.cacheStatus + r.bytesDlv
        + fold(h.contentType) + fold(h.userAgent) + fold(h.referer) + fold(h.requestUri)
        + fold(o.ip) + fold(o.hostname) + fold(r.serverIp) + fold(r.serverName)
        + fold(r.remoteIp) + fold(r.rayId);
  }

  public static long fold(List<Log> recs) {
    long sum = 0;
    for (int i = 0, n = recs.size(); i < n; ++i) {
      sum += fold(recs.get(i));
    }
    return sum;
  }

  // ---- comparison -------------------------------------------------------------------------

  private static final String[] NAMES = {
    "timestamp", "zoneId", "zonePlan", "http.protocol", "http.status", "http.hostStatus",
    "http.upStatus", "http.method", "http.contentType", "http.userAgent", "http.referer",
    "http.requestUri", "origin.ip", "origin.port", "origin.hostname", "origin.protocol",
    "country", "cacheStatus", "serverIp", "serverName", "remoteIp", "bytesDlv", "rayId"
  };

  private static Object[] values(Log r) {
    Http h = r.http == null ? new Http() : r.http;
    Origin o = r.origin == null ? new Origin() : r.origin;
    return new Object[] {
      r.timestamp, r.zoneId, r.zonePlan, h.protocol, h.status, h.hostStatus, h.upStatus,
      h.method, h.contentType, h.userAgent, h.referer, h.requestUri, o.ip, o.port, o.hostname,
      o.protocol, r.country, r.cacheStatus, r.serverIp, r.serverName, r.remoteIp, r.bytesDlv,
      r.rayId
    };
  }

  /** The first difference between `want` and `got` ("record 7: origin.port: ..."), or null. */
  public static String diff(List<Log> want, List<Log> got) {
    if (want.size() != got.size()) {
      return got.size() + " records, expected " + want.size();
    }
    for (int i = 0; i < want.size(); ++i) {
      Object[] w = values(want.get(i));
      Object[] g = values(got.get(i));
      for (int k = 0; k < w.length; ++k) {
        if (!Objects.equals(w[k], g[k])) {
          return "record " + i + ": " + NAMES[k] + ": " + g[k] + ", expected " + w[k];
        }
      }
    }
    return null;
  }

  // ---- populate for the plain classes -----------------------------------------------------

  /**
   * Copies `src` into `dst`, the native form of the libraries that serialize the plain classes:
   * into the records `dst` already holds when `reuse` (the output memory kept), else into new
   * ones. Strings are immutable in Java: the copy shares them, as any Java program would.
   */
  static void copy(List<Log> src, Logs dst, boolean reuse) {
    List<Log> out = dst.logs;
    if (!reuse) {
      out = dst.logs = new ArrayList<>(src.size());
    }
    for (int i = 0, n = src.size(); i < n; ++i) {
      Log s = src.get(i);
      Log d;
      if (i < out.size()) {
        d = out.get(i);
      } else {
        d = new Log();
        d.http = new Http();
        d.origin = new Origin();
        out.add(d);
      }
      d.timestamp = s.timestamp;
      d.zoneId = s.zoneId;
      d.zonePlan = s.zonePlan;
      Http sh = s.http;
      Http dh = d.http;
      dh.protocol = sh.protocol;
      dh.status = sh.status;
      dh.hostStatus = sh.hostStatus;
      dh.upStatus = sh.upStatus;
      dh.method = sh.method;
      dh.contentType = sh.contentType;
      dh.userAgent = sh.userAgent;
      dh.referer = sh.referer;
      dh.requestUri = sh.requestUri;
      Origin so = s.origin;
      Origin od = d.origin;
      od.ip = so.ip;
      od.port = so.port;
      od.hostname = so.hostname;
      od.protocol = so.protocol;
      d.country = s.country;
      d.cacheStatus = s.cacheStatus;
      d.serverIp = s.serverIp;
      d.serverName = s.serverName;
      d.remoteIp = s.remoteIp;
      d.bytesDlv = s.bytesDlv;
      d.rayId = s.rayId;
    }
    while (out.size() > src.size()) {
      out.remove(out.size() - 1);
    }
  }
}
