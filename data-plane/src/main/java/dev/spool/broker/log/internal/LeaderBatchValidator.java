package dev.spool.broker.log.internal;

import dev.spool.broker.log.InvalidTimestampException;
import dev.spool.broker.log.LogConfig;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.InvalidRecordException;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordCursor;
import dev.spool.record.RecordTooLargeException;
import dev.spool.record.TimestampType;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The checks a leader makes on a produce request before anything is written: every batch complete,
 * magic 2, CRC valid, within {@code max.message.bytes}, a record count consistent with its last
 * offset delta, consecutive inner offsets, records that fill the batch exactly, and CreateTime
 * timestamps within the before/after bounds of {@code nowMs}, and a key on every record of a
 * compacted topic. Pure: no I/O, no clock (time comes in as {@code nowMs}); it remembers each
 * batch's real max timestamp for the caller.
 *
 * <p>Threads: owned by the partition's owner thread (it reuses its view and cursor).
 */
public final class LeaderBatchValidator {
  private final String logPrefix;
  private final RecordBatch view = new RecordBatch();
  private final RecordCursor cursor = new RecordCursor();
  private long[] batchMaxTimestamps = new long[16];

  public LeaderBatchValidator(String logPrefix) {
    this.logPrefix = logPrefix;
  }

  /** The real max record timestamp of batch {@code index} of the last validated request. */
  public long maxTimestampOf(int index) {
    return batchMaxTimestamps[index];
  }

  /** Checks every batch; returns how many. Records each batch's true max timestamp. */
  public int validateLeaderBatches(ByteBuffer batches, LogConfig cfg, long nowMs) {
    int start = batches.position();
    int count = 0;
    for (int pos = start; pos < batches.limit(); count++) {
      view.wrap(batches, pos);
      String problem = view.validationError();
      if (problem != null) {
        throw new CorruptRecordException(
            logPrefix + "batch " + count + ": " + problem, pos - start);
      }
      int size = view.sizeInBytes();
      if (size > cfg.maxMessageBytes()) {
        throw new RecordTooLargeException(
            logPrefix + "batch " + count, size, cfg.maxMessageBytes());
      }
      if (count == batchMaxTimestamps.length) {
        batchMaxTimestamps = Arrays.copyOf(batchMaxTimestamps, count * 2);
      }
      batchMaxTimestamps[count] = validateRecords(view, count, cfg, nowMs);
      pos += size;
    }
    return count;
  }

  /** Record-level checks of one batch; returns its real max timestamp. */
  private long validateRecords(RecordBatch batch, int index, LogConfig cfg, long nowMs) {
    int declared = batch.recordsCount();
    if (declared == 0) {
      throw new InvalidRecordException(logPrefix + "batch " + index + " has no records");
    }
    if (batch.lastOffsetDelta() != declared - 1) {
      throw new InvalidRecordException(
          logPrefix
              + "batch "
              + index
              + " declares "
              + declared
              + " records but a last offset delta of "
              + batch.lastOffsetDelta());
    }
    if (batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
      // Only the broker stamps LogAppendTime; trusting the bit would hide the record timestamps
      // from the CreateTime checks below.
      throw new InvalidRecordException(
          logPrefix
              + "batch "
              + index
              + " claims LogAppendTime; producers send CreateTime batches");
    }
    boolean checkTimestamps = cfg.timestampType() == TimestampType.CREATE_TIME;
    if (batch.isCompressed()) {
      // Records are opaque; the batch timestamps are what can be checked.
      if (checkTimestamps) {
        checkTimestamp(batch.maxTimestamp(), index, cfg, nowMs);
        checkTimestamp(batch.baseTimestamp(), index, cfg, nowMs);
      }
      return batch.maxTimestamp();
    }
    boolean compacted = cfg.cleanup().compact();
    long max = RecordBatch.NO_TIMESTAMP;
    cursor.reset(batch);
    int n = 0;
    try {
      while (cursor.next()) {
        if (cursor.offset() - batch.baseOffset() != n) {
          throw new InvalidRecordException(
              logPrefix
                  + "batch "
                  + index
                  + " record "
                  + n
                  + " has offset delta "
                  + (cursor.offset() - batch.baseOffset())
                  + ", expected "
                  + n);
        }
        if (checkTimestamps) {
          checkTimestamp(cursor.timestamp(), index, cfg, nowMs);
        }
        if (compacted && cursor.keyLength() < 0) {
          throw keyless(index, n);
        }
        max = Math.max(max, cursor.timestamp());
        n++;
      }
    } catch (CorruptRecordException e) {
      throw new CorruptRecordException(logPrefix + "batch " + index + ": " + e.getMessage(), -1);
    }
    if (!cursor.consumedExactly()) {
      throw new InvalidRecordException(
          logPrefix
              + "batch "
              + index
              + " declares "
              + declared
              + " records but its records leave "
              + cursor.remainingBytes()
              + " bytes unread");
    }
    return max;
  }

  /**
   * Kafka refuses a record without a key in a compacted topic: the cleaner could only drop it, so
   * accepting it would acknowledge a write that is later lost for no reason the producer sees.
   */
  private InvalidRecordException keyless(int index, int record) {
    return new InvalidRecordException(
        logPrefix
            + "batch "
            + index
            + " record "
            + record
            + " has no key; the topic is compacted (cleanup.policy has compact), which needs a"
            + " key on every record");
  }

  private void checkTimestamp(long ts, int index, LogConfig cfg, long nowMs) {
    boolean ok;
    if (ts >= nowMs) {
      ok = ts - nowMs <= cfg.timestampAfterMaxMs();
    } else {
      long behind = nowMs - ts;
      ok = behind >= 0 && behind <= cfg.timestampBeforeMaxMs(); // behind < 0: overflow, far past
    }
    if (!ok) {
      throw new InvalidTimestampException(
          logPrefix
              + "batch "
              + index
              + " has timestamp "
              + ts
              + " outside [now - "
              + cfg.timestampBeforeMaxMs()
              + " ms, now + "
              + cfg.timestampAfterMaxMs()
              + " ms] with now = "
              + nowMs);
    }
  }
}
