package dev.spool.broker.kafka.codec;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.Classic;
import dev.spool.coordinator.group.api.GroupResult;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * JoinGroup, SyncGroup, Heartbeat and LeaveGroup (Kafka's classic group protocol) between Kafka and
 * the group coordinator. Member metadata and assignments pass through as the members encoded them;
 * for protocol type {@code consumer} the subscribed topics and assigned partitions are also decoded
 * (Kafka's ConsumerProtocol layout: int16 version, then the schema of that version) so describe and
 * OffsetDelete can name them; bytes that do not decode leave those empty and are still passed on,
 * as Kafka's coordinator never interprets them either.
 *
 * <p>Threads: stateless; any thread.
 */
public final class ClassicGroupCodec {
  private ClassicGroupCodec() {}

  // ---------------------------------------------------------------- JoinGroup

  public static Classic.JoinRequest joinToSpool(KafkaRequest r, SocketAddress remote) {
    JoinGroupRequestData req = r.body();
    boolean consumer = Classic.CONSUMER.equals(req.protocolType());
    List<Classic.Protocol> protocols = new ArrayList<>();
    for (JoinGroupRequestData.JoinGroupRequestProtocol p : req.protocols()) {
      byte[] metadata = p.metadata() == null ? new byte[0] : p.metadata();
      protocols.add(
          new Classic.Protocol(p.name(), metadata, consumer ? topics(metadata) : List.of()));
    }
    return new Classic.JoinRequest(
        req.groupId(),
        req.memberId(),
        r.version() >= 5 ? req.groupInstanceId() : null,
        req.protocolType(),
        protocols,
        req.sessionTimeoutMs(),
        // Version 0 has no rebalance timeout: the session timeout is also the rebalance timeout.
        r.version() >= 1 ? req.rebalanceTimeoutMs() : req.sessionTimeoutMs(),
        r.version() >= 4,
        r.clientId(),
        GroupCodec.clientHost(remote));
  }

  /** The subscribed topics of a ConsumerProtocol subscription; empty if it does not decode. */
  static List<String> topics(byte[] metadata) {
    try {
      ByteBuffer b = ByteBuffer.wrap(metadata);
      short v =
          (short) Math.min(b.getShort(), ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION);
      return List.copyOf(new ConsumerProtocolSubscription(new ByteBufferAccessor(b), v).topics());
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  /** The partitions of a ConsumerProtocol assignment; empty if it does not decode. */
  static Set<TopicPartition> partitions(byte[] assignment) {
    Set<TopicPartition> out = new HashSet<>();
    try {
      ByteBuffer b = ByteBuffer.wrap(assignment);
      short v =
          (short) Math.min(b.getShort(), ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION);
      for (ConsumerProtocolAssignment.TopicPartition t :
          new ConsumerProtocolAssignment(new ByteBufferAccessor(b), v).assignedPartitions()) {
        for (int p : t.partitions()) {
          out.add(new TopicPartition(t.topic(), p));
        }
      }
      return out;
    } catch (RuntimeException e) {
      return Set.of();
    }
  }

  public static KafkaResponse joinToKafka(KafkaRequest r, Classic.JoinResult res) {
    JoinGroupResponseData d =
        new JoinGroupResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(res.error()))
            .setGenerationId(res.generation())
            .setLeader(res.leader() == null ? "" : res.leader())
            .setMemberId(res.memberId() == null ? "" : res.memberId());
    // Before version 7 the protocol name is not nullable; Kafka sends "" for none.
    d.setProtocolName(res.protocolName() == null && r.version() < 7 ? "" : res.protocolName());
    if (r.version() >= 7) {
      d.setProtocolType(res.protocolType());
    }
    boolean skip = res.skipAssignment();
    if (r.version() >= 9) {
      d.setSkipAssignment(skip);
    }
    List<JoinGroupResponseData.JoinGroupResponseMember> members = new ArrayList<>();
    // A returning static leader before version 9 cannot be told to skip the assignment: it gets
    // no members, so it does not reassign what the group already has (Kafka does the same).
    if (!(skip && r.version() < 9)) {
      for (Classic.JoinMember m : res.members()) {
        JoinGroupResponseData.JoinGroupResponseMember jm =
            new JoinGroupResponseData.JoinGroupResponseMember()
                .setMemberId(m.memberId())
                .setMetadata(m.metadata());
        if (r.version() >= 5) {
          jm.setGroupInstanceId(m.instanceId());
        }
        members.add(jm);
      }
    }
    return r.respond(d.setMembers(members));
  }

  // ---------------------------------------------------------------- SyncGroup

  public static Classic.SyncRequest syncToSpool(KafkaRequest r) {
    SyncGroupRequestData req = r.body();
    Map<String, byte[]> assignments = new LinkedHashMap<>();
    Map<String, Set<TopicPartition>> partitions = new HashMap<>();
    boolean consumer = r.version() < 5 || Classic.CONSUMER.equals(req.protocolType());
    for (SyncGroupRequestData.SyncGroupRequestAssignment a : req.assignments()) {
      byte[] bytes = a.assignment() == null ? new byte[0] : a.assignment();
      assignments.put(a.memberId(), bytes);
      if (consumer) {
        partitions.put(a.memberId(), partitions(bytes));
      }
    }
    return new Classic.SyncRequest(
        req.groupId(),
        req.memberId(),
        r.version() >= 3 ? req.groupInstanceId() : null,
        req.generationId(),
        r.version() >= 5 ? req.protocolType() : null,
        r.version() >= 5 ? req.protocolName() : null,
        assignments,
        partitions);
  }

  public static KafkaResponse syncToKafka(KafkaRequest r, Classic.SyncResult res) {
    SyncGroupResponseData d =
        new SyncGroupResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(res.error()))
            .setAssignment(res.assignment() == null ? new byte[0] : res.assignment());
    if (r.version() >= 5) {
      d.setProtocolType(res.protocolType()).setProtocolName(res.protocolName());
    }
    return r.respond(d);
  }

  // ---------------------------------------------------------------- Heartbeat

  public static Classic.HeartbeatRequest heartbeatToSpool(KafkaRequest r) {
    HeartbeatRequestData req = r.body();
    return new Classic.HeartbeatRequest(
        req.groupId(),
        req.memberId(),
        r.version() >= 3 ? req.groupInstanceId() : null,
        req.generationId());
  }

  public static KafkaResponse heartbeatToKafka(KafkaRequest r, GroupResult res) {
    return r.respond(
        new HeartbeatResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(res.error())));
  }

  // ---------------------------------------------------------------- LeaveGroup

  public static String leaveGroupId(KafkaRequest r) {
    LeaveGroupRequestData req = r.body();
    return req.groupId();
  }

  /** Version 3+ names a batch of members; before, the one member sending it. */
  public static List<Classic.LeaveMember> leaveToSpool(KafkaRequest r) {
    LeaveGroupRequestData req = r.body();
    if (r.version() < 3) {
      return List.of(new Classic.LeaveMember(req.memberId(), null));
    }
    List<Classic.LeaveMember> out = new ArrayList<>();
    for (LeaveGroupRequestData.MemberIdentity m : req.members()) {
      out.add(new Classic.LeaveMember(m.memberId(), m.groupInstanceId()));
    }
    return out;
  }

  /**
   * Before version 3 the one member's error is the answer's; from 3 each member has its own and the
   * answer's is the group's.
   */
  public static KafkaResponse leaveToKafka(KafkaRequest r, Classic.LeaveResult res) {
    LeaveGroupResponseData d = new LeaveGroupResponseData().setThrottleTimeMs(0);
    if (r.version() < 3) {
      ErrorCode code =
          res.error() != ErrorCode.NONE || res.members().isEmpty()
              ? res.error()
              : res.members().get(0).error();
      return r.respond(d.setErrorCode(KafkaErrors.code(code)));
    }
    List<LeaveGroupResponseData.MemberResponse> members = new ArrayList<>();
    for (Classic.LeftMember m : res.members()) {
      members.add(
          new LeaveGroupResponseData.MemberResponse()
              .setMemberId(m.memberId())
              .setGroupInstanceId(m.instanceId())
              .setErrorCode(KafkaErrors.code(m.error())));
    }
    return r.respond(d.setErrorCode(KafkaErrors.code(res.error())).setMembers(members));
  }
}
