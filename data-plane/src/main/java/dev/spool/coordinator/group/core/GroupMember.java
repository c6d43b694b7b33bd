package dev.spool.coordinator.group.core;

import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Set;

/**
 * One member of a consumer group: identity and subscription (MemberMetadata records) and its
 * reconciliation state (CurrentAssignment records). Immutable; the withers return copies.
 *
 * @param memberEpoch the epoch of the assignment it owns; -2 for a static member that left for now
 * @param assigned partitions it may consume at {@code memberEpoch}
 * @param pendingRevocation partitions it still owns but must give up (UNREVOKED_PARTITIONS)
 */
public record GroupMember(
    String memberId,
    String instanceId,
    String rackId,
    String clientId,
    String clientHost,
    List<String> subscribedTopicNames,
    String subscribedTopicRegex,
    int rebalanceTimeoutMs,
    String serverAssignor,
    int memberEpoch,
    int previousMemberEpoch,
    MemberState state,
    Set<TopicPartition> assigned,
    Set<TopicPartition> pendingRevocation) {

  public GroupMember {
    subscribedTopicNames = List.copyOf(subscribedTopicNames);
    assigned = Set.copyOf(assigned);
    pendingRevocation = Set.copyOf(pendingRevocation);
  }

  /**
   * A member that exists only by id so far (records of it arrive in any order after compaction).
   */
  public static GroupMember placeholder(String memberId) {
    return new GroupMember(
        memberId,
        "",
        "",
        "",
        "",
        List.of(),
        "",
        0,
        "",
        0,
        0,
        MemberState.STABLE,
        Set.of(),
        Set.of());
  }

  public boolean isStatic() {
    return !instanceId.isEmpty();
  }

  /** Every partition it owns: assigned plus pending revocation. */
  public boolean owns(TopicPartition tp) {
    return assigned.contains(tp) || pendingRevocation.contains(tp);
  }

  public GroupMember withMetadata(
      String instanceId,
      String rackId,
      String clientId,
      String clientHost,
      List<String> subscribedTopicNames,
      String subscribedTopicRegex,
      int rebalanceTimeoutMs,
      String serverAssignor) {
    return new GroupMember(
        memberId,
        instanceId,
        rackId,
        clientId,
        clientHost,
        subscribedTopicNames,
        subscribedTopicRegex,
        rebalanceTimeoutMs,
        serverAssignor,
        memberEpoch,
        previousMemberEpoch,
        state,
        assigned,
        pendingRevocation);
  }

  public GroupMember withAssignment(
      int memberEpoch,
      int previousMemberEpoch,
      MemberState state,
      Set<TopicPartition> assigned,
      Set<TopicPartition> pendingRevocation) {
    return new GroupMember(
        memberId,
        instanceId,
        rackId,
        clientId,
        clientHost,
        subscribedTopicNames,
        subscribedTopicRegex,
        rebalanceTimeoutMs,
        serverAssignor,
        memberEpoch,
        previousMemberEpoch,
        state,
        assigned,
        pendingRevocation);
  }

  public GroupMember withMemberId(String newId) {
    return new GroupMember(
        newId,
        instanceId,
        rackId,
        clientId,
        clientHost,
        subscribedTopicNames,
        subscribedTopicRegex,
        rebalanceTimeoutMs,
        serverAssignor,
        memberEpoch,
        previousMemberEpoch,
        state,
        assigned,
        pendingRevocation);
  }

  /** Whether the identity/subscription part equals {@code o}'s (what a MemberMetadata holds). */
  public boolean sameMetadata(GroupMember o) {
    return instanceId.equals(o.instanceId)
        && rackId.equals(o.rackId)
        && clientId.equals(o.clientId)
        && clientHost.equals(o.clientHost)
        && subscribedTopicNames.equals(o.subscribedTopicNames)
        && subscribedTopicRegex.equals(o.subscribedTopicRegex)
        && rebalanceTimeoutMs == o.rebalanceTimeoutMs
        && serverAssignor.equals(o.serverAssignor);
  }

  /** Whether the reconciliation part equals {@code o}'s (what a CurrentAssignment holds). */
  public boolean sameAssignment(GroupMember o) {
    return memberEpoch == o.memberEpoch
        && previousMemberEpoch == o.previousMemberEpoch
        && state == o.state
        && assigned.equals(o.assigned)
        && pendingRevocation.equals(o.pendingRevocation);
  }
}
