package dev.spool.coordinator.group.core;

import com.google.protobuf.ByteString;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.Classic;
import dev.spool.coordinator.group.api.GroupDescription;
import dev.spool.coordinator.group.api.GroupListing;
import dev.spool.coordinator.group.api.GroupResult;
import dev.spool.coordinator.group.api.MemberDescription;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.api.OffsetCommitRequest;
import dev.spool.coordinator.group.api.OffsetDeleteResult;
import dev.spool.coordinator.group.api.OffsetFetchRequest;
import dev.spool.coordinator.group.api.OffsetFetchResult;
import dev.spool.coordinator.group.api.PartitionResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Offset commits and fetches, and the admin operations (list, describe, delete groups and offsets)
 * of a {@link GroupShard}. Same rules as the shard: validate, then emit records. Confined to the
 * shard's thread.
 */
public final class OffsetOperations {
  private final GroupShard shard;

  OffsetOperations(GroupShard shard) {
    this.shard = shard;
  }

  // ---------------------------------------------------------------- commit

  /**
   * Commits what may be committed; one result per partition. A member may commit only partitions it
   * owns (assigned or pending revocation: it commits before it revokes) and only at its current or
   * previous epoch; a commit from outside the group only while the group has no members.
   */
  public Map<TopicPartition, PartitionResult> commit(OffsetCommitRequest r, long nowMs) {
    Map<TopicPartition, PartitionResult> out = new LinkedHashMap<>();
    ClassicGroup classic = r.groupId() == null ? null : shard.classic().group(r.groupId());
    PartitionResult refused =
        classic != null ? checkClassicCommitter(classic, r) : checkCommitter(r);
    GroupMember member =
        classic != null || refused != null || r.memberEpoch() < 0 && r.memberId().isEmpty()
            ? null
            : shard.group(r.groupId()).member(r.memberId());
    int maxMetadata = shard.settings().offsetMetadataMaxBytes();
    r.offsets()
        .forEach(
            (tp, o) -> {
              if (refused != null) {
                out.put(tp, refused);
              } else if (o.offset() < 0) {
                out.put(
                    tp,
                    new PartitionResult(
                        ErrorCode.INVALID_REQUEST,
                        "committed offset of " + tp + " must be >= 0, not " + o.offset()));
              } else if (o.metadata().getBytes(StandardCharsets.UTF_8).length > maxMetadata) {
                out.put(
                    tp,
                    new PartitionResult(
                        ErrorCode.OFFSET_METADATA_TOO_LARGE,
                        "metadata of " + tp + " is over offset.metadata.max.bytes=" + maxMetadata));
              } else if (member != null && !member.owns(tp)) {
                out.put(
                    tp,
                    new PartitionResult(
                        ErrorCode.PARTITION_NOT_ASSIGNED,
                        "member "
                            + member.memberId()
                            + " does not own "
                            + tp
                            + " at epoch "
                            + member.memberEpoch()));
              } else {
                shard.emit(
                    GroupRecords.offsetCommit(
                        r.groupId(),
                        tp,
                        new OffsetAndMetadata(o.offset(), o.leaderEpoch(), o.metadata(), nowMs)));
                out.put(tp, PartitionResult.OK);
              }
            });
    return out;
  }

  /**
   * Kafka's checks of a commit to a classic group: from outside the group (generation -1, no
   * member) only while it is empty; from a member at the group's generation, and not while the
   * generation waits for its assignment.
   */
  private static PartitionResult checkClassicCommitter(ClassicGroup g, OffsetCommitRequest r) {
    if (g.state() == ClassicGroup.State.DEAD) {
      return new PartitionResult(
          ErrorCode.COORDINATOR_NOT_AVAILABLE, "group " + g.groupId + " was just removed");
    }
    if (r.memberEpoch() < 0 && g.state() == ClassicGroup.State.EMPTY) {
      return null;
    }
    if (r.memberEpoch() >= 0 || !r.memberId().isEmpty() || r.instanceId() != null) {
      ErrorCode bad = ClassicGroups.validateMember(g, r.memberId(), r.instanceId());
      if (bad == ErrorCode.NONE && r.memberEpoch() != g.generation()) {
        bad = ErrorCode.ILLEGAL_GENERATION;
      }
      if (bad != ErrorCode.NONE) {
        return new PartitionResult(bad, ClassicGroups.memberMessage(g, r.memberId(), bad));
      }
    } else {
      return new PartitionResult(
          ErrorCode.UNKNOWN_MEMBER_ID,
          "group "
              + g.groupId
              + " has "
              + g.size()
              + " members: only they commit its offsets while it has any");
    }
    if (g.state() == ClassicGroup.State.COMPLETING_REBALANCE) {
      return new PartitionResult(
          ErrorCode.REBALANCE_IN_PROGRESS,
          "group " + g.groupId + " is waiting for its assignment: commit after SyncGroup");
    }
    return null;
  }

