package dev.spool.broker.kafka.codec;

import dev.spool.common.ErrorCode;
import dev.spool.common.HostPort;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.CoordinatorLocation;
import dev.spool.coordinator.group.api.GroupDescription;
import dev.spool.coordinator.group.api.GroupListing;
import dev.spool.coordinator.group.api.GroupResult;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.api.HeartbeatResult;
import dev.spool.coordinator.group.api.MemberDescription;
import dev.spool.protocol.RequestChecks;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The group APIs other than offsets ({@link GroupOffsetsCodec}) between Kafka and the group
 * coordinator's protocol-neutral API: FindCoordinator, ConsumerGroupHeartbeat,
 * ConsumerGroupDescribe, ListGroups, DescribeGroups and DeleteGroups. Kafka names topics by id in
 * KIP-848's messages, the coordinator by name: ids are resolved through the metadata image, and a
 * topic the image no longer has is left out of an assignment (the member learns it is gone from
 * Metadata, as on Kafka).
 *
 * <p>Threads: stateless; any thread.
 */
public final class GroupCodec {
  private GroupCodec() {}

  /** Kafka's {@code CoordinatorType}: 0 group, 1 transaction, 2 share. */
  private static final byte GROUP_KEY = 0;

  private static final byte TRANSACTION_KEY = 1;

  /** ListGroups' protocol type and group type of every group the coordinator holds (KIP-848). */
  private static final String CONSUMER = "consumer";

  // ---------------------------------------------------------------- FindCoordinator

  /** The group ids asked for: one key before version 4, a batch from version 4. */
  public static List<String> findCoordinatorKeys(KafkaRequest r) {
    FindCoordinatorRequestData req = r.body();
    return r.version() < 4 ? List.of(req.key()) : req.coordinatorKeys();
  }

  /**
   * The answer when the keys are not group ids, else null. Spool has no transaction coordinator:
   * transactional keys get TRANSACTIONAL_ID_AUTHORIZATION_FAILED, as the transactional APIs do (see
   * {@link KafkaRequestDecoder}), so a transactional producer fails at once; share-group keys get
   * INVALID_REQUEST, Kafka's answer when share groups are off.
   */
  public static KafkaResponse findCoordinatorRefusal(KafkaRequest r) {
    FindCoordinatorRequestData req = r.body();
    if (req.keyType() == GROUP_KEY) {
      return null;
    }
    Errors e =
        req.keyType() == TRANSACTION_KEY
            ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
            : Errors.INVALID_REQUEST;
    String message =
        req.keyType() == TRANSACTION_KEY
            ? "Spool has no transactions"
            : "coordinator key type " + req.keyType() + " is not served (only groups)";
    List<CoordinatorLocation> refused = new ArrayList<>();
    for (String k : findCoordinatorKeys(r)) {
      refused.add(new CoordinatorLocation(k, ErrorCode.NONE, message, -1, "", -1));
    }
    return findCoordinatorAnswer(r, refused, null, e);
  }

  /**
   * Kafka's answer: each coordinator by its Kafka listener. A coordinator without one (its broker
   * has no {@code kafka.listener}) cannot be reached by Kafka's clients: COORDINATOR_NOT_AVAILABLE,
   * as Kafka answers when the leader has no endpoint on the request's listener.
   */
  public static KafkaResponse findCoordinatorToKafka(
      KafkaRequest r, List<CoordinatorLocation> found, MetadataImage image) {
    return findCoordinatorAnswer(r, found, image, null);
  }

