package dev.spool.broker.cluster;

import dev.spool.broker.log.FileSlice;
import dev.spool.broker.log.PartitionLog;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordBatchBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.StreamSupport;

/** The bytes a replica's log stores, read through its file slices, for tests comparing replicas. */
final class LogBytes {
  private LogBytes() {}

  /** The log's batches from its start up to {@code upTo} (exclusive), as stored. */
  static ByteBuffer read(PartitionLog log, long upTo) {
    return bytes(log.read(log.logStartOffset(), Integer.MAX_VALUE, upTo, true).slice());
  }

  /** The CRC of each batch the log stores below {@code upTo}, in offset order. */
  static List<Long> checksums(PartitionLog log, long upTo) {
    return StreamSupport.stream(MemoryRecords.wrap(read(log, upTo)).spliterator(), false)
        .map(RecordBatch::checksum)
        .toList();
  }

  /** One uncompressed batch of one record with {@code value} and no key. */
  static ByteBuffer oneRecordBatch(String value) {
    return new RecordBatchBuilder(128)
        .append(System.currentTimeMillis(), null, value.getBytes())
        .build();
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
