package dev.spool.client;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;

/**
 * The controller's answer for one partition of {@link Admin#alterPartitionReassignments}: NONE (the
 * move, or the cancel, was accepted) or why it was refused, changing nothing for that partition:
 * UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT (an empty target, a repeated, unregistered
 * or fenced broker, or a cancel that would need an unclean election), NO_REASSIGNMENT_IN_PROGRESS
 * (a cancel of a partition that is not moving). Immutable.
 *
 * @param message the controller's explanation, empty with NONE
 */
public record ReassignmentResult(TopicPartition partition, ErrorCode error, String message) {
  /** True when the controller accepted the change for this partition. */
  public boolean succeeded() {
    return error == ErrorCode.NONE;
  }
}
