package dev.spool.coordinator.group.core;

import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.record.CurrentAssignmentKey;
import dev.spool.coordinator.group.record.CurrentAssignmentValue;
import dev.spool.coordinator.group.record.GroupMetadataValue;
import dev.spool.coordinator.group.record.MemberMetadataKey;
import dev.spool.coordinator.group.record.MemberMetadataValue;
import dev.spool.coordinator.group.record.OffsetCommitKey;
import dev.spool.coordinator.group.record.OffsetCommitValue;
import dev.spool.coordinator.group.record.TargetAssignmentMemberKey;
import dev.spool.coordinator.group.record.TargetAssignmentMemberValue;
import dev.spool.coordinator.group.record.TargetAssignmentMetadataValue;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One consumer group's state as its records built it: the group epoch, the target assignment and
 * its epoch, the members, which member owns each partition, and the committed offsets. Changed only
 * by {@link #replay}. Confined to its shard's thread.
 *
 * <p>Invariant: a partition has at most one owner (assigned or pending revocation) at a time; a
 * record that would give it a second one is refused with {@link IllegalStateException}, since
 * reconciliation never produces one.
 */
public final class ConsumerGroup {
  private final String groupId;
  private boolean hasMetadata;
  private int groupEpoch;
  private Map<String, Integer> subscribedTopicPartitions = Map.of();
  private int assignmentEpoch;
  private final TreeMap<String, GroupMember> members = new TreeMap<>();
  private final Map<String, Set<TopicPartition>> targetAssignment = new HashMap<>();
  private final Map<TopicPartition, String> owners = new HashMap<>();
  private final Map<String, String> staticMembers = new HashMap<>();
  private final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();

  ConsumerGroup(String groupId) {
    this.groupId = groupId;
  }

  public String groupId() {
    return groupId;
  }

  public int groupEpoch() {
    return groupEpoch;
  }

  public int assignmentEpoch() {
    return assignmentEpoch;
  }

  public Map<String, Integer> subscribedTopicPartitions() {
    return subscribedTopicPartitions;
  }

  public SortedMap<String, GroupMember> members() {
    return Collections.unmodifiableSortedMap(members);
  }

  public GroupMember member(String memberId) {
    return members.get(memberId);
  }

  /** The member id holding {@code instanceId}, or null. */
  public String staticMemberId(String instanceId) {
    return staticMembers.get(instanceId);
  }

  public Set<TopicPartition> targetOf(String memberId) {
    return targetAssignment.getOrDefault(memberId, Set.of());
  }

  /** The member owning {@code tp} (assigned or pending revocation), or null. */
  public String ownerOf(TopicPartition tp) {
    return owners.get(tp);
  }

  public Map<TopicPartition, OffsetAndMetadata> offsets() {
    return Collections.unmodifiableMap(offsets);
  }

  /** True when nothing is left of the group (no metadata, members or offsets). */
  boolean isGone() {
    return !hasMetadata && members.isEmpty() && offsets.isEmpty() && targetAssignment.isEmpty();
  }

  /** Whether the group exists as far as describe and list are concerned. */
  public boolean exists() {
    return hasMetadata || !members.isEmpty() || !offsets.isEmpty();
  }

  public GroupState state() {
    if (members.isEmpty()) {
      return GroupState.EMPTY;
    }
    if (groupEpoch > assignmentEpoch) {
      return GroupState.ASSIGNING;
    }
    for (GroupMember m : members.values()) {
      if (m.state() != MemberState.STABLE || m.memberEpoch() != assignmentEpoch) {
        return GroupState.RECONCILING;
      }
    }
    return GroupState.STABLE;
  }

  // ---------------------------------------------------------------- replay

  /** Applies one record of this group. */
  void replay(CoordinatorRecord r) {
    switch (r.type()) {
      case OFFSET_COMMIT -> replayOffset((OffsetCommitKey) r.key(), (OffsetCommitValue) r.value());
      case GROUP_METADATA -> {
        GroupMetadataValue v = (GroupMetadataValue) r.value();
        hasMetadata = v != null;
        groupEpoch = v == null ? 0 : v.getEpoch();
        subscribedTopicPartitions =
            v == null ? Map.of() : Map.copyOf(v.getSubscribedTopicPartitionsMap());
      }
      case MEMBER_METADATA ->
          replayMember(
              ((MemberMetadataKey) r.key()).getMemberId(), (MemberMetadataValue) r.value());
      case TARGET_ASSIGNMENT_METADATA -> {
        TargetAssignmentMetadataValue v = (TargetAssignmentMetadataValue) r.value();
        assignmentEpoch = v == null ? 0 : v.getAssignmentEpoch();
      }
      case TARGET_ASSIGNMENT_MEMBER -> {
        String id = ((TargetAssignmentMemberKey) r.key()).getMemberId();
        TargetAssignmentMemberValue v = (TargetAssignmentMemberValue) r.value();
        if (v == null) {
          targetAssignment.remove(id);
        } else {
          targetAssignment.put(id, Set.copyOf(GroupRecords.fromProto(v.getPartitionsList())));
        }
      }
      case CLASSIC_GROUP -> {
        // GroupShard replays these into the classic group of the same id, never here.
      }
      case CURRENT_ASSIGNMENT ->
          replayCurrent(
              ((CurrentAssignmentKey) r.key()).getMemberId(), (CurrentAssignmentValue) r.value());
    }
  }

  private void replayOffset(OffsetCommitKey k, OffsetCommitValue v) {
    TopicPartition tp = new TopicPartition(k.getTopic(), k.getPartition());
    if (v == null) {
      offsets.remove(tp);
    } else {
      offsets.put(
          tp,
          new OffsetAndMetadata(
              v.getOffset(), v.getLeaderEpoch(), v.getMetadata(), v.getCommitTimestampMs()));
    }
  }

  private void replayMember(String memberId, MemberMetadataValue v) {
    GroupMember old = members.get(memberId);
    if (v == null) {
      if (old != null) {
        setOwnership(old, null);
        members.remove(memberId);
        if (!old.instanceId().isEmpty() && memberId.equals(staticMembers.get(old.instanceId()))) {
          staticMembers.remove(old.instanceId());
        }
      }
      return;
    }
    GroupMember base = old == null ? GroupMember.placeholder(memberId) : old;
    GroupMember m =
        base.withMetadata(
            v.getInstanceId(),
            v.getRackId(),
            v.getClientId(),
            v.getClientHost(),
            v.getSubscribedTopicNamesList(),
            v.getSubscribedTopicRegex(),
            v.getRebalanceTimeoutMs(),
            v.getServerAssignor());
    if (old != null && !old.instanceId().isEmpty() && !old.instanceId().equals(m.instanceId())) {
      staticMembers.remove(old.instanceId(), memberId);
    }
    if (!m.instanceId().isEmpty()) {
      staticMembers.put(m.instanceId(), memberId);
    }
    members.put(memberId, m);
  }

  private void replayCurrent(String memberId, CurrentAssignmentValue v) {
    GroupMember old = members.get(memberId);
    GroupMember base = old == null ? GroupMember.placeholder(memberId) : old;
    GroupMember m =
        v == null
            ? base.withAssignment(0, 0, MemberState.STABLE, Set.of(), Set.of())
            : base.withAssignment(
                v.getMemberEpoch(),
                v.getPreviousMemberEpoch(),
                MemberState.fromOrdinal(v.getState()),
                GroupRecords.fromProto(v.getAssignedList()),
                GroupRecords.fromProto(v.getPendingRevocationList()));
    if (v == null && old == null) {
      return;
    }
    setOwnership(old, m);
    members.put(memberId, m);
  }

  /** Moves ownership from {@code before}'s partitions to {@code after}'s (either may be null). */
  private void setOwnership(GroupMember before, GroupMember after) {
    if (before != null) {
      for (TopicPartition tp : before.assigned()) {
        owners.remove(tp, before.memberId());
      }
      for (TopicPartition tp : before.pendingRevocation()) {
        owners.remove(tp, before.memberId());
      }
    }
    if (after != null) {
      claim(after, after.assigned());
      claim(after, after.pendingRevocation());
    }
  }

  private void claim(GroupMember m, Set<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      String prev = owners.putIfAbsent(tp, m.memberId());
      if (prev != null && !prev.equals(m.memberId())) {
        throw new IllegalStateException(
            "group "
                + groupId
                + ": "
                + tp
                + " would be owned by "
                + m.memberId()
                + " at epoch "
                + m.memberEpoch()
                + " while "
                + prev
                + " still owns it");
      }
    }
  }
}
