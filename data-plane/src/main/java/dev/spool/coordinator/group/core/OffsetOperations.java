package dev.spool.coordinator.group.core;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
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
    PartitionResult refused = checkCommitter(r);
    GroupMember member =
        refused != null || r.memberEpoch() < 0 && r.memberId().isEmpty()
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
    if (r.memberId() != null && !r.memberId().isEmpty()) {
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
      if (g.exists() && (wanted.isEmpty() || wanted.contains(state.toLowerCase(Locale.ROOT)))) {
        out.add(new GroupListing(g.groupId(), state));
      }
    }
    return out;
  }

  public GroupDescription describe(String groupId) {
    ConsumerGroup g = groupId == null || groupId.isEmpty() ? null : shard.group(groupId);
    if (groupId == null || groupId.isEmpty()) {
      return GroupDescription.error("", ErrorCode.INVALID_GROUP_ID, "the group id is empty");
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

  /** Deletes an empty group with its offsets. */
  public GroupResult deleteGroup(String groupId) {
    if (groupId == null || groupId.isEmpty()) {
      return new GroupResult("", ErrorCode.INVALID_GROUP_ID, "the group id is empty");
    }
    ConsumerGroup g = shard.group(groupId);
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
    for (TopicPartition tp : new ArrayList<>(g.offsets().keySet())) {
      shard.emit(GroupRecords.offsetTombstone(groupId, tp));
    }
    shard.emit(GroupRecords.targetAssignmentMetadataTombstone(groupId));
    shard.emit(GroupRecords.groupMetadataTombstone(groupId));
    return new GroupResult(groupId, ErrorCode.NONE, "");
  }

  /** Deletes committed offsets of topics no member of the group subscribes to. */
  public OffsetDeleteResult deleteOffsets(String groupId, List<TopicPartition> partitions) {
    if (groupId == null || groupId.isEmpty()) {
      return new OffsetDeleteResult(ErrorCode.INVALID_GROUP_ID, "the group id is empty", Map.of());
    }
    ConsumerGroup g = shard.group(groupId);
    if (g == null || !g.exists()) {
      return new OffsetDeleteResult(
          ErrorCode.GROUP_ID_NOT_FOUND, "group " + groupId + " does not exist", Map.of());
    }
    Map<TopicPartition, PartitionResult> out = new LinkedHashMap<>();
    Map<String, Boolean> subscribed = new HashMap<>();
    for (TopicPartition tp : partitions) {
      if (subscribed.computeIfAbsent(tp.topic(), t -> shard.anyMemberSubscribes(g, t))) {
        out.put(
            tp,
            new PartitionResult(
                ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC,
                "group " + groupId + " has members subscribed to " + tp.topic()));
        continue;
      }
      if (g.offsets().containsKey(tp)) {
        shard.emit(GroupRecords.offsetTombstone(groupId, tp));
      }
      out.put(tp, PartitionResult.OK);
    }
    return new OffsetDeleteResult(ErrorCode.NONE, "", out);
  }
}
