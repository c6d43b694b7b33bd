package dev.spool.broker.log.internal;

import dev.spool.broker.log.InvalidOffsetException;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordTooLargeException;
import java.nio.ByteBuffer;

/**
 * The checks a follower makes on batches its leader sent, before appending any: each batch intact
 * (size, magic, CRC) and within {@code max.message.bytes}, the first starting at or after the log
 * end offset and each at or after the previous one's next offset. Offsets may jump (the leader's
 * log is compacted, or the follower's range was cleaned away there) but never go back.
 *
 * <p>Threads: the partition's owner thread; it reuses the caller's view.
 */
public final class FollowerBatches {
  private FollowerBatches() {}

  /** What the checked batches hold. */
  public record Summary(int batches, long nextOffset, long maxTimestamp, int records) {}

  /** Checks {@code batches} (position to limit) for a log ending at {@code logEndOffset}. */
  public static Summary check(
      ByteBuffer batches, long logEndOffset, int maxMessageBytes, RecordBatch view, String prefix) {
    int start = batches.position();
    long next = logEndOffset;
    long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    int records = 0;
    int count = 0;
    for (int pos = start; pos < batches.limit(); pos += view.sizeInBytes(), count++) {
      view.wrap(batches, pos);
      String problem = view.validationError();
      if (problem != null) {
        throw new CorruptRecordException(prefix + "batch " + count + ": " + problem, pos - start);
      }
      if (view.sizeInBytes() > maxMessageBytes) {
        throw new RecordTooLargeException(
            prefix + "batch " + count, view.sizeInBytes(), maxMessageBytes);
      }
      if (view.baseOffset() < next) {
        throw new InvalidOffsetException(
            prefix
                + "follower append overlap: batch "
                + count
                + " starts at offset "
                + view.baseOffset()
                + ", below "
                + next
                + (count == 0 ? " (the log end offset)" : " (after the previous batch)"));
      }
      next = view.nextOffset();
      maxTimestamp = Math.max(maxTimestamp, view.maxTimestamp());
      records += view.recordsCount();
    }
    return new Summary(count, next, maxTimestamp, records);
  }
}
