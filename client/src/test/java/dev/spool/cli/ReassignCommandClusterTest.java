package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.testing.FakeBroker;
import dev.spool.client.testing.FakeCluster;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.DescribeLogsResponse;
import dev.spool.protocol.message.ListPartitionReassignmentsResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.protocol.message.TopicMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spool reassign} against scripted brokers ({@link FakeCluster}): three brokers in racks r1,
 * r2, r1; each answers Metadata, DescribeCluster, DescribeLogs and the two reassignment APIs from
 * the state the test sets, and records every AlterPartitionReassignments it gets.
 */
@Tag("integration")
@Timeout(60)
class ReassignCommandClusterTest {
  @TempDir Path dir;

  private FakeCluster cluster;

  /** topic → partition → replicas. */
  private final Map<String, Map<Integer, List<Integer>>> topics = new ConcurrentHashMap<>();

  /** The reassignments in progress. */
  private final List<ListPartitionReassignmentsResponse.Reassignment> moving =
      new CopyOnWriteArrayList<>();

  /** broker → partition → log end offset. */
  private final Map<Integer, Map<TopicPartition, Long>> logEnds = new ConcurrentHashMap<>();

  private final List<AlterPartitionReassignmentsRequest> alters = new CopyOnWriteArrayList<>();
  private volatile long throttle;

  @BeforeEach
  void start() {
    cluster = FakeCluster.start(3);
    for (FakeBroker b : cluster.brokers()) {
      b.handle(ApiKey.METADATA, (r, out) -> out.reply(metadata(r.body(MetadataRequest.class))));
      b.handle(ApiKey.DESCRIBE_CLUSTER, (r, out) -> out.reply(describeCluster()));
      b.handle(ApiKey.DESCRIBE_LOGS, (r, out) -> out.reply(describeLogs(b.nodeId())));
      b.handle(
          ApiKey.LIST_PARTITION_REASSIGNMENTS,
          (r, out) ->
              out.reply(
                  ListPartitionReassignmentsResponse.newBuilder()
                      .addAllPartitions(moving)
                      .setThrottleBytesPerSec(throttle)
                      .build()));
      b.handle(
          ApiKey.ALTER_PARTITION_REASSIGNMENTS,
          (r, out) -> out.reply(alter(r.body(AlterPartitionReassignmentsRequest.class))));
    }
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private CliRunner.Result run(String... args) {
    return new CliRunner(Map.of("SPOOL_BOOTSTRAP", cluster.bootstrap()), dir).run("", args);
  }

  private void topic(String name, List<List<Integer>> replicas) {
    Map<Integer, List<Integer>> parts = new TreeMap<>();
    for (int i = 0; i < replicas.size(); i++) {
      parts.put(i, replicas.get(i));
    }
    topics.put(name, parts);
  }

  private String planFile(String json) throws Exception {
    Files.writeString(dir.resolve("plan.json"), json);
    return "plan.json";
  }

  private static final String PLAN =
      "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":0,\"replicas\":[1,2]},"
          + "{\"topic\":\"a\",\"partition\":1,\"replicas\":[2,1]}]}";

  private static ListPartitionReassignmentsResponse.Reassignment moving(
      String topic, int partition, List<Integer> replicas, int adding, int removing, int leader) {
    return ListPartitionReassignmentsResponse.Reassignment.newBuilder()
        .setTopic(topic)
        .setPartition(partition)
        .addAllReplicas(replicas)
        .addAddingReplicas(adding)
        .addRemovingReplicas(removing)
        .addIsr(leader)
        .setLeader(leader)
        .build();
  }

  @Test
  void planMovesOnlyTheReplicasOffTheListedBrokersAndWritesKafkasFormat() throws Exception {
    topic("a", List.of(List.of(1, 2), List.of(3, 1)));
    CliRunner.Result r =
        run(
            "reassign",
            "plan",
            "--brokers",
            "1,2",
            "--topics",
            "a",
            "--output",
            "out.json",
            "--json");
    assertEquals(ExitCodes.OK, r.exitCode(), r.toString());
    Map<String, Object> json = Json.object(r.out());
    assertEquals(
        Json.parse(
            "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":1,\"replicas\":[3,1]}]}"),
        json.get("current"));
    String proposed =
        "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":1,\"replicas\":[2,1]}]}";
    assertEquals(Json.parse(proposed), json.get("proposed"));
    assertEquals(proposed + "\n", Files.readString(dir.resolve("out.json")));

    CliRunner.Result plain = run("reassign", "plan", "--brokers", "1,2", "--topics", "a");
    assertEquals(ExitCodes.OK, plain.exitCode(), plain.toString());
    assertTrue(plain.out().contains("Current partition replica assignment"), plain.toString());
    assertTrue(plain.out().contains(proposed), plain.toString());
  }

  @Test
  void planRefusesUnknownTopicsUnknownBrokersAndTooFewBrokers() {
    topic("a", List.of(List.of(1, 2)));
    CliRunner.Result topic = run("reassign", "plan", "--brokers", "1,2", "--topics", "a,zzz");
    assertEquals(ExitCodes.USAGE, topic.exitCode(), topic.toString());
    assertTrue(topic.err().contains("unknown topic 'zzz'"), topic.toString());
    CliRunner.Result broker = run("reassign", "plan", "--brokers", "1,9", "--topics", "a");
    assertEquals(ExitCodes.USAGE, broker.exitCode(), broker.toString());
    assertTrue(broker.err().contains("unregistered broker(s) [9]"), broker.toString());
    CliRunner.Result few = run("reassign", "plan", "--brokers", "3", "--topics", "a");
    assertEquals(ExitCodes.USAGE, few.exitCode(), few.toString());
    assertTrue(few.err().contains("has 2 replicas but --brokers lists only 1"), few.toString());
    assertFalse(Files.exists(dir.resolve("out.json")));
  }

  @Test
  void planRefusesTopicsWithAPartitionBeingMoved() {
    topic("a", List.of(List.of(1, 2), List.of(3, 1, 2)));
    moving.add(moving("a", 1, List.of(3, 1, 2), 3, 2, 1));
    CliRunner.Result r =
        run("reassign", "plan", "--brokers", "1,2", "--topics", "a", "--output", "out.json");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.toString());
    assertTrue(r.err().contains("partition a-1 is being reassigned now"), r.toString());
    assertFalse(Files.exists(dir.resolve("out.json")), "nothing written");
  }

