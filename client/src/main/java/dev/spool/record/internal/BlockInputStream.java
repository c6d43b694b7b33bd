package dev.spool.record.internal;

import java.io.IOException;
import java.io.InputStream;

/**
 * A stream over a codec that inflates whole blocks (lz4 frame blocks, snappy chunks): a read takes
 * what is left of the block in hand, else asks the codec for the next block, which inflates
 * straight into the caller's array when the whole block fits there (no copy) and into a buffer the
 * codec keeps otherwise. Not thread-safe.
 */
abstract class BlockInputStream extends InputStream {
  private byte[] block;
  private int blockPosition;
  private int blockLimit;

  /**
   * Reads the next block: into {@code b} at {@code off} when it fits in {@code len} (returns its
   * length), else into a buffer handed over with {@link #buffered} (returns 0); -1 at the end.
   */
  protected abstract int nextBlock(byte[] b, int off, int len) throws IOException;

  /** The block to read next is {@code length} bytes at the start of {@code buffer}. */
  protected final void buffered(byte[] buffer, int length) {
    block = buffer;
    blockPosition = 0;
    blockLimit = length;
  }

  @Override
  public final int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public final int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    while (blockPosition == blockLimit) {
      int n = nextBlock(b, off, len);
      if (n < 0) {
        return -1;
      }
      if (n > 0) {
        return n;
      }
    }
    int n = Math.min(len, blockLimit - blockPosition);
    System.arraycopy(block, blockPosition, b, off, n);
    blockPosition += n;
    return n;
  }
}
