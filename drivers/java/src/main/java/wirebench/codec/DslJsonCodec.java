package wirebench.codec;

import com.dslplatform.json.DslJson;
import com.dslplatform.json.JsonWriter;
import java.io.IOException;

/**
 * DSL-JSON on the plain classes, with the converters its annotation processor compiled for
 * the @CompiledJson classes (registered in META-INF/services; no runtime analysis is
 * configured, so nothing falls back to reflection). reused: one
 * kept JsonWriter, reset() every iteration; fresh: a new JsonWriter and toByteArray().
 * deserialize: from the byte array, which it checks as it parses (validated).
 */
final class DslJsonCodec extends PlainCodec {
  private static final DslJson<Object> DSL = new DslJson<>(new DslJson.Settings<Object>().includeServiceLoader());

  private final JsonWriter kept = DSL.newWriter(1 << 16);
  private byte[] fresh;

  DslJsonCodec(String kase, boolean reuse) {
    super(kase, reuse);
  }

  @Override
  public int serializeOnce(Logs form) throws IOException {
    if (reuse) {
      kept.reset();
      DSL.serialize(kept, root(form));
      return kept.size();
    }
    JsonWriter w = DSL.newWriter();
    DSL.serialize(w, root(form));
    fresh = w.toByteArray();
    return fresh.length;
  }

  @Override
  public byte[] output() {
    return reuse ? kept.toByteArray() : fresh.clone();
  }

  @Override
  public long deserializeOnce(byte[] in, int len) throws IOException {
    Object root = DSL.deserialize(rootClass(), in, len);
    if (root == null) {
      throw new IOException("dsl-json: null");
    }
    return keep(root);
  }
}
