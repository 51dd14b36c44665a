package wirebench.codec;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.IOException;

/**
 * jackson-databind on the plain classes (@JsonPropertyOrder gives the canonical JSON's key
 * order): an ObjectWriter and ObjectReader made once for the root class. reused: writes into
 * a kept stream (reset() keeps its array); fresh: writeValueAsBytes. deserialize: readValue
 * from the byte array, which checks the JSON completely (validated), trailing content
 * included (FAIL_ON_TRAILING_TOKENS; jackson ignores it by default).
 */
final class JacksonCodec extends PlainCodec {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final ObjectWriter writer;
  private final ObjectReader reader;
  private final Sink sink = new Sink();
  private byte[] fresh;

  JacksonCodec(String kase, boolean reuse) {
    super(kase, reuse);
    writer = MAPPER.writerFor(rootClass());
    reader = MAPPER.readerFor(rootClass());
  }

  @Override
  public int serializeOnce(Logs form) throws IOException {
    if (reuse) {
      sink.reset();
      writer.writeValue(sink, root(form));
      return sink.size();
    }
    fresh = writer.writeValueAsBytes(root(form));
    return fresh.length;
  }

  @Override
  public byte[] output() {
    return reuse ? sink.copy() : fresh.clone();
  }

  @Override
  public long deserializeOnce(byte[] in, int len) throws IOException {
    return keep(reader.readValue(in, 0, len));
  }
}
