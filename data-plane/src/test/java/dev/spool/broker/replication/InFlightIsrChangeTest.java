package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A leader's one ISR change at the quorum: proposals, resends, and what a failure means. */
@Tag("unit")
class InFlightIsrChangeTest {
  private static final long BACKOFF_MS = 100;

  private final InFlightIsrChange inFlight = new InFlightIsrChange(BACKOFF_MS);
  private final LeaderState leader =
      new LeaderState(1, List.of(1, 2, 3), Set.of(1, 2, 3), 4, 7, 0, 0, 0);

  /** Proposes removing broker 3, as the partition does: pending in the leader state, then sent. */
  private IsrChange propose() {
    leader.markPending(Set.of(1, 2));
    IsrChange c = new IsrChange("t", "id", 0, 4, leader.partitionEpoch(), List.of(1, 2));
    inFlight.sent(c);
    return c;
  }

  @Test
  void shouldNotResendWhileAnAnswerIsAwaited() {
    IsrChange c = propose();
    assertEquals(Optional.empty(), inFlight.resendDue(1_000_000, leader));
    inFlight.answered(c);
    assertEquals(Optional.of(c), inFlight.resendDue(1_000_000, leader));
    assertEquals(
        Optional.empty(), inFlight.resendDue(1_000_000, leader), "a resend is awaited again");
  }

  @Test
  void shouldDropARefusedChangeAndWaitOneBackoffBeforeTheNextProposal() {
    IsrChange c = propose();
    inFlight.answered(c);
    assertSame(
        InFlightIsrChange.Failure.REFUSED,
        inFlight.failed(c, ErrorCode.INELIGIBLE_REPLICA, leader, 1_000));
    assertTrue(leader.pendingIsr().isEmpty(), "the leader no longer counts the proposed ISR");
    assertNull(inFlight.change());
    assertFalse(inFlight.mayPropose(1_000 + BACKOFF_MS - 1));
    assertTrue(inFlight.mayPropose(1_000 + BACKOFF_MS));
    assertEquals(Optional.empty(), inFlight.resendDue(1_000_000, leader));
  }

  @Test
  void shouldKeepAnUnconfirmedChangePendingAndResendItAfterOneBackoffOnATransportFailure() {
    IsrChange c = propose();
    inFlight.answered(c);
    assertSame(
        InFlightIsrChange.Failure.UNCONFIRMED,
        inFlight.failed(c, ErrorCode.QUORUM_UNAVAILABLE, leader, 1_000));
    assertEquals(Optional.of(Set.of(1, 2)), leader.pendingIsr());
    assertEquals(Optional.empty(), inFlight.resendDue(1_000 + BACKOFF_MS - 1, leader));
    assertEquals(Optional.of(c), inFlight.resendDue(1_000 + BACKOFF_MS, leader));
  }

  @Test
  void shouldWaitLongerBeforeResendingAChangeRefusedOnOtherGrounds() {
    IsrChange c = propose();
    inFlight.answered(c);
    assertSame(
        InFlightIsrChange.Failure.UNCONFIRMED,
        inFlight.failed(c, ErrorCode.FENCED_LEADER_EPOCH, leader, 1_000));
    long wait = BACKOFF_MS * InFlightIsrChange.UNCONFIRMED_BACKOFF_FACTOR;
    assertEquals(Optional.empty(), inFlight.resendDue(1_000 + wait - 1, leader));
    assertEquals(Optional.of(c), inFlight.resendDue(1_000 + wait, leader));
  }

  @Test
  void shouldIgnoreAFailureForAChangeNoLongerPending() {
    IsrChange c = propose();
    inFlight.answered(c);
    leader.onIsrCommitted(Set.of(1, 2), 8);
    assertSame(
        InFlightIsrChange.Failure.STALE,
        inFlight.failed(c, ErrorCode.INELIGIBLE_REPLICA, leader, 1_000));
    assertTrue(inFlight.mayPropose(1_000), "a stale answer sets no backoff");
  }

  @Test
  void shouldNotResendAChangeProposedInAnOlderPartitionEpoch() {
    IsrChange c = propose();
    inFlight.answered(c);
    leader.onIsrCommitted(Set.of(1, 2, 3), 8);
    leader.markPending(Set.of(1, 3));
    assertEquals(Optional.empty(), inFlight.resendDue(1_000_000, leader));
  }

  @Test
  void shouldSettleOnceTheQuorumCommitsAPartitionState() {
    propose();
    leader.onIsrCommitted(Set.of(1, 2), 8);
    inFlight.committed(leader);
    assertNull(inFlight.change());
  }

  @Test
  void shouldKeepTheChangeWhenACommittedStateLeavesAnotherPending() {
    IsrChange c = propose();
    inFlight.committed(leader);
    assertSame(c, inFlight.change(), "the leader still holds a pending ISR");
  }

  @Test
  void shouldAllowAProposalAtOnceInANewLeadership() {
    IsrChange c = propose();
    inFlight.answered(c);
    inFlight.failed(c, ErrorCode.INELIGIBLE_REPLICA, leader, 1_000);
    inFlight.reset();
    assertTrue(inFlight.mayPropose(0));
    assertNull(inFlight.change());
  }
}
