package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LeaderStateTest {
  static final long LAG_MS = 10_000;
  static final long SILENT_MS = 2_000;

  LeaderState leader(long hw, long nowMs) {
    return new LeaderState(1, List.of(1, 2, 3), Set.of(1, 2, 3), 5, 10, 100, hw, nowMs);
  }

  @Test
  void shouldHoldTheHighWatermarkUntilEveryIsrMemberHasFetched() {
    LeaderState s = leader(100, 0);
    assertEquals(100, s.maybeAdvanceHighWatermark(150));
    assertEquals(100, s.onFollowerFetch(2, 7, 150, 150, 1));
    assertEquals(120, s.onFollowerFetch(3, 7, 120, 150, 1));
    assertEquals(150, s.onFollowerFetch(3, 7, 150, 150, 2));
  }

  @Test
  void shouldNeverMoveTheHighWatermarkBackwards() {
    LeaderState s = leader(100, 0);
    s.onFollowerFetch(2, 7, 140, 150, 1);
    s.onFollowerFetch(3, 7, 140, 150, 1);
    assertEquals(140, s.highWatermark());
    // a restarted follower fetching from an older offset does not lower it
    assertEquals(140, s.onFollowerFetch(3, 8, 110, 150, 2));
  }

  @Test
  void shouldUseTheLargerIsrWhileAShrinkIsPending() {
    LeaderState s = leader(100, 0);
    s.onFollowerFetch(2, 7, 150, 150, 1);
    s.onFollowerFetch(3, 7, 120, 150, 1);
    s.markPending(Set.of(1, 2));
    assertEquals(
        120, s.maybeAdvanceHighWatermark(150), "3 still counts while the shrink is pending");
    assertTrue(s.onIsrCommitted(Set.of(1, 2), 11));
    assertEquals(150, s.maybeAdvanceHighWatermark(150));
  }

  @Test
  void shouldCountAnExpansionAtOnce() {
    LeaderState s = new LeaderState(1, List.of(1, 2, 3), Set.of(1, 2), 5, 10, 100, 100, 0);
    s.onFollowerFetch(2, 7, 150, 150, 1);
    assertEquals(150, s.highWatermark());
    s.onFollowerFetch(3, 7, 150, 160, 2);
    Optional<Set<Integer>> expand = s.proposeExpand(3);
    assertEquals(Optional.of(Set.of(1, 2, 3)), expand);
    s.markPending(expand.get());
    s.onFollowerFetch(2, 7, 160, 160, 3);
    assertEquals(150, s.maybeAdvanceHighWatermark(160), "the new member counts at once");
  }

  @Test
  void shouldNotExpandAFollowerBelowTheHighWatermarkOrTheEpochStart() {
    LeaderState s = new LeaderState(1, List.of(1, 2, 3), Set.of(1, 2), 5, 10, 100, 100, 0);
    s.onFollowerFetch(3, 7, 90, 150, 1);
    assertEquals(Optional.empty(), s.proposeExpand(3), "below both");
    s.onFollowerFetch(2, 7, 150, 150, 1);
    s.onFollowerFetch(3, 7, 120, 150, 2);
    assertEquals(Optional.empty(), s.proposeExpand(3), "below the high watermark 150");
  }

  @Test
  void shouldShrinkOnlyAfterTheLagTime() {
    LeaderState s = leader(100, 0);
    s.onFollowerFetch(2, 7, 150, 150, 1_000);
    s.onFollowerFetch(3, 7, 150, 150, 1_000);
    // 3 stops fetching; 2 keeps up
    s.onFollowerFetch(2, 7, 200, 200, LAG_MS);
    assertEquals(Optional.empty(), s.proposeShrink(1_000 + LAG_MS, LAG_MS));
    s.onFollowerFetch(2, 7, 200, 200, 1_000 + LAG_MS + 1);
    assertEquals(Optional.of(Set.of(1, 2)), s.proposeShrink(1_000 + LAG_MS + 1, LAG_MS));
  }

  @Test
  void shouldCountAFollowerCaughtUpWhenItReachesThePreviousFetchsLogEnd() {
    LeaderState s = leader(100, 0);
    s.onFollowerFetch(2, 7, 150, 160, 1_000); // behind, leader at 160
    s.onFollowerFetch(2, 7, 160, 180, 5_000); // reached 160: caught up as of t=1000
    s.onFollowerFetch(3, 7, 180, 180, 5_000);
    assertEquals(Set.of(2), s.outOfSyncReplicas(1_000 + LAG_MS + 1, LAG_MS));
    assertEquals(Set.of(), s.outOfSyncReplicas(1_000 + LAG_MS, LAG_MS));
  }

  @Test
  void shouldGiveIsrMembersAFullLagWindowAfterBecomingLeader() {
    LeaderState s = leader(100, 50_000);
    assertEquals(Set.of(), s.outOfSyncReplicas(50_000 + LAG_MS, LAG_MS));
    assertEquals(Set.of(2, 3), s.outOfSyncReplicas(50_000 + LAG_MS + 1, LAG_MS));
  }

  @Test
  void shouldAllowOneIsrChangeAtATime() {
    LeaderState s = leader(100, 0);
    s.markPending(Set.of(1, 2));
    assertThrows(IllegalStateException.class, () -> s.markPending(Set.of(1)));
    assertEquals(Optional.empty(), s.proposeShrink(LAG_MS * 10, LAG_MS));
    s.onIsrChangeFailed();
    assertTrue(s.proposeShrink(LAG_MS * 10, LAG_MS).isPresent());
  }

  @Test
  void shouldIgnoreAnIsrUpdateThatIsNotNewer() {
    LeaderState s = leader(100, 0);
    assertFalse(s.onIsrCommitted(Set.of(1), 10));
    assertEquals(Set.of(1, 2, 3), s.isr());
    assertTrue(s.onIsrCommitted(Set.of(1, 3), 12));
    assertEquals(Set.of(1, 3), s.isr());
    assertEquals(12, s.partitionEpoch());
  }

  @Test
  void shouldRequireMinIsrOnTheCommittedIsr() {
    LeaderState s = leader(100, 0);
    assertTrue(s.hasMinIsr(2));
    s.markPending(Set.of(1));
    assertTrue(s.hasMinIsr(2), "a pending shrink does not count yet");
    s.onIsrCommitted(Set.of(1), 11);
    assertFalse(s.hasMinIsr(2));
  }

  @Test
  void shouldRefuseALeaderOutsideItsIsr() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new LeaderState(1, List.of(1, 2), Set.of(2), 1, 1, 0, 0, 0));
  }

  /** A reassignment adds replica 4 and, once it is in sync, drops 3 (same leader epoch). */
  @Test
  void shouldTakeReplicasAddedAndDroppedInItsEpoch() {
    LeaderState s = leader(100, 0);
    s.onFollowerFetch(2, 7, 150, 150, 1);
    s.onFollowerFetch(3, 7, 150, 150, 1);
    assertThrows(IllegalArgumentException.class, () -> s.onFollowerFetch(4, 7, 0, 150, 1));

    s.onReplicasChanged(List.of(4, 2, 3, 1));
    assertTrue(s.isReplica(4));
    assertEquals(Optional.empty(), s.proposeExpand(4), "it has not fetched yet");
    assertEquals(150, s.onFollowerFetch(4, 7, 40, 150, 2), "outside the ISR it holds nothing back");
    assertEquals(Set.of(), s.outOfSyncReplicas(3, LAG_MS), "a new replica is not an ISR member");
    s.onFollowerFetch(4, 7, 150, 150, 3);
    assertEquals(Optional.of(Set.of(1, 2, 3, 4)), s.proposeExpand(4));

    s.onReplicasChanged(List.of(4, 2, 1));
    assertTrue(s.onIsrCommitted(Set.of(1, 2, 4), 12));
    assertFalse(s.isReplica(3));
    assertEquals(List.of(4, 2, 1), s.replicas());
    assertThrows(IllegalArgumentException.class, () -> s.onFollowerFetch(3, 7, 150, 150, 4));
    assertThrows(
        IllegalArgumentException.class,
        () -> s.onReplicasChanged(List.of(4, 2)),
        "the leader cannot be dropped while it leads");
  }

  @Test
  void shouldDropAFollowerThatStoppedFetchingLongBeforeTheLagTime() {
    LeaderState s = leader(100, 0);
    s.onFollowerFetch(2, 7, 150, 150, 1_000);
    s.onFollowerFetch(3, 7, 150, 150, 1_000);
    // 3 is cut off; 2 fetches on, caught up
    for (long t = 1_500; t <= 1_000 + SILENT_MS + 1; t += 500) {
      s.onFollowerFetch(2, 7, 150, 150, t);
    }
    s.onFollowerFetch(2, 7, 150, 150, 1_000 + SILENT_MS + 1);
    assertEquals(Optional.empty(), s.proposeShrink(1_000 + SILENT_MS, LAG_MS, SILENT_MS, 2));
    assertEquals(Set.of(3), s.silentReplicas(1_000 + SILENT_MS + 1, SILENT_MS));
    assertEquals(
        Optional.of(Set.of(1, 2)), s.proposeShrink(1_000 + SILENT_MS + 1, LAG_MS, SILENT_MS, 2));
    assertEquals(
        Optional.empty(),
        s.proposeShrink(1_000 + SILENT_MS + 1, LAG_MS),
        "the lag rule alone waits replica.lag.time.max.ms");
  }

  @Test
  void shouldKeepSilentFollowersWhenTheIsrWouldFallBelowMinIsr() {
    LeaderState s = leader(100, 0);
    s.onFollowerFetch(2, 7, 150, 150, 1_000);
    s.onFollowerFetch(3, 7, 150, 150, 1_000);
    long later = 1_000 + SILENT_MS + 1;
    assertEquals(Set.of(2, 3), s.silentReplicas(later, SILENT_MS));
    assertEquals(
        Optional.empty(),
        s.proposeShrink(later, LAG_MS, SILENT_MS, 2),
        "the leader alone could not take acks=all, and the controller could elect no other");
    assertEquals(
        Optional.empty(),
        s.proposeShrink(later, LAG_MS, SILENT_MS, 1),
        "every follower silent: the leader is the one cut off, and the controller moves it");
    assertEquals(
        Optional.of(Set.of(1)),
        s.proposeShrink(1_000 + LAG_MS + 1, LAG_MS, SILENT_MS, 2),
        "the lag rule still drops them");
  }

  @Test
  void shouldNotDropASlowFollowerThatStillFetches() {
    LeaderState s = leader(100, 0);
    // 2 fetches every 500 ms but never reaches the leader's log end: lagging, not silent
    long leo = 200;
    for (long t = 500; t <= 9_500; t += 500) {
      s.onFollowerFetch(2, 7, leo - 50, leo, t);
      s.onFollowerFetch(3, 7, leo, leo, t);
      leo += 100;
      assertEquals(Optional.empty(), s.proposeShrink(t, LAG_MS, SILENT_MS, 2), "at " + t);
    }
  }

  @Test
  void shouldCountSilenceFromTheStartOfTheLeadership() {
    LeaderState s = leader(100, 50_000);
    assertEquals(Set.of(), s.silentReplicas(50_000 + SILENT_MS, SILENT_MS));
    assertEquals(Set.of(2, 3), s.silentReplicas(50_000 + SILENT_MS + 1, SILENT_MS));
  }

  @Test
  void shouldCountSilenceAgainAfterTheLeaderItselfStoodStill() {
    LeaderState s = leader(100, 0);
    s.onFollowerFetch(2, 7, 150, 150, 100);
    s.onFollowerFetch(3, 7, 150, 150, 100);
    for (long t = 100; t <= 1_000; t += 100) {
      s.observeTick(t, SILENT_MS / 2);
    }
    // the leader was paused for 5 s: its followers' fetches of that time are still queued
    s.observeTick(6_000, SILENT_MS / 2);
    s.onFollowerFetch(2, 7, 150, 150, 6_050);
    assertEquals(Set.of(), s.silentReplicas(6_000 + SILENT_MS, SILENT_MS));
    assertEquals(Optional.empty(), s.proposeShrink(6_000 + SILENT_MS, LAG_MS, SILENT_MS, 2));
    assertEquals(Set.of(3), s.silentReplicas(6_000 + SILENT_MS + 1, SILENT_MS));
    // regular ticks are no stall
    LeaderState steady = leader(100, 0);
    for (long t = 100; t <= 3_000; t += 100) {
      steady.observeTick(t, SILENT_MS / 2);
    }
    assertEquals(Set.of(2, 3), steady.silentReplicas(3_000, SILENT_MS));
  }

  /**
   * No ISR change for faults shorter than the silence: follower 3 paused one second in three
   * (SIGSTOP), then its link cut and healed every other second, for 30 s each; 2 fetches steadily.
   */
  @Test
  void shouldNotDropAFollowerPausedOrFlappingForLessThanTheSilentTime() {
    LeaderState s = leader(100, 0);
    for (long t = 0; t <= 60_000; t += 100) {
      boolean paused = t < 30_000 ? (t / 1_000) % 3 == 2 : (t / 1_000) % 2 == 1;
      s.onFollowerFetch(2, 7, 150, 150, t);
      if (!paused) {
        s.onFollowerFetch(3, 7, 150, 150, t);
      }
      s.observeTick(t, SILENT_MS / 2);
      assertEquals(Optional.empty(), s.proposeShrink(t, LAG_MS, SILENT_MS, 2), "at " + t);
    }
  }
}
