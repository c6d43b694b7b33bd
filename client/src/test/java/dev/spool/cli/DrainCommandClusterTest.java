package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.testing.FakeBroker;
import dev.spool.client.testing.FakeCluster;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.ListPartitionReassignmentsResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.protocol.message.TopicMetadata;
import dev.spool.protocol.message.TopicPartitions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spool cluster drain} against scripted brokers ({@link FakeCluster}): four brokers, 2 in
 * rack r2 and the others in r1, playing a small controller: a reorder or an election applies at
 * once; a move of data completes after {@link #metadataCallsPerMove} Metadata requests (never when
 * negative), as catching up would.
 */
@Tag("integration")
@Timeout(60)
class DrainCommandClusterTest {
  @TempDir Path dir;

  private FakeCluster cluster;

  /** A partition's state: replicas (preferred leader first), ISR, leader. */
  private record State(List<Integer> replicas, List<Integer> isr, int leader) {}

  /** topic → partition → state. */
  private final Map<String, Map<Integer, State>> topics = new ConcurrentHashMap<>();

  /** "topic-partition" → target, for moves in progress. */
  private final Map<String, List<Integer>> moving = new ConcurrentHashMap<>();

  private final Set<Integer> fenced = ConcurrentHashMap.newKeySet();
  private final List<AlterPartitionReassignmentsRequest> alters = new CopyOnWriteArrayList<>();
  private final List<ElectLeadersRequest> elections = new CopyOnWriteArrayList<>();
  private final AtomicInteger metadataCalls = new AtomicInteger();
  private volatile int metadataCallsPerMove;
  private volatile long throttle;

