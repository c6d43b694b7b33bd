package dev.spool.coordinator.group.api;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.Set;

/**
 * The answer to a heartbeat: the member's id and epoch, how often to heartbeat, and its assignment
 * at that epoch (the partitions it may consume; anything it owns outside it must be revoked).
 * {@code assignment} is null on errors.
 */
public record HeartbeatResult(
    ErrorCode error,
    String message,
    String memberId,
    int memberEpoch,
    int heartbeatIntervalMs,
    Set<TopicPartition> assignment) {

  public static HeartbeatResult error(ErrorCode code, String message) {
    return new HeartbeatResult(code, message, "", -1, 0, null);
  }
}
