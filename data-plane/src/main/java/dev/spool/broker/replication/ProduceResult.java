package dev.spool.broker.replication;

import dev.spool.common.ErrorCode;

/**
 * The answer for one partition of a produce request. {@code baseOffset} is -1 on error; {@code
 * hint} is set with NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH. Immutable; any thread.
 */
public record ProduceResult(
    ErrorCode error,
    String message,
    long baseOffset,
    long logAppendTimeMs,
    long logStartOffset,
    LeaderHintInfo hint) {

  public static ProduceResult error(ErrorCode code, String message) {
    return new ProduceResult(code, message, -1L, -1L, -1L, null);
  }

  public static ProduceResult error(ErrorCode code, String message, LeaderHintInfo hint) {
    return new ProduceResult(code, message, -1L, -1L, -1L, hint);
  }
}
