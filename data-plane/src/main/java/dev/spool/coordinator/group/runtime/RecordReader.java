package dev.spool.coordinator.group.runtime;

import dev.spool.broker.log.FileSlice;
import dev.spool.coordinator.group.core.CoordinatorRecord;
import dev.spool.coordinator.group.core.GroupRecords;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordCursor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a slice of an offsets partition into coordinator records, for loading. Batches that fail
 * their CRC, control batches and records that do not decode are skipped with a warning: a
 * coordinator that refused to load over one bad record would make every group of the partition
 * unavailable, and the leader validated every batch when it was appended. Owner thread.
 */
final class RecordReader {
  private static final Logger log = LoggerFactory.getLogger(RecordReader.class);

  private RecordReader() {}

  /** Reads the slice's bytes (positional reads, safe beside appends). */
  static ByteBuffer read(FileSlice slice) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(slice.sizeInBytes());
    long pos = slice.position();
    while (buf.hasRemaining()) {
      int n = slice.channel().read(buf, pos + buf.position());
      if (n < 0) {
        break;
      }
    }
    buf.flip();
    return buf;
  }

  /**
   * Replays every record of the whole batches in {@code bytes} into {@code sink}; returns the
   * offset after the last whole batch, or {@code from} when there is none.
   */
  static long replay(
      ByteBuffer bytes, long from, Consumer<CoordinatorRecord> sink, String logPrefix) {
    long next = from;
    RecordCursor cursor = new RecordCursor();
    MemoryRecords.BatchIterator it = MemoryRecords.wrap(bytes).batchesWithoutCrcCheck();
    while (it.hasNext()) {
      RecordBatch batch = it.next();
      next = batch.nextOffset();
      if (batch.isControl()) {
        continue;
      }
      if (!batch.isValid()) {
        log.warn("{} skipping a corrupt batch at offset {}", logPrefix, batch.baseOffset());
        continue;
      }
      try {
        cursor.reset(batch);
        while (cursor.next()) {
          CoordinatorRecord r = GroupRecords.decode(cursor.key(), cursor.value());
          if (r != null) {
            sink.accept(r);
          }
        }
      } catch (RuntimeException e) {
        log.warn(
            "{} skipping records of the batch at offset {}: {}",
            logPrefix,
            batch.baseOffset(),
            e.getMessage());
      }
    }
    return next;
  }
}
