package dev.spool.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.Broker;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.runtime.OffsetsTopic;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ConsumerGroupHeartbeatRequest;
import dev.spool.protocol.message.ConsumerGroupHeartbeatResponse;
import dev.spool.protocol.message.DeleteGroupsRequest;
import dev.spool.protocol.message.DeleteGroupsResponse;
import dev.spool.protocol.message.DescribeGroupsRequest;
import dev.spool.protocol.message.DescribeGroupsResponse;
import dev.spool.protocol.message.FindCoordinatorRequest;
import dev.spool.protocol.message.FindCoordinatorResponse;
import dev.spool.protocol.message.ListGroupsRequest;
import dev.spool.protocol.message.ListGroupsResponse;
import dev.spool.protocol.message.OffsetCommitRequest;
import dev.spool.protocol.message.OffsetCommitResponse;
import dev.spool.protocol.message.OffsetFetchRequest;
import dev.spool.protocol.message.OffsetFetchResponse;
import dev.spool.protocol.message.OwnedPartitions;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.protocol.message.Subscription;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.inprocess.InProcessCluster;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The group coordinator on three real brokers, over the wire: the offsets topic created on first
 * use, a member joining and committing through the coordinator FindCoordinator names, the group
 * APIs' error codes for bad input, and committed offsets surviving the coordinator's loss.
 */
@Tag("integration")
@SpoolClusterTest(
    nodes = 3,
    config = {
      "offsets.topic.num.partitions=3",
      "group.consumer.heartbeat.interval.ms=100",
      "group.consumer.session.timeout.ms=30000",
      // The bounded-offsets test: the smallest segments, a cleaner that looks often.
      "offsets.topic.segment.bytes=1048576",
      "log.cleaner.backoff.ms=100",
      "log.cleaner.dedupe.buffer.size=1048576"
    })
@Timeout(240)
class GroupCoordinatorIntegrationTest {
  private static final String TOPIC = "orders";
  private static final int PARTITIONS = 4;

  static InProcessCluster cluster;
  static TestClient client;

  @BeforeAll
  static void start(InProcessCluster c) {
    cluster = c;
    client = new TestClient();
    assertEquals(
        ErrorCode.NONE,
        client.createTopic(any(), TOPIC, PARTITIONS, 3).getTopics(0).getErrorCode());
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () -> {
              for (int id = 1; id <= cluster.size(); id++) {
                var t = cluster.broker(id).image().topic(TOPIC);
                if (t == null || t.partitions().size() != PARTITIONS) {
                  return false;
                }
              }
              return true;
            });
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  private static Broker any() {
    for (int id = 1; id <= cluster.size(); id++) {
      if (cluster.broker(id) != null) {
        return cluster.broker(id);
      }
    }
    throw new AssertionError("no broker running");
  }

  private static FindCoordinatorResponse.Coordinator find(Broker b, String group) {
    return client
        .call(
            b,
            ApiKey.FIND_COORDINATOR,
            FindCoordinatorRequest.newBuilder().addKeys(group).build(),
            FindCoordinatorResponse.class)
        .getCoordinators(0);
  }

  /**
   * Waits until FindCoordinator names a running broker whose shard of the group has loaded. A
   * lookup that fails (a call to a broker that is just stopping can time out) is asked again within
   * the same minute instead of ending the wait.
   */
  private static Broker coordinator(String group) {
    AtomicReference<Broker> out = new AtomicReference<>();
    Awaitility.await()
        .atMost(60, TimeUnit.SECONDS)
        .pollInterval(100, TimeUnit.MILLISECONDS)
        .ignoreExceptionsInstanceOf(AssertionError.class)
        .until(
            () -> {
              FindCoordinatorResponse.Coordinator c = find(any(), group);
              if (c.getErrorCode() != ErrorCode.NONE) {
                return false;
              }
              Broker b = cluster.broker(c.getNodeId());
              if (b == null || b.boundPort() != c.getPort()) {
                return false;
              }
              out.set(b);
              return b.groupCoordinator().isLoaded(b.groupCoordinator().partitionFor(group));
            });
    return out.get();
  }

