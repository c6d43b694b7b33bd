package dev.spool.broker.log;

import java.nio.channels.FileChannel;

/**
 * A byte range of a segment file holding whole record batches, to be sent as is (the network layer
 * wraps it in a Netty {@code DefaultFileRegion}, i.e. {@code sendfile}). The channel stays open for
 * at least {@code file.delete.delay.ms} after the segment leaves the log, so a slice may be sent
 * after retention removed its segment.
 *
 * <p>{@code offsets} is how many offsets its batches cover: from the first batch's base offset to
 * the last batch's last offset. That is the number of records sent, except in a compacted log,
 * where it also counts the offsets the cleaner removed from between them. It is found from the
 * batch headers a read looks at anyway, so the records themselves are never read.
 */
public record FileSlice(FileChannel channel, long position, int sizeInBytes, long offsets) {
  public FileSlice {
    if (position < 0 || sizeInBytes < 0 || offsets < 0) {
      throw new IllegalArgumentException(
          "invalid slice position=" + position + " size=" + sizeInBytes + " offsets=" + offsets);
    }
  }

  public boolean isEmpty() {
    return sizeInBytes == 0;
  }
}
