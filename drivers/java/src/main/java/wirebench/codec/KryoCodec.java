package wirebench.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.util.ArrayList;

/**
 * Kryo 5 on the plain classes, registered (Kryo 5 requires it), with its default serializers
 * (FieldSerializer; the format is Kryo's own: golden format `kryo`). reused: one kept Output
 * over a kept array, reset() every iteration; fresh: a new Output and toBytes(). deserialize:
 * readObject from an Input over the byte array, every read bounds-checked, nothing left over
 * (validated).
 */
final class KryoCodec extends PlainCodec {
  private final Kryo kryo = new Kryo();
  private final Output kept = new Output(1 << 16, -1);
  private byte[] fresh;

  KryoCodec(String kase, boolean reuse) {
    super(kase, reuse);
    kryo.register(Logs.class);
    kryo.register(Log.class);
    kryo.register(Http.class);
    kryo.register(Origin.class);
    kryo.register(ArrayList.class);
  }

  @Override
  public int serializeOnce(Logs form) {
    if (reuse) {
      kept.reset();
      kryo.writeObject(kept, root(form));
      return kept.position();
    }
    Output out = new Output(4096, -1);
    kryo.writeObject(out, root(form));
    fresh = out.toBytes();
    return fresh.length;
  }

  @Override
  public byte[] output() {
    return reuse ? kept.toBytes() : fresh.clone();
  }

  @Override
  public long deserializeOnce(byte[] in, int len) {
    Input input = new Input(in, 0, len);
    Object root = kryo.readObject(input, rootClass());
    if (input.position() != len) {
      throw new KryoException("kryo: " + (len - input.position()) + " bytes after the message");
    }
    return keep(root);
  }
}
