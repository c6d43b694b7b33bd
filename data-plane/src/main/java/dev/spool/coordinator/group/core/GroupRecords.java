package dev.spool.coordinator.group.core;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.core.CoordinatorRecord.RecordType;
import dev.spool.coordinator.group.record.ClassicGroupKey;
import dev.spool.coordinator.group.record.ClassicGroupValue;
import dev.spool.coordinator.group.record.CurrentAssignmentKey;
import dev.spool.coordinator.group.record.CurrentAssignmentValue;
import dev.spool.coordinator.group.record.GroupMetadataKey;
import dev.spool.coordinator.group.record.GroupMetadataValue;
import dev.spool.coordinator.group.record.GroupTopicPartitions;
import dev.spool.coordinator.group.record.MemberMetadataKey;
import dev.spool.coordinator.group.record.MemberMetadataValue;
import dev.spool.coordinator.group.record.OffsetCommitKey;
import dev.spool.coordinator.group.record.OffsetCommitValue;
import dev.spool.coordinator.group.record.TargetAssignmentMemberKey;
import dev.spool.coordinator.group.record.TargetAssignmentMemberValue;
import dev.spool.coordinator.group.record.TargetAssignmentMetadataKey;
import dev.spool.coordinator.group.record.TargetAssignmentMetadataValue;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Builds the coordinator's records from state and turns them into record key/value bytes and back
 * (layout in {@code data-plane/src/main/proto/spool/group_records.proto}). Pure; any thread.
 */
public final class GroupRecords {
  /** The only value version written and read so far. */
  public static final short VALUE_VERSION = 0;

  private GroupRecords() {}

  // ---------------------------------------------------------------- builders

  public static CoordinatorRecord offsetCommit(
      String groupId, TopicPartition tp, OffsetAndMetadata o) {
    return new CoordinatorRecord(
        RecordType.OFFSET_COMMIT,
        offsetKey(groupId, tp),
        OffsetCommitValue.newBuilder()
            .setOffset(o.offset())
            .setLeaderEpoch(o.leaderEpoch())
            .setMetadata(o.metadata())
            .setCommitTimestampMs(o.commitTimestampMs())
            .build());
  }

  public static CoordinatorRecord offsetTombstone(String groupId, TopicPartition tp) {
    return new CoordinatorRecord(RecordType.OFFSET_COMMIT, offsetKey(groupId, tp), null);
  }

  private static OffsetCommitKey offsetKey(String groupId, TopicPartition tp) {
    return OffsetCommitKey.newBuilder()
        .setGroupId(groupId)
        .setTopic(tp.topic())
        .setPartition(tp.partition())
        .build();
  }

  public static CoordinatorRecord groupMetadata(
      String groupId, int epoch, Map<String, Integer> subscribedTopicPartitions) {
    return new CoordinatorRecord(
        RecordType.GROUP_METADATA,
        GroupMetadataKey.newBuilder().setGroupId(groupId).build(),
        GroupMetadataValue.newBuilder()
            .setEpoch(epoch)
            .putAllSubscribedTopicPartitions(new TreeMap<>(subscribedTopicPartitions))
            .build());
  }

  public static CoordinatorRecord classicGroup(String groupId, ClassicGroupValue value) {
    return new CoordinatorRecord(
        RecordType.CLASSIC_GROUP, ClassicGroupKey.newBuilder().setGroupId(groupId).build(), value);
  }

  public static CoordinatorRecord groupMetadataTombstone(String groupId) {
    return new CoordinatorRecord(
        RecordType.GROUP_METADATA, GroupMetadataKey.newBuilder().setGroupId(groupId).build(), null);
  }

  public static CoordinatorRecord memberMetadata(String groupId, GroupMember m) {
    return new CoordinatorRecord(
        RecordType.MEMBER_METADATA,
        memberKey(groupId, m.memberId()),
        MemberMetadataValue.newBuilder()
            .setInstanceId(m.instanceId())
            .setRackId(m.rackId())
            .setClientId(m.clientId())
            .setClientHost(m.clientHost())
            .addAllSubscribedTopicNames(m.subscribedTopicNames())
            .setSubscribedTopicRegex(m.subscribedTopicRegex())
            .setRebalanceTimeoutMs(m.rebalanceTimeoutMs())
            .setServerAssignor(m.serverAssignor())
            .build());
  }

