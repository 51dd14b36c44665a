package wirebench.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import java.util.ArrayList;
import java.util.Collection;

/**
 * Kryo 5 on the plain classes, registered (Kryo 5 requires it), with its default serializers
 * (FieldSerializer; the format is Kryo's own: golden format `kryo`). reused: one kept Output
 * over a kept array, reset() every iteration; fresh: a new Output and toBytes(). deserialize:
 * readObject from an Input over the byte array, every read bounds-checked, nothing left over
 * (validated).
 *
 * <p>Kryo sizes a string's char array and a list's backing array from the counts in the input,
 * before reading any element: a 5-byte count made it allocate gigabytes (found by fuzzing,
 * fuzz/README.md). {@link BoundedInput} and {@link BoundedList} refuse a count larger than
 * the bytes left (every char and every element takes at least one byte) first; the bytes
 * written are Kryo's own as before.
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
    kryo.register(ArrayList.class, new BoundedList());
  }

  /** An Input that refuses a string's char count larger than the bytes left. */
  static final class BoundedInput extends Input {
    BoundedInput(byte[] in, int off, int len) {
      super(in, off, len);
    }

    /** Kryo's readString reads a UTF-8 string's char count + 1 (0: null) with this. */
    @Override
    public int readVarIntFlag(boolean optimizePositive) {
      int count = super.readVarIntFlag(optimizePositive);
      if (count - 1 > limit - position) {
        throw new KryoException(
            "kryo: a string of " + Integer.toUnsignedString(count - 1) + " chars overruns the "
                + (limit - position) + " bytes left");
      }
      return count;
    }
  }

  /** Kryo's ArrayList serializer, refusing an element count larger than the bytes left. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static final class BoundedList extends CollectionSerializer<Collection> {
    @Override
    protected Collection create(Kryo kryo, Input input, Class<? extends Collection> type, int size) {
      if (size < 0 || size > input.limit() - input.position()) {
        throw new KryoException(
            "kryo: a list of " + Integer.toUnsignedString(size) + " elements overruns the "
                + (input.limit() - input.position()) + " bytes left");
      }
      return super.create(kryo, input, type, size);
    }
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

  /**
   * Kryo writes the class of a List-typed field's value and of each element, and sets the field
   * without a cast: a hostile input can put any registered class there (a Byte in Logs.logs
   * made an IncompatibleClassChangeError at its first use, found by fuzzing; fuzz/README.md).
   * The batch must be an ArrayList of Log records (Log, Http and Origin are final classes, whose
   * fields Kryo reads as their own type).
   */
  private static void checkBatch(Logs logs) {
    Object list = logs.logs; // no interface call before the check
    if (!(list instanceof ArrayList)) {
      throw new KryoException(
          "kryo: the batch is " + (list == null ? "null" : "a " + list.getClass().getName()));
    }
    for (Object o : (ArrayList<?>) list) {
      if (!(o instanceof Log)) {
        throw new KryoException(
            "kryo: a record of the batch is " + (o == null ? "null" : "a " + o.getClass().getName()));
      }
    }
  }

  @Override
  public long deserializeOnce(byte[] in, int len) {
    Input input = new BoundedInput(in, 0, len);
    Object root = kryo.readObject(input, rootClass());
    if (batch) {
      checkBatch((Logs) root);
    }
    if (input.position() != len) {
      throw new KryoException("kryo: " + (len - input.position()) + " bytes after the message");
    }
    return keep(root);
  }
}
