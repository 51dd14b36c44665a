package wirebench.queue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import wirebench.Failure;
import wirebench.Json;

/**
 * Lib `wbq`: wirebench's own queue (Wbq, docs/queue-format.md) in 64 MiB cycle files,
 * published with a release store (ordering `release`) or a volatile one (`seqcst`). Its reader
 * is a Wbq.Tailer kept across runs; the cycle files it has finished with (unmapped by it, and
 * by the appender when it rolled) are deleted after each run, so that a process holds a few
 * files whatever it writes.
 */
final class WbqQueue implements Impl {
  static final long CYCLE_SIZE = Wbq.DEFAULT_CYCLE_SIZE;

  private final Path dir;
  private final Wbq.Appender appender;
  private final Wbq.Tailer tailer;

  WbqQueue(Path dir, boolean seqcst) throws IOException {
    this.dir = dir;
    this.appender = new Wbq.Appender(dir, Wbq.CLOCK_MONO, CYCLE_SIZE, seqcst);
    this.tailer = new Wbq.Tailer(dir);
  }

  /** The most values one entry may hold: a 64 MiB cycle file, less its header and END. */
  static final long MAX_LONGS = (CYCLE_SIZE - Wbq.HEADER - Wbq.ENTRY - 8) / 8;

  @Override
  public void start(int maxLength) throws IOException {
    appender.start(maxLength);
  }

  @Override
  public void writeLong(long v) {
    appender.writeLong(v);
  }

  @Override
  public void end() {
    appender.end();
  }

  @Override
  public void pretouch() throws IOException {
    appender.pretouch();
  }

  @Override
  public void readBack(Check check) throws IOException, Failure {
    for (; ; ) {
      Wbq.Next n = tailer.next();
      if (n == Wbq.Next.NONE) {
        break;
      }
      if (n == Wbq.Next.INCOMPLETE) {
        throw new Failure(
            "wbq reader: incomplete entry at " + tailer.file() + " offset " + tailer.offset());
      }
      check.entry(tailer.timestamp(), tailer.length());
      int longs = (int) (tailer.length() / 8);
      for (int i = 0; i < longs; ++i) {
        check.value(tailer.getLong(i));
      }
    }
    if (tailer.abandoned() != 0) {
      throw new Failure("wbq reader: skipped " + tailer.abandoned() + " abandoned entries");
    }
    for (long cycle : tailer.drainFinished()) {
      Files.delete(dir.resolve(Wbq.fileName(cycle)));
    }
  }

  @Override
  public Json evidence() {
    return new Json().num("cycle_size", CYCLE_SIZE).num("cycles", appender.created());
  }

  @Override
  public void close() {
    tailer.close();
    appender.close();
  }
}
