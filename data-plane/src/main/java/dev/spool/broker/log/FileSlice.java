package dev.spool.broker.log;

import java.nio.channels.FileChannel;

/**
 * A byte range of a segment file holding whole record batches, to be sent as is (the network layer
 * wraps it in a Netty {@code DefaultFileRegion}, i.e. {@code sendfile}). The channel stays open for
 * at least {@code file.delete.delay.ms} after the segment leaves the log, so a slice may be sent
 * after retention removed its segment.
 */
public record FileSlice(FileChannel channel, long position, int sizeInBytes) {
  public FileSlice {
    if (position < 0 || sizeInBytes < 0) {
      throw new IllegalArgumentException(
          "invalid slice position=" + position + " size=" + sizeInBytes);
    }
  }

  public boolean isEmpty() {
    return sizeInBytes == 0;
  }
}