  @Test
  void statusShowsTheStatesWithoutProgressWhenABrokerDoesNotAnswerDescribeLogs() throws Exception {
    String plan = planFile(PLAN);
    topic("a", List.of(List.of(1, 2), List.of(2, 1, 3)));
    moving.add(moving("a", 1, List.of(2, 1, 3), 2, 3, 1));
    cluster
        .broker(3)
        .handle(
            ApiKey.DESCRIBE_LOGS,
            (r, out) -> out.error(ErrorCode.UNKNOWN_SERVER_ERROR, "disk on fire"));
    CliRunner.Result r = run("reassign", "status", plan, "--timeout-ms", "2000");
    assertEquals(ExitCodes.OK, r.exitCode(), r.toString());
    assertTrue(r.err().contains("warning: no catch-up progress"), r.toString());
    assertTrue(r.out().contains("a-1: in progress"), r.toString());
    assertTrue(r.out().contains("broker 2: no log yet"), r.toString());
  }

  @Test
  void executeSubmitsThePlanWithTheThrottleAndReportsEachPartition() throws Exception {
    String plan =
        planFile(
            "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":1,\"replicas\":[2,1],"
                + "\"log_dirs\":[\"any\",\"any\"]},"
                + "{\"topic\":\"bad\",\"partition\":0,\"replicas\":[1,2]}]}");
    CliRunner.Result r = run("reassign", "execute", plan, "--throttle", "50MB/s", "--json");
    assertEquals(ExitCodes.FAILED, r.exitCode(), r.toString());
    assertEquals(1, alters.size());
    AlterPartitionReassignmentsRequest sent = alters.get(0);
    assertEquals(50L * 1024 * 1024, sent.getThrottleBytesPerSec());
    assertEquals(2, sent.getPartitionsCount());
    assertEquals(List.of(2, 1), sent.getPartitions(0).getReplicasList());
    assertFalse(sent.getPartitions(0).getCancel());
    Map<String, Object> json = Json.object(r.out());
    assertEquals(52428800L, json.get("throttleBytesPerSec"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> parts = (List<Map<String, Object>>) json.get("partitions");
    assertEquals("NONE", parts.get(0).get("error"));
    assertEquals("INVALID_REPLICA_ASSIGNMENT", parts.get(1).get("error"));

    String good =
        planFile(
            "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":1,\"replicas\":[2,1]}]}");
    CliRunner.Result ok = run("reassign", "execute", good);
    assertEquals(ExitCodes.OK, ok.exitCode(), ok.toString());
    assertFalse(alters.get(1).hasThrottleBytesPerSec(), "no --throttle leaves it as it is");
    assertTrue(ok.out().contains("a-1\tNONE"), ok.toString());
  }

  @Test
  void statusShowsEachPartitionWithCatchUpProgressThenRemovesTheThrottle() throws Exception {
    String plan = planFile(PLAN);
    topic("a", List.of(List.of(1, 2), List.of(2, 1, 3)));
    moving.add(moving("a", 1, List.of(2, 1, 3), 2, 3, 1));
    throttle = 1024;
    logEnds.put(1, Map.of(new TopicPartition("a", 1), 1000L));
    logEnds.put(2, Map.of(new TopicPartition("a", 1), 812L));
    CliRunner.Result r = run("reassign", "status", plan);
    assertEquals(ExitCodes.OK, r.exitCode(), r.toString());
    assertTrue(r.out().contains("a-0: complete, replicas [1, 2]"), r.toString());
    assertTrue(
        r.out().contains("a-1: in progress, replicas [2, 1, 3], adding [2], removing [3]"),
        r.toString());
    assertTrue(r.out().contains("broker 2: 812/1000 (81%)"), r.toString());
    assertTrue(r.out().contains("Replication throttle: 1KB/s"), r.toString());
    assertTrue(alters.isEmpty(), "nothing is changed while a partition moves");

    CliRunner.Result all = run("reassign", "status", "--json");
    Map<String, Object> json = Json.object(all.out());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> parts = (List<Map<String, Object>>) json.get("partitions");
    assertEquals(1, parts.size(), all.toString());
    assertEquals("in progress", parts.get(0).get("state"));
    assertEquals(
        List.of(Map.of("broker", 2L, "logEndOffset", 812L, "leaderLogEndOffset", 1000L)),
        parts.get(0).get("progress"));

    moving.clear();
    topic("a", List.of(List.of(1, 2), List.of(2, 1)));
    CliRunner.Result done = run("reassign", "status", plan, "--json");
    assertEquals(ExitCodes.OK, done.exitCode(), done.toString());
    Map<String, Object> doneJson = Json.object(done.out());
    assertEquals(true, doneJson.get("throttleCleared"), done.toString());
    assertEquals(1, alters.size());
    assertEquals(0, alters.get(0).getThrottleBytesPerSec());
    assertEquals(0, alters.get(0).getPartitionsCount());
  }

  @Test
  void statusSaysWhenAPartitionOfThePlanIsNotMovingAndNotThere() throws Exception {
    String plan = planFile(PLAN);
    topic("a", List.of(List.of(1, 2), List.of(3, 1)));
    throttle = 1024;
    CliRunner.Result r = run("reassign", "status", plan);
    assertEquals(ExitCodes.FAILED, r.exitCode(), r.toString());
    assertTrue(r.out().contains("a-1: failed/not started, replicas [3, 1]"), r.toString());
    assertTrue(alters.isEmpty(), "the throttle stays until the plan is complete");
  }

  @Test
  void cancelRevertsThePlansMovesAndKeepsTheThrottleWhileOthersMove() throws Exception {
    String plan = planFile(PLAN);
    topic("a", List.of(List.of(1, 2), List.of(2, 1, 3)));
    topic("b", List.of(List.of(1, 2, 3)));
    moving.add(moving("a", 1, List.of(2, 1, 3), 2, 3, 1));
    moving.add(moving("b", 0, List.of(1, 2, 3), 3, 2, 1));
    throttle = 1024;
    CliRunner.Result r = run("reassign", "cancel", plan, "--json");
    assertEquals(ExitCodes.OK, r.exitCode(), r.toString());
    AlterPartitionReassignmentsRequest sent = alters.get(0);
    assertFalse(sent.hasThrottleBytesPerSec(), "b-0 still moves under the throttle");
    assertEquals(2, sent.getPartitionsCount());
    assertTrue(
        sent.getPartitionsList().stream()
            .allMatch(p -> p.getCancel() && p.getReplicasCount() == 0));
    Map<String, Object> json = Json.object(r.out());
    assertEquals(false, json.get("throttleCleared"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> parts = (List<Map<String, Object>>) json.get("partitions");
    assertEquals("NO_REASSIGNMENT_IN_PROGRESS", parts.get(0).get("error"), "a-0 was not moving");
    assertEquals("NONE", parts.get(1).get("error"));

    CliRunner.Result everything = run("reassign", "cancel");
    assertEquals(ExitCodes.OK, everything.exitCode(), everything.toString());
    AlterPartitionReassignmentsRequest second = alters.get(1);
    assertEquals(0, second.getThrottleBytesPerSec());
    assertEquals(
        List.of("a", "b"), second.getPartitionsList().stream().map(p -> p.getTopic()).toList());
    assertTrue(
        everything.out().contains("Removed the replication throttle"), everything.toString());
  }

  // ------------------------------------------------------------------ the scripted brokers

  private AlterPartitionReassignmentsResponse alter(AlterPartitionReassignmentsRequest req) {
    alters.add(req);
    AlterPartitionReassignmentsResponse.Builder resp =
        AlterPartitionReassignmentsResponse.newBuilder();
    for (AlterPartitionReassignmentsRequest.Reassignment p : req.getPartitionsList()) {
      AlterPartitionReassignmentsResponse.Result.Builder res =
          AlterPartitionReassignmentsResponse.Result.newBuilder()
              .setTopic(p.getTopic())
              .setPartition(p.getPartition());
      boolean isMoving =
          moving.stream()
              .anyMatch(
                  m -> m.getTopic().equals(p.getTopic()) && m.getPartition() == p.getPartition());
      if (p.getTopic().equals("bad")) {
        res.setErrorCode(ErrorCode.INVALID_REPLICA_ASSIGNMENT)
            .setErrorMessage("broker 9 is fenced");
      } else if (p.getCancel() && !isMoving) {
        res.setErrorCode(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS).setErrorMessage("not moving");
      }
      resp.addPartitions(res);
    }
    return resp.build();
  }

  private List<BrokerInfo> brokers() {
    List<BrokerInfo> out = new ArrayList<>();
    for (FakeBroker b : cluster.brokers()) {
      out.add(
          BrokerInfo.newBuilder()
              .setNodeId(b.nodeId())
              .setHost("127.0.0.1")
              .setPort(b.port())
              .setBrokerEpoch(10 + b.nodeId())
              .setRack(b.nodeId() == 2 ? "r2" : "r1")
              .build());
    }
    return out;
  }

  private DescribeClusterResponse describeCluster() {
    return DescribeClusterResponse.newBuilder()
        .setClusterId("fake")
        .addAllBrokers(brokers())
        .setQuorum(QuorumInfo.newBuilder().setLeaderId(1).setTerm(1))
        .build();
  }

  private MetadataResponse metadata(MetadataRequest req) {
    MetadataResponse.Builder resp =
        MetadataResponse.newBuilder()
            .setClusterId("fake")
            .setControllerId(1)
            .addAllBrokers(brokers());
    List<String> names =
        req.getAllTopics() ? new ArrayList<>(new TreeMap<>(topics).keySet()) : req.getTopicsList();
    for (String name : names) {
      Map<Integer, List<Integer>> parts = topics.get(name);
      if (parts == null) {
        resp.addTopics(
            TopicMetadata.newBuilder()
                .setName(name)
                .setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      TopicMetadata.Builder t = TopicMetadata.newBuilder().setName(name).setTopicId(name + "-id");
      parts.forEach(
          (p, replicas) ->
              t.addPartitions(
                  PartitionMetadata.newBuilder()
                      .setPartition(p)
                      .setLeaderId(replicas.get(0))
                      .addAllReplicas(replicas)
                      .addAllIsr(replicas)));
      resp.addTopics(t);
    }
    return resp.build();
  }

  private DescribeLogsResponse describeLogs(int broker) {
    DescribeLogsResponse.Builder resp = DescribeLogsResponse.newBuilder().setBrokerId(broker);
    logEnds
        .getOrDefault(broker, Map.of())
        .forEach(
            (tp, leo) ->
                resp.addPartitions(
                    DescribeLogsResponse.ReplicaLog.newBuilder()
                        .setTopic(tp.topic())
                        .setPartition(tp.partition())
                        .setLogEndOffset(leo)));
    return resp.build();
  }
}