  @BeforeEach
  void start() {
    cluster = FakeCluster.start(4);
    for (FakeBroker b : cluster.brokers()) {
      b.handle(ApiKey.METADATA, (r, out) -> out.reply(metadata(r.body(MetadataRequest.class))));
      b.handle(ApiKey.DESCRIBE_CLUSTER, (r, out) -> out.reply(describeCluster()));
      b.handle(ApiKey.LIST_PARTITION_REASSIGNMENTS, (r, out) -> out.reply(listReassignments()));
      b.handle(
          ApiKey.ALTER_PARTITION_REASSIGNMENTS,
          (r, out) -> out.reply(alter(r.body(AlterPartitionReassignmentsRequest.class))));
      b.handle(
          ApiKey.ELECT_LEADERS, (r, out) -> out.reply(elect(r.body(ElectLeadersRequest.class))));
    }
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private CliRunner.Result run(String... args) {
    return new CliRunner(Map.of("SPOOL_BOOTSTRAP", cluster.bootstrap()), dir).run("", args);
  }

  private void partition(String topic, int p, List<Integer> replicas, List<Integer> isr) {
    topics
        .computeIfAbsent(topic, t -> new ConcurrentHashMap<>())
        .put(p, new State(replicas, isr, isr.get(0)));
  }

  private List<Integer> replicas(String topic, int p) {
    return topics.get(topic).get(p).replicas();
  }

  @Test
  void movesLeadershipsFirstThenEveryReplicaOffTheBrokerAndSaysWhatIsNext() {
    partition("a", 0, List.of(4, 1, 2), List.of(4, 1, 2));
    partition("a", 1, List.of(1, 4, 3), List.of(1, 4, 3));
    partition("a", 2, List.of(1, 2, 3), List.of(1, 2, 3));
    partition("__consumer_offsets", 0, List.of(4), List.of(4));
    metadataCallsPerMove = 3;
    CliRunner.Result r = run("cluster", "drain", "4", "--throttle", "1MB/s");
    assertEquals(ExitCodes.OK, r.exitCode(), r.toString());

    // leadership: a-0 reordered with 4 last, then a preferred election of a-0 only
    AlterPartitionReassignmentsRequest reorder = alters.get(0);
    assertEquals(1, reorder.getPartitionsCount(), reorder.toString());
    assertEquals(List.of(1, 2, 4), reorder.getPartitions(0).getReplicasList());
    assertFalse(reorder.hasThrottleBytesPerSec());
    assertEquals(1, elections.size());
    assertEquals(
        List.of(TopicPartitions.newBuilder().setTopic("a").addPartitions(0).build()),
        elections.get(0).getPartitionsList());
    // then the moves, with the throttle: only 4's replicas, each to a broker not holding it;
    // a-0 spans r1 and r2 already, so 4 goes to 3
    AlterPartitionReassignmentsRequest move = alters.get(1);
    assertEquals(1024 * 1024, move.getThrottleBytesPerSec());
    assertEquals(List.of(1, 2, 3), replicas("a", 0));
    assertEquals(1, replicas("a", 1).get(0), "a-1 keeps its preferred leader");
    assertFalse(replicas("a", 1).contains(4), replicas("a", 1).toString());
    assertEquals(List.of(1, 2, 3), replicas("a", 2), "a-2 is not touched");
    assertEquals(1, replicas("__consumer_offsets", 0).size());
    assertFalse(replicas("__consumer_offsets", 0).contains(4));
    assertEquals(3, move.getPartitionsCount(), move.toString());

    assertTrue(r.out().contains("Moved the leadership of a-0 off broker 4"), r.toString());
    assertTrue(
        r.out().contains("Could not move the leadership of __consumer_offsets-0"), r.toString());
    assertTrue(r.out().contains("partition(s) still name broker 4"), r.toString());
    assertTrue(r.out().contains("Removed the replication throttle"), r.toString());
    assertTrue(
        r.out().contains("stop the broker, then 'spool cluster unregister 4'"), r.toString());
    assertEquals(0, alters.get(2).getThrottleBytesPerSec(), "the throttle it set is cleared");
  }

  @Test
  void jsonReportsLeadershipsMovesAndCompletion() {
    partition("a", 0, List.of(4, 1), List.of(4));
    partition("a", 1, List.of(2, 4), List.of(2, 4));
    CliRunner.Result r = run("cluster", "drain", "4", "--json");
    assertEquals(ExitCodes.OK, r.exitCode(), r.toString());
    Map<String, Object> json = Json.object(r.out());
    assertEquals(4L, json.get("broker"));
    assertEquals(List.of(), json.get("leadershipsMoved"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> notMoved =
        (List<Map<String, Object>>) json.get("leadershipsNotMoved");
    assertEquals(1, notMoved.size(), r.toString());
    assertEquals("a-0", notMoved.get(0).get("partition"));
    assertTrue(
        notMoved.get(0).get("reason").toString().contains("no other in-sync replica"),
        r.toString());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> moves = (List<Map<String, Object>>) json.get("moves");
    assertEquals(2, moves.size(), r.toString());
    assertEquals(true, json.get("complete"));
    assertEquals(null, json.get("throttleBytesPerSec"));
    assertEquals(false, json.get("throttleCleared"));
    assertTrue(elections.isEmpty(), "no election without a reorder");
  }

  @Test
  void aFencedBrokerKeepsItsReplicaAndTakesNoNewOne() {
    fenced.add(3);
    partition("a", 0, List.of(1, 3, 4), List.of(1, 4));
    CliRunner.Result r = run("cluster", "drain", "4");
    assertEquals(ExitCodes.OK, r.exitCode(), r.toString());
    assertEquals(List.of(1, 3, 2), replicas("a", 0));
  }

  @Test
  void refusesAnUnregisteredBrokerAndChangesNothing() {
    partition("a", 0, List.of(4, 1, 2), List.of(4, 1, 2));
    CliRunner.Result r = run("cluster", "drain", "9");
    assertEquals(ExitCodes.FAILED, r.exitCode(), r.toString());
    assertTrue(r.err().contains("BROKER_ID_NOT_REGISTERED: broker 9"), r.toString());
    assertTrue(r.err().contains("nothing changed"), r.toString());
    assertTrue(alters.isEmpty() && elections.isEmpty());
    assertEquals("", r.out());
  }

  @Test
  void refusesWhenNoOtherLiveBrokerCouldTakeAReplicaAndSaysWhich() {
    fenced.add(3);
    partition("a", 0, List.of(4, 1), List.of(4, 1));
    partition("b", 0, List.of(1, 2, 3, 4), List.of(1, 2, 4));
    CliRunner.Result r = run("cluster", "drain", "4");
    assertEquals(ExitCodes.FAILED, r.exitCode(), r.toString());
    assertTrue(r.err().contains("partition b-0 has replication factor 4"), r.toString());
    assertTrue(r.err().contains("no other live broker could take broker 4's"), r.toString());
    assertTrue(alters.isEmpty() && elections.isEmpty(), "leadership of a-0 did not move either");
  }

  @Test
  void refusesWhileAPartitionIsBeingMovedOntoTheBroker() {
    partition("a", 0, List.of(1, 2, 4), List.of(1, 2));
    moving.put("a-0", List.of(1, 4));
    metadataCallsPerMove = -1;
    CliRunner.Result r = run("cluster", "drain", "4");
    assertEquals(ExitCodes.FAILED, r.exitCode(), r.toString());
    assertTrue(r.err().contains("partition a-0 is being reassigned with broker 4"), r.toString());
    assertTrue(alters.isEmpty());
  }

  @Test
  void badArgumentsAreUsageErrors() {
    assertEquals(ExitCodes.USAGE, run("cluster", "drain").exitCode());
    assertEquals(ExitCodes.USAGE, run("cluster", "drain", "--", "-1").exitCode());
    CliRunner.Result rate = run("cluster", "drain", "4", "--throttle", "fast");
    assertEquals(ExitCodes.USAGE, rate.exitCode(), rate.toString());
    assertTrue(rate.err().contains("--throttle must be"), rate.toString());
    assertTrue(alters.isEmpty());
    CliRunner.Result help = run("cluster", "--help");
    assertTrue(help.out().contains("drain"), help.toString());
  }

  @Test
  void timesOutSayingWhatIsLeftAndNoWaitReturnsAtOnce() {
    partition("a", 0, List.of(1, 4), List.of(1, 4));
    metadataCallsPerMove = -1;
    CliRunner.Result nowait = run("cluster", "drain", "4", "--no-wait", "--json");
    assertEquals(ExitCodes.OK, nowait.exitCode(), nowait.toString());
    assertEquals(false, Json.object(nowait.out()).get("complete"));

    CliRunner.Result r = run("cluster", "drain", "4", "--timeout-ms", "300");
    assertEquals(ExitCodes.UNREACHABLE, r.exitCode(), r.toString());
    assertTrue(
        r.err().contains("timed out with 1 partition(s) still naming broker 4"), r.toString());
    assertTrue(r.err().contains("[a-0]"), r.toString());
    assertEquals(1, alters.size(), "the second drain waits for the move already under way");
  }

  // ------------------------------------------------------------------ the scripted brokers

  private synchronized void progress() {
    int per = metadataCallsPerMove;
    if (per < 0 || moving.isEmpty() || metadataCalls.incrementAndGet() < per) {
      return;
    }
    metadataCalls.set(0);
    moving.forEach(
        (key, target) -> {
          int dash = key.lastIndexOf('-');
          String t = key.substring(0, dash);
          int p = Integer.parseInt(key.substring(dash + 1));
          State s = topics.get(t).get(p);
          int leader = target.contains(s.leader()) ? s.leader() : target.get(0);
          topics.get(t).put(p, new State(target, target, leader));
        });
    moving.clear();
  }

  private synchronized AlterPartitionReassignmentsResponse alter(
      AlterPartitionReassignmentsRequest req) {
    alters.add(req);
    if (req.hasThrottleBytesPerSec()) {
      throttle = req.getThrottleBytesPerSec();
    }
    AlterPartitionReassignmentsResponse.Builder resp =
        AlterPartitionReassignmentsResponse.newBuilder();
    for (AlterPartitionReassignmentsRequest.Reassignment p : req.getPartitionsList()) {
      State s = topics.get(p.getTopic()).get(p.getPartition());
      List<Integer> target = p.getReplicasList();
      AlterPartitionReassignmentsResponse.Result.Builder res =
          AlterPartitionReassignmentsResponse.Result.newBuilder()
              .setTopic(p.getTopic())
              .setPartition(p.getPartition());
      if (target.stream().anyMatch(b -> fenced.contains(b) && !s.replicas().contains(b))) {
        res.setErrorCode(ErrorCode.INVALID_REPLICA_ASSIGNMENT).setErrorMessage("fenced");
      } else if (Set.copyOf(target).equals(Set.copyOf(s.replicas()))) {
        topics.get(p.getTopic()).put(p.getPartition(), new State(target, s.isr(), s.leader()));
      } else if (metadataCallsPerMove == 0) {
        int leader = target.contains(s.leader()) ? s.leader() : target.get(0);
        topics.get(p.getTopic()).put(p.getPartition(), new State(target, target, leader));
      } else {
        List<Integer> all = new ArrayList<>(target);
        s.replicas().stream().filter(b -> !target.contains(b)).forEach(all::add);
        topics.get(p.getTopic()).put(p.getPartition(), new State(all, s.isr(), s.leader()));
        moving.put(p.getTopic() + "-" + p.getPartition(), target);
      }
      resp.addPartitions(res);
    }
    return resp.build();
  }

  private synchronized ElectLeadersResponse elect(ElectLeadersRequest req) {
    elections.add(req);
    ElectLeadersResponse.Builder resp = ElectLeadersResponse.newBuilder();
    for (TopicPartitions tps : req.getPartitionsList()) {
      for (int p : tps.getPartitionsList()) {
        State s = topics.get(tps.getTopic()).get(p);
        int preferred = s.replicas().get(0);
        ElectLeadersResponse.Result.Builder res =
            ElectLeadersResponse.Result.newBuilder().setTopic(tps.getTopic()).setPartition(p);
        if (s.isr().contains(preferred)) {
          topics.get(tps.getTopic()).put(p, new State(s.replicas(), s.isr(), preferred));
        } else {
          res.setErrorCode(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE).setErrorMessage("not in ISR");
        }
        resp.addResults(res);
      }
    }
    return resp.build();
  }

  private synchronized ListPartitionReassignmentsResponse listReassignments() {
    ListPartitionReassignmentsResponse.Builder resp =
        ListPartitionReassignmentsResponse.newBuilder().setThrottleBytesPerSec(throttle);
    moving.forEach(
        (key, target) -> {
          int dash = key.lastIndexOf('-');
          String t = key.substring(0, dash);
          int p = Integer.parseInt(key.substring(dash + 1));
          State s = topics.get(t).get(p);
          List<Integer> all = new ArrayList<>(target);
          s.replicas().stream().filter(b -> !target.contains(b)).forEach(all::add);
          resp.addPartitions(
              ListPartitionReassignmentsResponse.Reassignment.newBuilder()
                  .setTopic(t)
                  .setPartition(p)
                  .addAllReplicas(all)
                  .addAllAddingReplicas(
                      target.stream().filter(b -> !s.replicas().contains(b)).toList())
                  .addAllRemovingReplicas(all.stream().filter(b -> !target.contains(b)).toList())
                  .addAllIsr(s.isr())
                  .setLeader(s.leader()));
        });
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
              .setFenced(fenced.contains(b.nodeId()))
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

  private synchronized MetadataResponse metadata(MetadataRequest req) {
    progress();
    MetadataResponse.Builder resp =
        MetadataResponse.newBuilder()
            .setClusterId("fake")
            .setControllerId(1)
            .addAllBrokers(brokers());
    List<String> names =
        req.getAllTopics() ? new ArrayList<>(new TreeMap<>(topics).keySet()) : req.getTopicsList();
    for (String name : names) {
      Map<Integer, State> parts = topics.get(name);
      if (parts == null) {
        resp.addTopics(
            TopicMetadata.newBuilder()
                .setName(name)
                .setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      TopicMetadata.Builder t = TopicMetadata.newBuilder().setName(name).setTopicId(name + "-id");
      new TreeMap<>(parts)
          .forEach(
              (p, s) ->
                  t.addPartitions(
                      PartitionMetadata.newBuilder()
                          .setPartition(p)
                          .setLeaderId(s.leader())
                          .addAllReplicas(s.replicas())
                          .addAllIsr(s.isr())));
      resp.addTopics(t);
    }
    return resp.build();
  }
}
