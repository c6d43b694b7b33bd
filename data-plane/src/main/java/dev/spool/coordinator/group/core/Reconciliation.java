package dev.spool.coordinator.group.core;

import dev.spool.common.TopicPartition;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * KIP-848's reconciliation of one member towards its target assignment, as a pure function (Kafka's
 * CurrentAssignmentBuilder). The rules that keep a partition from being consumed by two members at
 * once:
 *
 * <ul>
 *   <li>a member first gives up what left its target: it stays at its epoch in UNREVOKED_PARTITIONS
 *       until a heartbeat's owned partitions no longer include them;
 *   <li>only then does it move to the target epoch and get new partitions, and only those no other
 *       member still owns (assigned or pending revocation); the others wait in
 *       UNRELEASED_PARTITIONS and are added by a later heartbeat once released.
 * </ul>
 */
public final class Reconciliation {
  private Reconciliation() {}

  /**
   * The member's next state.
   *
   * @param targetEpoch the epoch of the group's target assignment
   * @param target the member's target partitions
   * @param owned what the member reported owning in this heartbeat (null = not reported)
   * @param ownedByOther whether another member owns a partition now
   * @param subscribed whether the member subscribes to a topic now (an unsubscribed topic's
   *     partitions are revoked even before the target says so)
   */
  public static GroupMember reconcile(
      GroupMember m,
      int targetEpoch,
      Set<TopicPartition> target,
      Set<TopicPartition> owned,
      Predicate<TopicPartition> ownedByOther,
      Predicate<String> subscribed) {
    return switch (m.state()) {
      case STABLE -> {
        boolean consistent = m.assigned().stream().allMatch(tp -> subscribed.test(tp.topic()));
        yield m.memberEpoch() != targetEpoch || !consistent
            ? next(m, targetEpoch, target, owned, ownedByOther, subscribed)
            : m;
      }
      case UNREVOKED_PARTITIONS ->
          ownsAny(owned, m.pendingRevocation())
              ? m
              : next(m, targetEpoch, target, owned, ownedByOther, subscribed);
      case UNRELEASED_PARTITIONS -> next(m, targetEpoch, target, owned, ownedByOther, subscribed);
    };
  }

  private static boolean ownsAny(Set<TopicPartition> owned, Set<TopicPartition> partitions) {
    if (owned == null) {
      return !partitions.isEmpty();
    }
    for (TopicPartition tp : partitions) {
      if (owned.contains(tp)) {
        return true;
      }
    }
    return false;
  }

  private static GroupMember next(
      GroupMember m,
      int targetEpoch,
      Set<TopicPartition> target,
      Set<TopicPartition> owned,
      Predicate<TopicPartition> ownedByOther,
      Predicate<String> subscribed) {
    Set<TopicPartition> effectiveTarget = new HashSet<>();
    for (TopicPartition tp : target) {
      if (subscribed.test(tp.topic())) {
        effectiveTarget.add(tp);
      }
    }
    Set<TopicPartition> kept = new HashSet<>(m.assigned());
    kept.retainAll(effectiveTarget);
    Set<TopicPartition> revoke = new HashSet<>(m.assigned());
    revoke.removeAll(kept);
    Set<TopicPartition> add = new HashSet<>(effectiveTarget);
    add.removeAll(kept);
    boolean unreleased =
        add.removeIf(tp -> !m.pendingRevocation().contains(tp) && ownedByOther.test(tp));

    if (!revoke.isEmpty() && ownsAny(owned, revoke)) {
      return m.withAssignment(
          m.memberEpoch(), m.memberEpoch(), MemberState.UNREVOKED_PARTITIONS, kept, revoke);
    }
    Set<TopicPartition> assigned = new HashSet<>(kept);
    assigned.addAll(add);
    MemberState state = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
    return m.withAssignment(targetEpoch, m.memberEpoch(), state, assigned, Set.of());
  }
}
