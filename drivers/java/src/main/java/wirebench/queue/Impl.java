package wirebench.queue;

import java.io.IOException;
import wirebench.Failure;
import wirebench.Json;

/**
 * A library's queue as the suite's loops see it (one file per library: NullQueue, WbqQueue,
 * ChronicleQueue). A write is start, writeLong..., end, as in the seed; start reads the clock
 * for the entry's timestamp. Everything else runs between runs, outside the timed region.
 */
interface Impl extends AutoCloseable {
  /** Starts an entry of at most `maxLength` bytes and stores its timestamp (System.nanoTime). */
  void start(int maxLength) throws IOException;

  void writeLong(long v);

  /** Completes (publishes) the entry. */
  void end();

  /** Makes the coming writes take no page fault and no file creation, where it can. */
  void pretouch() throws IOException;

  /**
   * Reads back, with the library's own reader, every entry written since the last call, each
   * through `check`; then deletes the files the reader has finished with.
   */
  void readBack(Check check) throws IOException, Failure;

  /** The result's `queue` evidence: {"cycle_size": B, "cycles": N}. */
  Json evidence();

  @Override
  void close();
}
