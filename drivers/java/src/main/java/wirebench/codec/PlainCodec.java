package wirebench.codec;

import java.util.List;

/**
 * The part of a library whose native form is the plain classes (jackson, dsl-json,
 * msgpack-java, kryo, null): populate copies the workload's records into a kept Logs
 * (reused) or a new one (fresh), and the root of the encoding is that Logs (case logs) or its
 * one record (case log).
 */
abstract class PlainCodec implements Codec<Logs> {
  final boolean batch;
  final boolean reuse;
  private final Logs kept = new Logs();
  /** The last deserialized root: a Log or a Logs. */
  Object last;

  PlainCodec(String kase, boolean reuse) {
    this.batch = Records.isBatch(kase);
    this.reuse = reuse;
  }

  @Override
  public final Logs populateOnce(List<Log> records) {
    Logs form = reuse ? kept : new Logs();
    Records.copy(records, form, reuse);
    return form;
  }

  /** What is encoded: the batch, or its one record. */
  final Object root(Logs form) {
    return batch ? form : form.logs.get(0);
  }

  /** The class of the encoded root. */
  final Class<?> rootClass() {
    return batch ? Logs.class : Log.class;
  }

  /** Keeps a deserialized root for the checks and returns its fold. */
  final long keep(Object root) {
    last = root;
    return root instanceof Logs ? Records.fold(((Logs) root).logs) : Records.fold((Log) root);
  }

  static List<Log> list(Object root) {
    return root instanceof Logs ? ((Logs) root).logs : List.of((Log) root);
  }

  @Override
  public final List<Log> deserialized() {
    return list(last);
  }

  @Override
  public final List<Log> plain(Logs form) {
    return form.logs;
  }
}
