package dev.spool.broker.replication;

import dev.spool.broker.log.PartitionLog;
import dev.spool.broker.log.TimestampAndOffset;
import dev.spool.common.ErrorCode;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A leader's answer to ListOffsets once {@link Partition} has checked that it may answer: -2 the
 * log start, -1 the end (the high watermark for consumers, the log end for replicas), else the
 * first offset with a timestamp at or after the given one, found only below that end. Owner thread
 * (it reads the log's indexes).
 */
final class OffsetLookup {
  private OffsetLookup() {}

  static ListOffsetResult lookup(PartitionLog log, long timestamp, boolean consumer) {
    long bound = consumer ? log.highWatermark() : log.logEndOffset();
    if (timestamp == -2L) {
      long start = log.logStartOffset();
      return new ListOffsetResult(ErrorCode.NONE, "", -1, start, epochAt(log, start), null);
    }
    if (timestamp == -1L) {
      return new ListOffsetResult(ErrorCode.NONE, "", -1, bound, epochAt(log, bound - 1), null);
    }
    if (timestamp < 0) {
      return new ListOffsetResult(
          ErrorCode.INVALID_REQUEST,
          "timestamp " + timestamp + " is neither -1 (latest), -2 (earliest) nor a time",
          -1,
          -1,
          -1,
          null);
    }
    Optional<TimestampAndOffset> found = log.offsetForTimestamp(timestamp);
    if (found.isEmpty() || found.get().offset() >= bound) {
      return new ListOffsetResult(ErrorCode.NONE, "", -1, -1, -1, null);
    }
    TimestampAndOffset t = found.get();
    return new ListOffsetResult(
        ErrorCode.NONE, "", t.timestampMs(), t.offset(), t.leaderEpoch(), null);
  }

  private static int epochAt(PartitionLog log, long offset) {
    OptionalInt e = log.leaderEpochCache().epochForOffset(Math.max(offset, 0));
    return e.isPresent() ? e.getAsInt() : -1;
  }
}