  private PartitionResult checkCommitter(OffsetCommitRequest r) {
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return new PartitionResult(ErrorCode.INVALID_GROUP_ID, "the group id is empty");
    }
    ConsumerGroup g = shard.group(r.groupId());
    if (r.memberId().isEmpty() && r.memberEpoch() < 0) {
      if (g != null && !g.members().isEmpty()) {
        return new PartitionResult(
            ErrorCode.NON_EMPTY_GROUP,
            "group "
                + r.groupId()
                + " has "
                + g.members().size()
                + " members: only they commit its offsets while it has any");
      }
      return null;
    }
    GroupMember m = g == null || r.memberId().isEmpty() ? null : g.member(r.memberId());
    if (m == null) {
      return new PartitionResult(
          ErrorCode.UNKNOWN_MEMBER_ID,
          "group " + r.groupId() + " has no member '" + r.memberId() + "'");
    }
    return checkEpoch(r.groupId(), m, r.memberEpoch());
  }

  private static PartitionResult checkEpoch(String groupId, GroupMember m, int epoch) {
    if (epoch > m.memberEpoch()) {
      return new PartitionResult(
          ErrorCode.FENCED_MEMBER_EPOCH,
          "member "
              + m.memberId()
              + " of "
              + groupId
              + " sent epoch "
              + epoch
              + ", newer than its epoch "
              + m.memberEpoch());
    }
    if (epoch < m.memberEpoch() && epoch != m.previousMemberEpoch()) {
      return new PartitionResult(
          ErrorCode.STALE_MEMBER_EPOCH,
          "member "
              + m.memberId()
              + " of "
              + groupId
              + " sent epoch "
              + epoch
              + "; it is at epoch "
              + m.memberEpoch());
    }
    return null;
  }

  // ---------------------------------------------------------------- fetch

  public OffsetFetchResult fetch(OffsetFetchRequest r) {
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return OffsetFetchResult.error(ErrorCode.INVALID_GROUP_ID, "the group id is empty");
    }
    ConsumerGroup g = shard.group(r.groupId());
    if (r.memberId() != null
        && !r.memberId().isEmpty()
        && shard.classic().group(r.groupId()) == null) {
      GroupMember m = g == null ? null : g.member(r.memberId());
      if (m == null) {
        return OffsetFetchResult.error(
            ErrorCode.UNKNOWN_MEMBER_ID, "group " + r.groupId() + " has no member " + r.memberId());
      }
      PartitionResult bad = checkEpoch(r.groupId(), m, r.memberEpoch());
      if (bad != null) {
        return OffsetFetchResult.error(bad.error(), bad.message());
      }
    }
    Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
    if (g != null) {
      if (r.partitions() == null) {
        out.putAll(g.offsets());
      } else {
        for (TopicPartition tp : r.partitions()) {
          OffsetAndMetadata o = g.offsets().get(tp);
          if (o != null) {
            out.put(tp, o);
          }
        }
      }
    }
    return new OffsetFetchResult(ErrorCode.NONE, "", out);
  }

  // ---------------------------------------------------------------- admin

  /** Groups that exist, optionally only those in one of {@code states} (case-insensitive). */
  public List<GroupListing> list(Collection<String> states) {
    Set<String> wanted = new HashSet<>();
    states.forEach(s -> wanted.add(s.toLowerCase(Locale.ROOT)));
    List<GroupListing> out = new ArrayList<>();
    for (ConsumerGroup g : shard.groups()) {
      String state = g.state().displayName();
      if (g.exists()
          && shard.classic().group(g.groupId()) == null
          && (wanted.isEmpty() || wanted.contains(state.toLowerCase(Locale.ROOT)))) {
        out.add(new GroupListing(g.groupId(), state));
      }
    }
    for (ClassicGroup g : shard.classic().all()) {
      String state = g.state().displayName;
      if (wanted.isEmpty() || wanted.contains(state.toLowerCase(Locale.ROOT))) {
        out.add(
            new GroupListing(
                g.groupId,
                state,
                GroupListing.CLASSIC,
                g.protocolType() == null ? "" : g.protocolType()));
      }
    }
    return out;
  }

  public GroupDescription describe(String groupId) {
    ConsumerGroup g = groupId == null || groupId.isEmpty() ? null : shard.group(groupId);
    if (groupId == null || groupId.isEmpty()) {
      return GroupDescription.error("", ErrorCode.INVALID_GROUP_ID, "the group id is empty");
    }
    ClassicGroup classic = shard.classic().group(groupId);
    if (classic != null) {
      return describeClassic(classic);
    }
    if (g == null || !g.exists()) {
      return GroupDescription.error(
          groupId, ErrorCode.GROUP_ID_NOT_FOUND, "group " + groupId + " does not exist");
    }
    List<MemberDescription> members = new ArrayList<>();
    for (GroupMember m : g.members().values()) {
      members.add(
          new MemberDescription(
              m.memberId(),
              m.instanceId(),
              m.rackId(),
              m.memberEpoch(),
              m.clientId(),
              m.clientHost(),
              m.subscribedTopicNames(),
              m.subscribedTopicRegex(),
              m.assigned(),
              g.targetOf(m.memberId()),
              m.state().displayName()));
    }
    return new GroupDescription(
        groupId,
        ErrorCode.NONE,
        "",
        g.state().displayName(),
        g.groupEpoch(),
        g.assignmentEpoch(),
        shard.assignorName(g),
        members);
  }

  private static GroupDescription describeClassic(ClassicGroup g) {
    List<MemberDescription> members = new ArrayList<>();
    String protocol = g.protocolName() == null ? "" : g.protocolName();
    for (ClassicMember m : g.members()) {
      Classic.Protocol p = m.protocol(protocol);
      members.add(
          new MemberDescription(
              m.memberId,
              m.instanceId == null ? "" : m.instanceId,
              "",
              g.generation(),
              m.clientId,
              m.clientHost,
              p == null ? List.of() : p.topics(),
              "",
              m.assignedPartitions,
              m.assignedPartitions,
              g.state().displayName,
              ByteString.copyFrom(p == null ? new byte[0] : p.metadata()),
              ByteString.copyFrom(m.assignment)));
    }
    return new GroupDescription(
        g.groupId,
        ErrorCode.NONE,
        "",
        g.state().displayName,
        g.generation(),
        g.generation(),
        protocol,
        members,
        GroupListing.CLASSIC,
        g.protocolType() == null ? "" : g.protocolType());
  }

  /** Deletes an empty group with its offsets. */
  public GroupResult deleteGroup(String groupId) {
    if (groupId == null || groupId.isEmpty()) {
      return new GroupResult("", ErrorCode.INVALID_GROUP_ID, "the group id is empty");
    }
    ConsumerGroup g = shard.group(groupId);
    ClassicGroup classic = shard.classic().group(groupId);
    if (classic != null) {
      if (classic.state() != ClassicGroup.State.EMPTY) {
        return new GroupResult(
            groupId,
            ErrorCode.NON_EMPTY_GROUP,
            "group " + groupId + " is " + classic.state().displayName + " with members");
      }
      if (g != null) {
        deleteAllOffsets(g);
      }
      shard.classic().delete(classic);
      return new GroupResult(groupId, ErrorCode.NONE, "");
    }
    if (g == null || !g.exists()) {
      return new GroupResult(
          groupId, ErrorCode.GROUP_ID_NOT_FOUND, "group " + groupId + " does not exist");
    }
    if (!g.members().isEmpty()) {
      return new GroupResult(
          groupId,
          ErrorCode.NON_EMPTY_GROUP,
          "group " + groupId + " has " + g.members().size() + " members");
    }
    deleteAllOffsets(g);
    shard.emit(GroupRecords.targetAssignmentMetadataTombstone(groupId));
    shard.emit(GroupRecords.groupMetadataTombstone(groupId));
    return new GroupResult(groupId, ErrorCode.NONE, "");
  }

  private void deleteAllOffsets(ConsumerGroup g) {
    for (TopicPartition tp : new ArrayList<>(g.offsets().keySet())) {
      shard.emit(GroupRecords.offsetTombstone(g.groupId(), tp));
    }
  }

  /** Deletes committed offsets of topics no member of the group subscribes to. */
  public OffsetDeleteResult deleteOffsets(String groupId, List<TopicPartition> partitions) {
    if (groupId == null || groupId.isEmpty()) {
      return new OffsetDeleteResult(ErrorCode.INVALID_GROUP_ID, "the group id is empty", Map.of());
    }
    ConsumerGroup g = shard.group(groupId);
    ClassicGroup classic = shard.classic().group(groupId);
    if (classic == null && (g == null || !g.exists())) {
      return new OffsetDeleteResult(
          ErrorCode.GROUP_ID_NOT_FOUND, "group " + groupId + " does not exist", Map.of());
    }
    Map<TopicPartition, PartitionResult> out = new LinkedHashMap<>();
    Map<String, Boolean> subscribed = new HashMap<>();
    // A classic group's members subscribe to what their metadata names (protocol type consumer,
    // while the group has a generation); Kafka checks the same.
    Set<String> classicTopics =
        classic == null || classic.state() == ClassicGroup.State.EMPTY
            ? Set.of()
            : classic.subscribedTopics();
    for (TopicPartition tp : partitions) {
      if (subscribed.computeIfAbsent(
          tp.topic(),
          t -> classic != null ? classicTopics.contains(t) : shard.anyMemberSubscribes(g, t))) {
        out.put(
            tp,
            new PartitionResult(
                ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC,
                "group " + groupId + " has members subscribed to " + tp.topic()));
        continue;
      }
      if (g != null && g.offsets().containsKey(tp)) {
        shard.emit(GroupRecords.offsetTombstone(groupId, tp));
      }
      out.put(tp, PartitionResult.OK);
    }
    return new OffsetDeleteResult(ErrorCode.NONE, "", out);
  }
}
