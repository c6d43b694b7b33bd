package dev.spool.broker.cluster;

import dev.spool.broker.log.FileSlice;
import dev.spool.broker.log.PartitionLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/** The bytes a replica's log stores, read through its file slices, for tests comparing replicas. */
final class LogBytes {
  private LogBytes() {}

  /** The log's batches from its start up to {@code upTo} (exclusive), as stored. */
  static ByteBuffer read(PartitionLog log, long upTo) {
    return bytes(log.read(log.logStartOffset(), Integer.MAX_VALUE, upTo, true).slice());
  }

  static ByteBuffer bytes(FileSlice slice) {
    ByteBuffer b = ByteBuffer.allocate(slice.sizeInBytes());
    try {
      while (b.hasRemaining()) {
        if (slice.channel().read(b, slice.position() + b.position()) < 0) {
          throw new IOException("the slice runs past the end of its file");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.flip();
  }
}
