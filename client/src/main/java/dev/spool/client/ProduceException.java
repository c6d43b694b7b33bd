package dev.spool.client;

import dev.spool.common.SpoolException;

/**
 * Why a record sent with {@link Producer#send} failed, and whether it may be in the log anyway.
 *
 * <p>{@link #mayHaveBeenAppended()} is false only when no attempt of the record's batch can have
 * been appended by any broker: the record was refused before it was sent, or every attempt that
 * left the client got an answer that the broker gives only before appending (for example
 * NOT_ENOUGH_REPLICAS, FENCED_LEADER_EPOCH, CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, or
 * NOT_LEADER_OR_FOLLOWER with acks other than all). It is true when any attempt timed out, lost its
 * connection, was still unanswered when the batch failed, or got an answer a broker may give after
 * appending (REQUEST_TIMED_OUT; NOT_LEADER_OR_FOLLOWER with acks=all, which a leader returns to
 * produces waiting for replication when it loses leadership; STORAGE_ERROR; unknown errors). Such a
 * record may still be read later. Kafka's producer does not expose this; tests that classify
 * outcomes (a Jepsen-style history) need it.
 */
public final class ProduceException extends SpoolException {
  private final boolean mayHaveBeenAppended;

  /** The same code and message as {@code cause}, which becomes the cause. */
  public ProduceException(SpoolException cause, boolean mayHaveBeenAppended) {
    super(cause);
    this.mayHaveBeenAppended = mayHaveBeenAppended;
  }

  /** False only if the record is certainly not in any log and never will be. */
  public boolean mayHaveBeenAppended() {
    return mayHaveBeenAppended;
  }
}
