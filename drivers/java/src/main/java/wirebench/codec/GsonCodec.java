package wirebench.codec;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.Strictness;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/**
 * Gson on the plain classes (its reflection writes the public fields in their declared order,
 * the canonical JSON's). HTML escaping off: Gson would write '=' as \u003d, which the canonical
 * JSON does not. reused: writes through a kept writer into a kept stream (reset() keeps its
 * array); fresh: toJson into a new String, then its UTF-8 bytes. deserialize: fromJson over
 * the bytes decoded as UTF-8 (malformed bytes refused), strict (RFC 8259 only, no lenient
 * extensions), and the whole input must be the one value (Gson refuses trailing content):
 * validated.
 */
final class GsonCodec extends PlainCodec {
  private static final Gson GSON =
      new GsonBuilder().disableHtmlEscaping().setStrictness(Strictness.STRICT).create();

  private final Sink sink = new Sink();
  private final Writer writer = new OutputStreamWriter(sink, StandardCharsets.UTF_8);
  private byte[] fresh;

  GsonCodec(String kase, boolean reuse) {
    super(kase, reuse);
  }

  @Override
  public int serializeOnce(Logs form) throws IOException {
    if (reuse) {
      sink.reset();
      GSON.toJson(root(form), rootClass(), writer);
      writer.flush();
      return sink.size();
    }
    fresh = GSON.toJson(root(form), rootClass()).getBytes(StandardCharsets.UTF_8);
    return fresh.length;
  }

  @Override
  public byte[] output() {
    return reuse ? sink.copy() : fresh.clone();
  }

  @Override
  public long deserializeOnce(byte[] in, int len) throws IOException {
    Object root =
        GSON.fromJson(
            new InputStreamReader(
                new ByteArrayInputStream(in, 0, len), StandardCharsets.UTF_8.newDecoder()),
            rootClass());
    if (root == null) {
      throw new IOException("gson: null");
    }
    return keep(root);
  }
}
