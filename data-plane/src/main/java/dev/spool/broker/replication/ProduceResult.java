package dev.spool.broker.replication;

import dev.spool.common.ErrorCode;

/**
 * The answer for one partition of a produce request. {@code baseOffset} is -1 on error; {@code
 * hint} is set with NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH. {@code appendedRecords} and
 * {@code appendedBytes} are what this produce added to the log (0 on error and for a duplicate),
 * for the broker's metrics. Immutable; any thread.
 */
public record ProduceResult(
    ErrorCode error,
    String message,
    long baseOffset,
    long logAppendTimeMs,
    long logStartOffset,
    LeaderHintInfo hint,
    int appendedRecords,
    int appendedBytes) {

  public static ProduceResult error(ErrorCode code, String message) {
    return new ProduceResult(code, message, -1L, -1L, -1L, null, 0, 0);
  }

  public static ProduceResult error(ErrorCode code, String message, LeaderHintInfo hint) {
    return new ProduceResult(code, message, -1L, -1L, -1L, hint, 0, 0);
  }
}