  public static CoordinatorRecord memberMetadataTombstone(String groupId, String memberId) {
    return new CoordinatorRecord(RecordType.MEMBER_METADATA, memberKey(groupId, memberId), null);
  }

  private static MemberMetadataKey memberKey(String groupId, String memberId) {
    return MemberMetadataKey.newBuilder().setGroupId(groupId).setMemberId(memberId).build();
  }

  public static CoordinatorRecord targetAssignmentMetadata(String groupId, int epoch) {
    return new CoordinatorRecord(
        RecordType.TARGET_ASSIGNMENT_METADATA,
        TargetAssignmentMetadataKey.newBuilder().setGroupId(groupId).build(),
        TargetAssignmentMetadataValue.newBuilder().setAssignmentEpoch(epoch).build());
  }

  public static CoordinatorRecord targetAssignmentMetadataTombstone(String groupId) {
    return new CoordinatorRecord(
        RecordType.TARGET_ASSIGNMENT_METADATA,
        TargetAssignmentMetadataKey.newBuilder().setGroupId(groupId).build(),
        null);
  }

  public static CoordinatorRecord targetAssignmentMember(
      String groupId, String memberId, Set<TopicPartition> partitions) {
    return new CoordinatorRecord(
        RecordType.TARGET_ASSIGNMENT_MEMBER,
        targetKey(groupId, memberId),
        TargetAssignmentMemberValue.newBuilder().addAllPartitions(toProto(partitions)).build());
  }

  public static CoordinatorRecord targetAssignmentMemberTombstone(String groupId, String memberId) {
    return new CoordinatorRecord(
        RecordType.TARGET_ASSIGNMENT_MEMBER, targetKey(groupId, memberId), null);
  }

  private static TargetAssignmentMemberKey targetKey(String groupId, String memberId) {
    return TargetAssignmentMemberKey.newBuilder().setGroupId(groupId).setMemberId(memberId).build();
  }

  public static CoordinatorRecord currentAssignment(String groupId, GroupMember m) {
    return new CoordinatorRecord(
        RecordType.CURRENT_ASSIGNMENT,
        currentKey(groupId, m.memberId()),
        CurrentAssignmentValue.newBuilder()
            .setMemberEpoch(m.memberEpoch())
            .setPreviousMemberEpoch(m.previousMemberEpoch())
            .setState(m.state().ordinal())
            .addAllAssigned(toProto(m.assigned()))
            .addAllPendingRevocation(toProto(m.pendingRevocation()))
            .build());
  }

  public static CoordinatorRecord currentAssignmentTombstone(String groupId, String memberId) {
    return new CoordinatorRecord(
        RecordType.CURRENT_ASSIGNMENT, currentKey(groupId, memberId), null);
  }

  private static CurrentAssignmentKey currentKey(String groupId, String memberId) {
    return CurrentAssignmentKey.newBuilder().setGroupId(groupId).setMemberId(memberId).build();
  }

