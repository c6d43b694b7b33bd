package dev.spool.client;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;

/**
 * The outcome of a leader election for one partition: NONE (elected), ELECTION_NOT_NEEDED (the
 * wanted leader already leads), or why it failed (PREFERRED_LEADER_NOT_AVAILABLE,
 * ELIGIBLE_LEADERS_NOT_AVAILABLE, ...).
 */
public record ElectionResult(TopicPartition partition, ErrorCode error, String message) {
  /** True when the partition now has the wanted leader (elected, or it already had it). */
  public boolean succeeded() {
    return error == ErrorCode.NONE || error == ErrorCode.ELECTION_NOT_NEEDED;
  }
}
