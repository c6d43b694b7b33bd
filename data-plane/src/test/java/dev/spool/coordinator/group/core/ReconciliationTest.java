package dev.spool.coordinator.group.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ReconciliationTest {
  private static final TopicPartition A = new TopicPartition("t", 0);
  private static final TopicPartition B = new TopicPartition("t", 1);
  private static final TopicPartition C = new TopicPartition("t", 2);

  private static GroupMember member(
      int epoch, MemberState state, Set<TopicPartition> assigned, Set<TopicPartition> pending) {
    return GroupMember.placeholder("m")
        .withMetadata("", "", "", "", List.of("t"), "", 1000, "")
        .withAssignment(epoch, epoch - 1, state, assigned, pending);
  }

  @Test
  void shouldRevokeFirstAndKeepTheEpoch() {
    GroupMember m = member(3, MemberState.STABLE, Set.of(A, B), Set.of());
    GroupMember next =
        Reconciliation.reconcile(m, 4, Set.of(A, C), Set.of(A, B), tp -> false, t -> true);
    assertEquals(MemberState.UNREVOKED_PARTITIONS, next.state());
    assertEquals(3, next.memberEpoch());
    assertEquals(Set.of(A), next.assigned());
    assertEquals(Set.of(B), next.pendingRevocation());
    // Still owns B: nothing moves.
    assertEquals(
        next,
        Reconciliation.reconcile(next, 4, Set.of(A, C), Set.of(A, B), tp -> false, t -> true));
    // B revoked: the member reaches epoch 4 and gets C.
    GroupMember done =
        Reconciliation.reconcile(next, 4, Set.of(A, C), Set.of(A), tp -> false, t -> true);
    assertEquals(MemberState.STABLE, done.state());
    assertEquals(4, done.memberEpoch());
    assertEquals(Set.of(A, C), done.assigned());
  }

  @Test
  void shouldWaitForPartitionsAnotherMemberStillOwns() {
    GroupMember m = member(3, MemberState.STABLE, Set.of(A), Set.of());
    GroupMember next =
        Reconciliation.reconcile(m, 4, Set.of(A, B), Set.of(A), tp -> tp.equals(B), t -> true);
    assertEquals(MemberState.UNRELEASED_PARTITIONS, next.state());
    assertEquals(4, next.memberEpoch());
    assertEquals(Set.of(A), next.assigned());
    GroupMember released =
        Reconciliation.reconcile(next, 4, Set.of(A, B), Set.of(A), tp -> false, t -> true);
    assertEquals(MemberState.STABLE, released.state());
    assertEquals(Set.of(A, B), released.assigned());
  }

  @Test
  void shouldRevokeTopicsNoLongerSubscribedAtOnce() {
    GroupMember m = member(3, MemberState.STABLE, Set.of(A, new TopicPartition("u", 0)), Set.of());
    GroupMember next =
        Reconciliation.reconcile(m, 3, m.assigned(), m.assigned(), tp -> false, t -> t.equals("t"));
    assertEquals(MemberState.UNREVOKED_PARTITIONS, next.state());
    assertEquals(Set.of(new TopicPartition("u", 0)), next.pendingRevocation());
  }

  @Test
  void shouldSkipRevocationOfWhatTheMemberAlreadyGaveUp() {
    GroupMember m = member(3, MemberState.STABLE, Set.of(A, B), Set.of());
    GroupMember next = Reconciliation.reconcile(m, 4, Set.of(A), Set.of(A), tp -> false, t -> true);
    assertEquals(MemberState.STABLE, next.state());
    assertEquals(4, next.memberEpoch());
    assertEquals(Set.of(A), next.assigned());
  }
}