  /** Partitions grouped by topic, topics and partitions sorted (the bytes are deterministic). */
  public static List<GroupTopicPartitions> toProto(Set<TopicPartition> partitions) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    for (TopicPartition tp : partitions) {
      byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
    }
    List<GroupTopicPartitions> out = new ArrayList<>();
    byTopic.forEach(
        (t, ps) -> {
          ps.sort(null);
          out.add(GroupTopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps).build());
        });
    return out;
  }

  public static Set<TopicPartition> fromProto(List<GroupTopicPartitions> list) {
    Set<TopicPartition> out = new HashSet<>();
    for (GroupTopicPartitions t : list) {
      for (int p : t.getPartitionsList()) {
        out.add(new TopicPartition(t.getTopic(), p));
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- bytes

  /** The record key: int16 type then the key message. */
  public static byte[] encodeKey(CoordinatorRecord r) {
    return prefixed(r.type().id(), r.key());
  }

  /** The record value: int16 version then the value message; null for a tombstone. */
  public static byte[] encodeValue(CoordinatorRecord r) {
    return r.value() == null ? null : prefixed(VALUE_VERSION, r.value());
  }

  private static byte[] prefixed(short prefix, Message m) {
    byte[] body = m.toByteArray();
    ByteBuffer b = ByteBuffer.allocate(2 + body.length);
    b.putShort(prefix).put(body);
    return b.array();
  }

  /**
   * Decodes one record (key and value as stored; value null for a tombstone). Returns null for a
   * record type this code does not know, which the loader skips (a newer version's record).
   *
   * @throws IllegalArgumentException when the bytes do not parse or the value version is unknown
   */
  public static CoordinatorRecord decode(ByteBuffer key, ByteBuffer value) {
    if (key == null || key.remaining() < 2) {
      throw new IllegalArgumentException("coordinator record without a key type");
    }
    short typeId = key.getShort();
    RecordType type = RecordType.fromId(typeId);
    if (type == null) {
      return null;
    }
    try {
      Message k = parseKey(type, key);
      if (value == null) {
        return new CoordinatorRecord(type, k, null);
      }
      if (value.remaining() < 2) {
        throw new IllegalArgumentException("coordinator record value without a version");
      }
      short version = value.getShort();
      if (version != VALUE_VERSION) {
        throw new IllegalArgumentException(
            "value version " + version + " of " + type + " is newer than this broker reads");
      }
      return new CoordinatorRecord(type, k, parseValue(type, value));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("malformed " + type + " record: " + e.getMessage(), e);
    }
  }

  private static Message parseKey(RecordType type, ByteBuffer b)
      throws InvalidProtocolBufferException {
    return switch (type) {
      case OFFSET_COMMIT -> OffsetCommitKey.parseFrom(b);
      case GROUP_METADATA -> GroupMetadataKey.parseFrom(b);
      case MEMBER_METADATA -> MemberMetadataKey.parseFrom(b);
      case TARGET_ASSIGNMENT_METADATA -> TargetAssignmentMetadataKey.parseFrom(b);
      case TARGET_ASSIGNMENT_MEMBER -> TargetAssignmentMemberKey.parseFrom(b);
      case CURRENT_ASSIGNMENT -> CurrentAssignmentKey.parseFrom(b);
      case CLASSIC_GROUP -> ClassicGroupKey.parseFrom(b);
    };
  }

  private static Message parseValue(RecordType type, ByteBuffer b)
      throws InvalidProtocolBufferException {
    return switch (type) {
      case OFFSET_COMMIT -> OffsetCommitValue.parseFrom(b);
      case GROUP_METADATA -> GroupMetadataValue.parseFrom(b);
      case MEMBER_METADATA -> MemberMetadataValue.parseFrom(b);
      case TARGET_ASSIGNMENT_METADATA -> TargetAssignmentMetadataValue.parseFrom(b);
      case TARGET_ASSIGNMENT_MEMBER -> TargetAssignmentMemberValue.parseFrom(b);
      case CURRENT_ASSIGNMENT -> CurrentAssignmentValue.parseFrom(b);
      case CLASSIC_GROUP -> ClassicGroupValue.parseFrom(b);
    };
  }

  /** The group a record belongs to. */
  public static String groupId(CoordinatorRecord r) {
    return switch (r.type()) {
      case OFFSET_COMMIT -> ((OffsetCommitKey) r.key()).getGroupId();
      case GROUP_METADATA -> ((GroupMetadataKey) r.key()).getGroupId();
      case MEMBER_METADATA -> ((MemberMetadataKey) r.key()).getGroupId();
      case TARGET_ASSIGNMENT_METADATA -> ((TargetAssignmentMetadataKey) r.key()).getGroupId();
      case TARGET_ASSIGNMENT_MEMBER -> ((TargetAssignmentMemberKey) r.key()).getGroupId();
      case CURRENT_ASSIGNMENT -> ((CurrentAssignmentKey) r.key()).getGroupId();
      case CLASSIC_GROUP -> ((ClassicGroupKey) r.key()).getGroupId();
    };
  }
}
