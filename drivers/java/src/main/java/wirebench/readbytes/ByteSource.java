package wirebench.readbytes;

import java.io.IOException;

/**
 * A strategy of the readbytes suite (docs/protocol.md, suite readbytes): a byte source that a
 * consumer (Consumers) takes one byte at a time from. The consumer never sees a buffer, only
 * {@link #read}. One pass is {@link #open}, {@link #read} until it returns -1, {@link #close};
 * a source is reused pass after pass.
 *
 * <p>Each process runs one strategy, so the consumers' call sites of these methods see one class
 * (HotSpot inlines it there, guarded by that one type): no wrapper or second implementation may
 * reach them in a run.
 */
interface ByteSource {
  /** Opens the file (maps it) for a pass, from its first byte. */
  void open() throws IOException;

  /** The next byte, 0..255, or -1 at the end of the file. */
  int read() throws IOException;

  /** Closes the file (unmaps it). */
  void close() throws IOException;
}