  private static KafkaResponse findCoordinatorAnswer(
      KafkaRequest r, List<CoordinatorLocation> found, MetadataImage image, Errors all) {
    List<FindCoordinatorResponseData.Coordinator> out = new ArrayList<>();
    for (CoordinatorLocation l : found) {
      FindCoordinatorResponseData.Coordinator c =
          new FindCoordinatorResponseData.Coordinator()
              .setKey(l.key())
              .setNodeId(-1)
              .setHost("")
              .setPort(-1);
      HostPort hp = image == null ? null : MetadataCodec.kafkaEndpoint(image, l.nodeId());
      if (all != null) {
        c.setErrorCode(all.code()).setErrorMessage(l.message());
      } else if (l.error() != ErrorCode.NONE) {
        c.setErrorCode(KafkaErrors.code(l.error()))
            .setErrorMessage(KafkaErrors.message(l.message()));
      } else if (hp == null) {
        c.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
            .setErrorMessage("broker " + l.nodeId() + " has no Kafka listener");
      } else {
        c.setNodeId(l.nodeId()).setHost(hp.host()).setPort(hp.port());
      }
      out.add(c);
    }
    FindCoordinatorResponseData d = new FindCoordinatorResponseData().setThrottleTimeMs(0);
    if (r.version() >= 4) {
      return r.respond(d.setCoordinators(out));
    }
    FindCoordinatorResponseData.Coordinator one = out.get(0);
    return r.respond(
        d.setErrorCode(one.errorCode())
            .setErrorMessage(one.errorMessage())
            .setNodeId(one.nodeId())
            .setHost(one.host())
            .setPort(one.port()));
  }

  // ---------------------------------------------------------------- ConsumerGroupHeartbeat

  /**
   * The coordinator's heartbeat. Kafka's "unchanged" values (null lists and strings, a rebalance
   * timeout of -1) become the coordinator's nulls; owned partitions name topics by id, and an id
   * the image does not know is dropped (the topic is gone, so nothing of it can be owned).
   */
  public static HeartbeatRequest heartbeatToSpool(
      KafkaRequest r, MetadataImage image, SocketAddress remote) {
    ConsumerGroupHeartbeatRequestData req = r.body();
    Set<TopicPartition> owned = null;
    if (req.topicPartitions() != null) {
      owned = new HashSet<>();
      for (ConsumerGroupHeartbeatRequestData.TopicPartitions t : req.topicPartitions()) {
        TopicImage topic = TopicIds.topic(image, t.topicId());
        if (topic != null) {
          for (int p : t.partitions()) {
            owned.add(RequestChecks.partition(topic.name(), p));
          }
        }
      }
    }
    return new HeartbeatRequest(
        req.groupId(),
        req.memberId(),
        req.memberEpoch(),
        req.instanceId(),
        req.rackId(),
        req.rebalanceTimeoutMs() < 0 ? null : req.rebalanceTimeoutMs(),
        req.subscribedTopicNames(),
        req.subscribedTopicRegex(),
        req.serverAssignor(),
        owned,
        r.clientId(),
        clientHost(remote));
  }

  /** Kafka shows a member's host as {@code InetAddress.toString()}: {@code /127.0.0.1}. */
  static String clientHost(SocketAddress remote) {
    return remote instanceof InetSocketAddress a && a.getAddress() != null
        ? a.getAddress().toString()
        : String.valueOf(remote);
  }