  private static ConsumerGroupHeartbeatResponse heartbeat(
      Broker b, String group, String member, int epoch, Set<TopicPartition> owned) {
    ConsumerGroupHeartbeatRequest.Builder r =
        ConsumerGroupHeartbeatRequest.newBuilder()
            .setGroupId(group)
            .setMemberId(member)
            .setMemberEpoch(epoch);
    if (epoch == 0) {
      r.setRebalanceTimeoutMs(10_000)
          .setSubscription(Subscription.newBuilder().addTopicNames(TOPIC))
          .setServerAssignor("");
    }
    if (owned != null) {
      OwnedPartitions.Builder o = OwnedPartitions.newBuilder();
      Map<String, TopicPartitions.Builder> byTopic = new HashMap<>();
      for (TopicPartition tp : owned) {
        byTopic
            .computeIfAbsent(tp.topic(), t -> TopicPartitions.newBuilder().setTopic(t))
            .addPartitions(tp.partition());
      }
      byTopic.values().forEach(o::addTopics);
      r.setOwned(o);
    }
    return client.call(
        b, ApiKey.CONSUMER_GROUP_HEARTBEAT, r.build(), ConsumerGroupHeartbeatResponse.class);
  }

  private static Set<TopicPartition> assignment(ConsumerGroupHeartbeatResponse r) {
    Set<TopicPartition> out = new HashSet<>();
    for (TopicPartitions t : r.getAssignment().getTopicsList()) {
      t.getPartitionsList().forEach(p -> out.add(new TopicPartition(t.getTopic(), p)));
    }
    return out;
  }

