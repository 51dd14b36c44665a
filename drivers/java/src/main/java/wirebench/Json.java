package wirebench;

import java.util.List;
import java.util.Map;

/** A JSON object built field by field and printed on one line, as the other drivers do. */
public final class Json {
  private final StringBuilder body = new StringBuilder();

  public static String quote(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); ++i) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    return out.append('"').toString();
  }

  public Json raw(String key, String json) {
    if (body.length() > 0) {
      body.append(", ");
    }
    body.append(quote(key)).append(": ").append(json);
    return this;
  }

  public Json str(String key, String v) {
    return raw(key, quote(v));
  }

  public Json num(String key, long v) {
    return raw(key, Long.toString(v));
  }

  public Json bool(String key, boolean v) {
    return raw(key, v ? "true" : "false");
  }

  public Json list(String key, List<Long> v) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < v.size(); ++i) {
      if (i > 0) {
        b.append(", ");
      }
      b.append(v.get(i));
    }
    return raw(key, b.append(']').toString());
  }

  /** A list of strings. */
  public Json strings(String key, List<String> v) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < v.size(); ++i) {
      if (i > 0) {
        b.append(", ");
      }
      b.append(quote(v.get(i)));
    }
    return raw(key, b.append(']').toString());
  }

  /** Appends the fields of `other`, in their order. */
  public Json fields(Json other) {
    if (other.body.length() > 0) {
      if (body.length() > 0) {
        body.append(", ");
      }
      body.append(other.body);
    }
    return this;
  }

  /** An object of string pairs, in the map's order. */
  public static String pairs(Map<String, String> m) {
    Json j = new Json();
    for (Map.Entry<String, String> e : m.entrySet()) {
      j.str(e.getKey(), e.getValue());
    }
    return j.text();
  }

  public String text() {
    return "{" + body + "}";
  }
}