  public static KafkaResponse heartbeatToKafka(
      KafkaRequest r, HeartbeatResult res, MetadataImage image) {
    ConsumerGroupHeartbeatResponseData d =
        new ConsumerGroupHeartbeatResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(res.error()))
            .setErrorMessage(KafkaErrors.message(res.message()))
            .setMemberId(res.error() == ErrorCode.NONE ? res.memberId() : null)
            .setMemberEpoch(res.memberEpoch())
            .setHeartbeatIntervalMs(res.heartbeatIntervalMs());
    if (res.assignment() != null) {
      List<ConsumerGroupHeartbeatResponseData.TopicPartitions> tps = new ArrayList<>();
      byTopic(res.assignment())
          .forEach(
              (topic, parts) -> {
                Uuid id = TopicIds.idOf(image, topic);
                if (!Uuid.ZERO_UUID.equals(id)) {
                  tps.add(
                      new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                          .setTopicId(id)
                          .setPartitions(parts));
                }
              });
      d.setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(tps));
    }
    return r.respond(d);
  }

  private static Map<String, List<Integer>> byTopic(Set<TopicPartition> tps) {
    Map<String, List<Integer>> out = new TreeMap<>();
    for (TopicPartition tp : tps) {
      out.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
    }
    out.values().forEach(l -> l.sort(Integer::compare));
    return out;
  }

  // ---------------------------------------------------------------- ConsumerGroupDescribe

  public static List<String> consumerGroupDescribeIds(KafkaRequest r) {
    ConsumerGroupDescribeRequestData req = r.body();
    return req.groupIds();
  }

  /** Kafka's member type of KIP-848 members (1; 0 would be a classic member in the group). */
  private static final byte CONSUMER_MEMBER = 1;

  public static KafkaResponse consumerGroupDescribeToKafka(
      KafkaRequest r, List<GroupDescription> groups, MetadataImage image) {
    List<ConsumerGroupDescribeResponseData.DescribedGroup> out = new ArrayList<>();
    for (GroupDescription g : groups) {
      ConsumerGroupDescribeResponseData.DescribedGroup d =
          new ConsumerGroupDescribeResponseData.DescribedGroup()
              .setGroupId(g.groupId())
              .setErrorCode(KafkaErrors.code(g.error()))
              .setErrorMessage(KafkaErrors.message(g.message()));
      if (g.error() == ErrorCode.NONE && g.isClassic()) {
        // Kafka's answer for a classic group; Kafka's Admin then asks DescribeGroups.
        d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
            .setErrorMessage("Group " + g.groupId() + " is not a consumer group.");
      } else if (g.error() == ErrorCode.NONE) {
        List<ConsumerGroupDescribeResponseData.Member> members = new ArrayList<>();
        for (MemberDescription m : g.members()) {
          ConsumerGroupDescribeResponseData.Member dm =
              new ConsumerGroupDescribeResponseData.Member()
                  .setMemberId(m.memberId())
                  .setInstanceId(m.instanceId())
                  .setRackId(m.rackId())
                  .setMemberEpoch(m.memberEpoch())
                  .setClientId(m.clientId())
                  .setClientHost(m.clientHost())
                  .setSubscribedTopicNames(m.subscribedTopicNames())
                  .setSubscribedTopicRegex(emptyToNull(m.subscribedTopicRegex()))
                  .setAssignment(describeAssignment(m.assignment(), image))
                  .setTargetAssignment(describeAssignment(m.targetAssignment(), image));
          if (r.version() >= 1) {
            dm.setMemberType(CONSUMER_MEMBER);
          }
          members.add(dm);
        }
        d.setGroupState(g.state())
            .setGroupEpoch(g.groupEpoch())
            .setAssignmentEpoch(g.assignmentEpoch())
            .setAssignorName(g.assignor())
            .setMembers(members);
      }
      out.add(d);
    }
    return r.respond(new ConsumerGroupDescribeResponseData().setThrottleTimeMs(0).setGroups(out));
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private static ConsumerGroupDescribeResponseData.Assignment describeAssignment(
      Set<TopicPartition> tps, MetadataImage image) {
    List<ConsumerGroupDescribeResponseData.TopicPartitions> out = new ArrayList<>();
    byTopic(tps == null ? Set.of() : tps)
        .forEach(
            (topic, parts) ->
                out.add(
                    new ConsumerGroupDescribeResponseData.TopicPartitions()
                        .setTopicId(TopicIds.idOf(image, topic))
                        .setTopicName(topic)
                        .setPartitions(parts)));
    return new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(out);
  }

  // ---------------------------------------------------------------- ListGroups

  /** The state filter (version 4+); empty = every state. */
  public static List<String> listGroupsStates(KafkaRequest r) {
    ListGroupsRequestData req = r.body();
    return r.version() >= 4 ? req.statesFilter() : List.of();
  }

  /**
   * Kafka's answer: a KIP-848 group has group type "consumer", a classic one "classic"; both show
   * their protocol type ("consumer" for Kafka's consumers). A type filter (version 5+) matches the
   * group type case-insensitively, as on Kafka.
   */
  public static KafkaResponse listGroupsToKafka(
      KafkaRequest r, ErrorCode error, List<GroupListing> groups) {
    ListGroupsRequestData req = r.body();
    Set<String> types = new HashSet<>();
    if (r.version() >= 5) {
      req.typesFilter().forEach(t -> types.add(t.toLowerCase(Locale.ROOT)));
    }
    List<ListGroupsResponseData.ListedGroup> out = new ArrayList<>();
    for (GroupListing g : groups) {
      if (!types.isEmpty() && !types.contains(g.type())) {
        continue;
      }
      ListGroupsResponseData.ListedGroup lg =
          new ListGroupsResponseData.ListedGroup()
              .setGroupId(g.groupId())
              .setProtocolType(g.protocolType());
      if (r.version() >= 4) {
        lg.setGroupState(g.state());
      }
      if (r.version() >= 5) {
        lg.setGroupType(g.type());
      }
      out.add(lg);
    }
    return r.respond(
        new ListGroupsResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(error))
            .setGroups(out));
  }

  // ---------------------------------------------------------------- DescribeGroups

  public static List<String> describeGroupsIds(KafkaRequest r) {
    DescribeGroupsRequestData req = r.body();
    return req.groups();
  }

  /**
   * DescribeGroups describes classic groups: state, protocol type and name, and each member with
   * its metadata and assignment as the members encoded them. A KIP-848 group, or none, is answered
   * as Kafka 4 answers a group that is not a classic one: state Dead and no members, with
   * GROUP_ID_NOT_FOUND from version 6 (KIP-1043; NONE before). Kafka's Admin asks
   * ConsumerGroupDescribe first and falls back to DescribeGroups only on GROUP_ID_NOT_FOUND, so
   * KIP-848 groups are described there. Other errors (not the coordinator, still loading) are the
   * coordinator's.
   */
  public static KafkaResponse describeGroupsToKafka(KafkaRequest r, List<GroupDescription> groups) {
    List<DescribeGroupsResponseData.DescribedGroup> out = new ArrayList<>();
    for (GroupDescription g : groups) {
      DescribeGroupsResponseData.DescribedGroup d =
          new DescribeGroupsResponseData.DescribedGroup()
              .setGroupId(g.groupId())
              .setProtocolType("")
              .setProtocolData("")
              .setMembers(List.of());
      if (g.error() == ErrorCode.NONE && g.isClassic()) {
        describeClassic(r, g, d);
      } else if (g.error() == ErrorCode.NONE || g.error() == ErrorCode.GROUP_ID_NOT_FOUND) {
        d.setGroupState("Dead");
        if (r.version() >= 6) {
          d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
              .setErrorMessage("Group " + g.groupId() + " is not a classic group.");
        }
      } else {
        d.setGroupState("").setErrorCode(KafkaErrors.code(g.error()));
        if (r.version() >= 6) {
          d.setErrorMessage(KafkaErrors.message(g.message()));
        }
      }
      out.add(d);
    }
    return r.respond(new DescribeGroupsResponseData().setThrottleTimeMs(0).setGroups(out));
  }

  private static void describeClassic(
      KafkaRequest r, GroupDescription g, DescribeGroupsResponseData.DescribedGroup d) {
    List<DescribeGroupsResponseData.DescribedGroupMember> members = new ArrayList<>();
    for (MemberDescription m : g.members()) {
      DescribeGroupsResponseData.DescribedGroupMember dm =
          new DescribeGroupsResponseData.DescribedGroupMember()
              .setMemberId(m.memberId())
              .setClientId(m.clientId())
              .setClientHost(m.clientHost())
              .setMemberMetadata(m.metadata().toByteArray())
              .setMemberAssignment(m.assignmentBytes().toByteArray());
      if (r.version() >= 4) {
        dm.setGroupInstanceId(m.instanceId().isEmpty() ? null : m.instanceId());
      }
      members.add(dm);
    }
    d.setGroupState(g.state())
        .setProtocolType(g.protocolType())
        .setProtocolData(g.assignor())
        .setMembers(members);
  }

  // ---------------------------------------------------------------- DeleteGroups

  public static List<String> deleteGroupsIds(KafkaRequest r) {
    DeleteGroupsRequestData req = r.body();
    return req.groupsNames();
  }

  public static KafkaResponse deleteGroupsToKafka(KafkaRequest r, List<GroupResult> results) {
    DeleteGroupsResponseData.DeletableGroupResultCollection out =
        new DeleteGroupsResponseData.DeletableGroupResultCollection();
    for (GroupResult g : results) {
      if (out.find(g.groupId()) == null) { // Kafka answers a repeated id once
        out.add(
            new DeleteGroupsResponseData.DeletableGroupResult()
                .setGroupId(g.groupId())
                .setErrorCode(KafkaErrors.code(g.error())));
      }
    }
    return r.respond(new DeleteGroupsResponseData().setThrottleTimeMs(0).setResults(out));
  }
}