  /** Joins {@code member} and heartbeats until it owns every partition; returns its epoch. */
  private static int joinAlone(Broker coord, String group, String member) {
    ConsumerGroupHeartbeatResponse r = heartbeat(coord, group, member, 0, Set.of());
    assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
    AtomicReference<Set<TopicPartition>> current = new AtomicReference<>(assignment(r));
    int[] epoch = {r.getMemberEpoch()};
    Set<TopicPartition> all = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      all.add(new TopicPartition(TOPIC, p));
    }
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () -> {
              if (current.get().equals(all)) {
                return true;
              }
              ConsumerGroupHeartbeatResponse h =
                  heartbeat(coord, group, member, epoch[0], current.get());
              assertEquals(ErrorCode.NONE, h.getErrorCode(), h.getErrorMessage());
              epoch[0] = h.getMemberEpoch();
              if (h.hasAssignment()) {
                current.set(assignment(h));
              }
              return current.get().equals(all);
            });
    return epoch[0];
  }

  private static OffsetCommitRequest commit(
      String group, String member, int epoch, long offset, String metadata) {
    OffsetCommitRequest.Topic.Builder t = OffsetCommitRequest.Topic.newBuilder().setName(TOPIC);
    for (int p = 0; p < PARTITIONS; p++) {
      t.addPartitions(
          OffsetCommitRequest.Partition.newBuilder()
              .setPartition(p)
              .setCommittedOffset(offset + p)
              .setCommittedLeaderEpoch(3)
              .setCommittedMetadata(metadata));
    }
    return OffsetCommitRequest.newBuilder()
        .setGroupId(group)
        .setMemberId(member)
        .setMemberEpoch(epoch)
        .addTopics(t)
        .build();
  }

  private static Set<ErrorCode> commitErrors(Broker b, OffsetCommitRequest r) {
    OffsetCommitResponse resp = client.call(b, ApiKey.OFFSET_COMMIT, r, OffsetCommitResponse.class);
    Set<ErrorCode> out = new HashSet<>();
    resp.getTopicsList()
        .forEach(t -> t.getPartitionsList().forEach(p -> out.add(p.getErrorCode())));
    assertEquals(PARTITIONS, resp.getTopics(0).getPartitionsCount());
    return out;
  }

  private static OffsetFetchResponse.Group fetch(Broker b, String group) {
    return client
        .call(
            b,
            ApiKey.OFFSET_FETCH,
            OffsetFetchRequest.newBuilder()
                .addGroups(
                    OffsetFetchRequest.Group.newBuilder().setGroupId(group).setMemberEpoch(-1))
                .build(),
            OffsetFetchResponse.class)
        .getGroups(0);
  }

  private static Map<Integer, Long> committed(OffsetFetchResponse.Group g) {
    Map<Integer, Long> out = new HashMap<>();
    for (OffsetFetchResponse.Topic t : g.getTopicsList()) {
      assertEquals(TOPIC, t.getName());
      t.getPartitionsList().forEach(p -> out.put(p.getPartition(), p.getCommittedOffset()));
    }
    return out;
  }

  private static Broker notCoordinator(Broker coord) {
    for (int id = 1; id <= cluster.size(); id++) {
      Broker b = cluster.broker(id);
      if (b != null && b != coord) {
        return b;
      }
    }
    throw new AssertionError("only the coordinator runs");
  }

  @Test
  void shouldCommitThroughTheCoordinatorAndRefuseBadCommitsWithTheirOwnCodes() {
    String group = "etl";
    Broker coord = coordinator(group);
    TopicPartition offsetsPartition = coord.groupCoordinator().partitionFor(group);
    assertEquals(OffsetsTopic.NAME, offsetsPartition.topic());
    assertEquals(3, coord.image().topic(OffsetsTopic.NAME).partitions().size());
    int epoch = joinAlone(coord, group, "member-a");

    assertEquals(
        Set.of(ErrorCode.NONE), commitErrors(coord, commit(group, "member-a", epoch, 100, "m")));
    OffsetFetchResponse.Group fetched = fetch(coord, group);
    assertEquals(ErrorCode.NONE, fetched.getErrorCode(), fetched.getErrorMessage());
    assertEquals(Map.of(0, 100L, 1, 101L, 2, 102L, 3, 103L), committed(fetched));
    assertEquals(3, fetched.getTopics(0).getPartitions(0).getCommittedLeaderEpoch());

    // Each bad commit gets its own code and moves nothing.
    assertEquals(
        Set.of(ErrorCode.NOT_COORDINATOR),
        commitErrors(notCoordinator(coord), commit(group, "member-a", epoch, 500, "")));
    assertEquals(
        Set.of(ErrorCode.OFFSET_METADATA_TOO_LARGE),
        commitErrors(coord, commit(group, "member-a", epoch, 500, "x".repeat(4097))));
    assertEquals(
        Set.of(ErrorCode.FENCED_MEMBER_EPOCH),
        commitErrors(coord, commit(group, "member-a", epoch + 1, 500, "")));
    assertEquals(
        Set.of(ErrorCode.UNKNOWN_MEMBER_ID),
        commitErrors(coord, commit(group, "nobody", epoch, 500, "")));
    assertEquals(
        Set.of(ErrorCode.NON_EMPTY_GROUP), commitErrors(coord, commit(group, "", -1, 500, "")));
    assertEquals(
        Set.of(ErrorCode.INVALID_GROUP_ID), commitErrors(coord, commit("", "", -1, 500, "")));
    assertEquals(Map.of(0, 100L, 1, 101L, 2, 102L, 3, 103L), committed(fetch(coord, group)));
    assertEquals(ErrorCode.NOT_COORDINATOR, fetch(notCoordinator(coord), group).getErrorCode());

    // A heartbeat from a member the group does not know, and one with an empty group id.
    assertEquals(
        ErrorCode.UNKNOWN_MEMBER_ID, heartbeat(coord, group, "ghost", 7, null).getErrorCode());
    assertEquals(
        ErrorCode.INVALID_GROUP_ID, heartbeat(coord, "", "ghost", 0, Set.of()).getErrorCode());
    assertEquals(ErrorCode.INVALID_GROUP_ID, find(coord, "").getErrorCode());

    // Nobody but the coordinator writes the offsets topic.
    ProduceResponse.PartitionResponse produced =
        client.produce(
            coord,
            OffsetsTopic.NAME,
            0,
            -1,
            new RecordBatchBuilder(64).append(1L, null, new byte[] {1}).build());
    assertEquals(ErrorCode.INVALID_TOPIC, produced.getErrorCode());
  }

  @Test
  void shouldListDescribeAndDeleteAGroupOnceItsMembersLeft() {
    String group = "dashboard";
    Broker coord = coordinator(group);
    int epoch = joinAlone(coord, group, "member-d");
    assertEquals(
        Set.of(ErrorCode.NONE), commitErrors(coord, commit(group, "member-d", epoch, 7, "")));

    DescribeGroupsResponse.Group described =
        client
            .call(
                coord,
                ApiKey.DESCRIBE_GROUPS,
                DescribeGroupsRequest.newBuilder().addGroupIds(group).build(),
                DescribeGroupsResponse.class)
            .getGroups(0);
    assertEquals(ErrorCode.NONE, described.getErrorCode(), described.getErrorMessage());
    assertEquals("Stable", described.getState());
    assertEquals(1, described.getMembersCount());
    assertEquals("member-d", described.getMembers(0).getMemberId());
    assertEquals(epoch, described.getMembers(0).getMemberEpoch());
    assertEquals("test-client", described.getMembers(0).getClientId());
    assertEquals("127.0.0.1", described.getMembers(0).getClientHost());

    ListGroupsResponse listed =
        client.call(
            coord,
            ApiKey.LIST_GROUPS,
            ListGroupsRequest.getDefaultInstance(),
            ListGroupsResponse.class);
    assertTrue(
        listed.getGroupsList().stream().anyMatch(g -> g.getGroupId().equals(group)),
        listed.toString());

    DeleteGroupsRequest delete = DeleteGroupsRequest.newBuilder().addGroupIds(group).build();
    assertEquals(
        ErrorCode.NON_EMPTY_GROUP,
        client
            .call(coord, ApiKey.DELETE_GROUPS, delete, DeleteGroupsResponse.class)
            .getResults(0)
            .getErrorCode());
    assertEquals(ErrorCode.NONE, heartbeat(coord, group, "member-d", -1, null).getErrorCode());
    DeleteGroupsResponse.Result deleted =
        client.call(coord, ApiKey.DELETE_GROUPS, delete, DeleteGroupsResponse.class).getResults(0);
    assertEquals(ErrorCode.NONE, deleted.getErrorCode(), deleted.getErrorMessage());
    assertEquals(Map.of(), committed(fetch(coord, group)));
  }

  @Test
  void shouldKeepEveryCommittedOffsetWhenTheCoordinatorStops() {
    String group = "billing";
    Broker coord = coordinator(group);
    int epoch = joinAlone(coord, group, "member-b");
    for (int i = 1; i <= 20; i++) {
      assertEquals(
          Set.of(ErrorCode.NONE),
          commitErrors(coord, commit(group, "member-b", epoch, i * 10, "")));
    }
    int stopped = coord.brokerId();
    cluster.stopBroker(stopped);
    try {
      Broker next = coordinator(group);
      assertNotEquals(stopped, next.brokerId());
      OffsetFetchResponse.Group g = fetch(next, group);
      assertEquals(ErrorCode.NONE, g.getErrorCode(), g.getErrorMessage());
      assertEquals(Map.of(0, 200L, 1, 201L, 2, 202L, 3, 203L), committed(g));
      // The member is still in the loaded group: it keeps its epoch with the new coordinator.
      ConsumerGroupHeartbeatResponse h = heartbeat(next, group, "member-b", epoch, null);
      assertEquals(ErrorCode.NONE, h.getErrorCode(), h.getErrorMessage());
      assertEquals(epoch, h.getMemberEpoch());
      assertEquals(
          Set.of(ErrorCode.NONE), commitErrors(next, commit(group, "member-b", epoch, 300, "")));
      assertEquals(Map.of(0, 300L, 1, 301L, 2, 302L, 3, 303L), committed(fetch(next, group)));
    } finally {
      cluster.startBroker(stopped);
    }
  }

  /** The largest size of {@code tp} over the running brokers that hold it. */
  private static long largestReplica(TopicPartition tp) {
    long max = 0;
    for (int id = 1; id <= cluster.size(); id++) {
      Broker b = cluster.broker(id);
      if (b != null) {
        max = Math.max(max, b.logManager().get(tp).map(l -> l.sizeInBytes()).orElse(0L));
      }
    }
    return max;
  }

  @Test
  void shouldKeepTheOffsetsPartitionBoundedUnderASteadyCommitLoadAndReloadTheLatest() {
    String group = "steady";
    Broker coord = coordinator(group);
    TopicPartition shard = coord.groupCoordinator().partitionFor(group);
    long segmentBytes = 1024 * 1024;
    long bound = 3 * segmentBytes;
    // Four keys (the partitions) rewritten over and over; 4 KB of metadata makes each commit
    // ~16 KB, so 64 commits fill a segment.
    String metadata = "m".repeat(4000);
    long written = 0;
    long offset = 0;
    while (written < 4 * bound) {
      for (int i = 0; i < 64; i++) {
        offset += 10;
        assertEquals(
            Set.of(ErrorCode.NONE), commitErrors(coord, commit(group, "", -1, offset, metadata)));
      }
      written += 64L * PARTITIONS * metadata.length();
      // The cleaner keeps up: every replica comes back under three segments, round after round.
      Awaitility.await()
          .atMost(30, TimeUnit.SECONDS)
          .pollInterval(100, TimeUnit.MILLISECONDS)
          .until(() -> largestReplica(shard) <= bound);
    }
    // A coordinator that loads the compacted partition finds the latest commit of every key.
    int stopped = coord.brokerId();
    cluster.stopBroker(stopped);
    try {
      Broker next = coordinator(group);
      long last = offset;
      assertEquals(
          Map.of(0, last, 1, last + 1, 2, last + 2, 3, last + 3), committed(fetch(next, group)));
    } finally {
      cluster.startBroker(stopped);
    }
  }
}
