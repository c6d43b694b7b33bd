package dev.spool.coordinator.group.api;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The requests and results of Kafka's classic group protocol (JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup) in the coordinator's protocol-neutral terms. Metadata and assignments are the opaque
 * bytes the members exchange through the coordinator; for protocol type {@code consumer} the
 * listener also decodes the subscribed topics and assigned partitions, which the coordinator keeps
 * for describe and OffsetDelete only. Immutable values; any thread.
 */
public final class Classic {
  /** The protocol type of Kafka's consumers. */
  public static final String CONSUMER = "consumer";

  private Classic() {}

  /**
   * One protocol a member supports, in its order of preference.
   *
   * @param topics the subscribed topics decoded from {@code metadata}; empty when not decodable
   */
  public record Protocol(String name, byte[] metadata, List<String> topics) {}

  /**
   * A JoinGroup.
   *
   * @param memberId "" for a member joining the first time
   * @param instanceId null for a dynamic member, else its group.instance.id
   * @param requireKnownMemberId version 4+: a new dynamic member first gets MEMBER_ID_REQUIRED
   */
  public record JoinRequest(
      String groupId,
      String memberId,
      String instanceId,
      String protocolType,
      List<Protocol> protocols,
      int sessionTimeoutMs,
      int rebalanceTimeoutMs,
      boolean requireKnownMemberId,
      String clientId,
      String clientHost) {}

  /** A member of the generation, as the leader's JoinGroup answer lists it. */
  public record JoinMember(String memberId, String instanceId, byte[] metadata) {}

  /**
   * The answer to a JoinGroup.
   *
   * @param members the generation's members for the leader, empty for the others
   * @param skipAssignment a static leader that came back: it already has its assignment
   */
  public record JoinResult(
      ErrorCode error,
      String message,
      int generation,
      String protocolType,
      String protocolName,
      String leader,
      boolean skipAssignment,
      String memberId,
      List<JoinMember> members) {

    public static JoinResult error(ErrorCode code, String message, String memberId) {
      return new JoinResult(code, message, -1, null, null, "", false, memberId, List.of());
    }
  }

  /**
   * A SyncGroup; the leader passes every member's assignment.
   *
   * @param protocolType null when the request (before version 5) does not carry it
   * @param partitions the decoded assignment per member (protocol type consumer), for describe
   */
  public record SyncRequest(
      String groupId,
      String memberId,
      String instanceId,
      int generation,
      String protocolType,
      String protocolName,
      Map<String, byte[]> assignments,
      Map<String, Set<TopicPartition>> partitions) {}

  public record SyncResult(
      ErrorCode error,
      String message,
      String protocolType,
      String protocolName,
      byte[] assignment) {

    public static SyncResult error(ErrorCode code, String message) {
      return new SyncResult(code, message, null, null, new byte[0]);
    }
  }

  /** A Heartbeat of a classic member. */
  public record HeartbeatRequest(
      String groupId, String memberId, String instanceId, int generation) {}

  /** One member a LeaveGroup removes: by member id, or by instance id (memberId may be ""). */
  public record LeaveMember(String memberId, String instanceId) {}

  /** A member's outcome of a LeaveGroup. */
  public record LeftMember(String memberId, String instanceId, ErrorCode error) {}

  /** The answer to a LeaveGroup: a group-level error, else one outcome per member asked. */
  public record LeaveResult(ErrorCode error, String message, List<LeftMember> members) {
    /**
     * The answer when the group has no classic members at all: as Kafka's coordinator, no
     * group-level error and UNKNOWN_MEMBER_ID for each member asked (Kafka's clients read either
     * the same way; a batch of static members is told one by one).
     */
    public static LeaveResult noSuchGroup(List<LeaveMember> leaving) {
      List<LeftMember> out = new ArrayList<>(leaving.size());
      for (LeaveMember l : leaving) {
        out.add(new LeftMember(l.memberId(), l.instanceId(), ErrorCode.UNKNOWN_MEMBER_ID));
      }
      return new LeaveResult(ErrorCode.NONE, "", out);
    }
  }
}
