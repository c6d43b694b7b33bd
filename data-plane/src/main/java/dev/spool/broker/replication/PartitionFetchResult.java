package dev.spool.broker.replication;

import dev.spool.broker.log.FileSlice;
import dev.spool.common.ErrorCode;

/**
 * The leader's answer for one partition of a fetch: an error or whole batches as a file slice, the
 * offsets a fetcher needs, and the diverging epoch when its log diverged. {@code slice} is null
 * when nothing is returned. Immutable; any thread.
 */
public record PartitionFetchResult(
    ErrorCode error,
    String message,
    long highWatermark,
    long logStartOffset,
    long logEndOffset,
    EpochEndOffset divergingEpoch,
    FileSlice slice,
    LeaderHintInfo hint) {

  public static PartitionFetchResult error(ErrorCode code, String message, LeaderHintInfo hint) {
    return new PartitionFetchResult(code, message, -1L, -1L, -1L, null, null, hint);
  }

  /** This answer without its records (a throttled partition's, while the throttle is in debt). */
  public PartitionFetchResult withoutRecords() {
    return slice == null
        ? this
        : new PartitionFetchResult(
            error,
            message,
            highWatermark,
            logStartOffset,
            logEndOffset,
            divergingEpoch,
            null,
            hint);
  }

  public int sizeInBytes() {
    return slice == null ? 0 : slice.sizeInBytes();
  }
}
