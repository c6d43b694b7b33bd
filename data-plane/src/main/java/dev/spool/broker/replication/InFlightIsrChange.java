package dev.spool.broker.replication;

import dev.spool.common.ErrorCode;
import java.util.Optional;

/**
 * A partition leader's one ISR change at the quorum (AlterPartition): what was sent, whether an
 * answer is still awaited, when the next proposal or resend may go, and what a failed answer means.
 *
 * <p>A change whose outcome is unknown stays pending: an answer lost after the quorum committed the
 * change would otherwise let the leader forget an expansion the quorum already made, so the {@link
 * LeaderState} keeps counting the maximal ISR until metadata brings a newer partition state or a
 * resend gets a definite answer. Only INELIGIBLE_REPLICA and INVALID_REQUEST prove that nothing was
 * committed; they drop the change. Every other failure keeps it and waits before a resend: one
 * retry backoff after a transport failure (the quorum was unreachable or electing), twenty after an
 * answer that refused it on other grounds (the metadata the leader holds is probably stale and will
 * soon be replaced).
 *
 * <p>Threads: owned by the partition's owner thread, like the {@link Partition} that holds it;
 * nothing here locks.
 */
final class InFlightIsrChange {
  /** What a failed answer did to the change. */
  enum Failure {
    /** The answer is for a change that is no longer pending: nothing to do. */
    STALE,
    /** The quorum certainly did not commit it: dropped, a new proposal may follow the backoff. */
    REFUSED,
    /** Its outcome is unknown: it stays pending and is resent after the backoff. */
    UNCONFIRMED
  }

  /** A refusal on other grounds waits this many backoffs before the resend. */
  static final int UNCONFIRMED_BACKOFF_FACTOR = 20;

  private final long retryBackoffMs;
  private IsrChange change;
  private boolean awaitingAnswer;
  private long nextProposalMs;

  InFlightIsrChange(long retryBackoffMs) {
    this.retryBackoffMs = retryBackoffMs;
  }

  /** A new leadership: nothing in flight, and a proposal may go at once. */
  void reset() {
    change = null;
    awaitingAnswer = false;
    nextProposalMs = 0;
  }

  /** The change sent last and not yet settled, or null. */
  IsrChange change() {
    return change;
  }

  /** Whether the backoff after a failed change is over, so a new change may be proposed. */
  boolean mayPropose(long nowMs) {
    return nowMs >= nextProposalMs;
  }

  /** {@code next} is being sent (the leader marked it pending in its {@link LeaderState}). */
  void sent(IsrChange next) {
    change = next;
    awaitingAnswer = true;
  }

  /**
   * The change to send again, when its answer was lost or inconclusive, the backoff is over and the
   * leader still holds it pending in the partition epoch it was proposed in; it counts as sent.
   */
  Optional<IsrChange> resendDue(long nowMs, LeaderState leader) {
    if (change != null
        && !awaitingAnswer
        && nowMs >= nextProposalMs
        && leader.pendingIsr().isPresent()
        && change.partitionEpoch() == leader.partitionEpoch()) {
      awaitingAnswer = true;
      return Optional.of(change);
    }
    return Optional.empty();
  }

  /** An answer to {@code sent} arrived (whatever it says). */
  void answered(IsrChange sent) {
    if (sent == change) {
      awaitingAnswer = false;
    }
  }

  /**
   * The quorum committed a partition state in this leadership (an answer or metadata): once the
   * leader holds nothing pending, nothing is in flight any more.
   */
  void committed(LeaderState leader) {
    if (leader.pendingIsr().isEmpty()) {
      change = null;
      awaitingAnswer = false;
    }
  }

  /** The quorum answered {@code sent} with {@code error} (not NONE) at {@code nowMs}. */
  Failure failed(IsrChange sent, ErrorCode error, LeaderState leader, long nowMs) {
    boolean current =
        leader.pendingIsr().isPresent() && sent.partitionEpoch() == leader.partitionEpoch();
    if (!current) {
      return Failure.STALE;
    }
    if (error == ErrorCode.INELIGIBLE_REPLICA || error == ErrorCode.INVALID_REQUEST) {
      leader.onIsrChangeFailed();
      change = null;
      nextProposalMs = nowMs + retryBackoffMs;
      return Failure.REFUSED;
    }
    boolean transport =
        error == ErrorCode.QUORUM_UNAVAILABLE
            || error == ErrorCode.NOT_CONTROLLER
            || error == ErrorCode.REQUEST_TIMED_OUT
            || error == ErrorCode.UNKNOWN_SERVER_ERROR;
    nextProposalMs = nowMs + retryBackoffMs * (transport ? 1 : UNCONFIRMED_BACKOFF_FACTOR);
    return Failure.UNCONFIRMED;
  }
}
