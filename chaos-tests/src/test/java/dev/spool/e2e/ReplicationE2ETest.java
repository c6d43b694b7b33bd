package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.cluster.ReplicaLogs;
import dev.spool.chaos.history.BatchSummary;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.ProduceException;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.testing.ClusterMode;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Replication against real node processes: three broker-only nodes and one controller-only node (so
 * stopping two brokers leaves the quorum standing). One cluster for the class; every test leaves
 * all brokers running with full ISRs.
 */
@Tag("integration")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SpoolClusterTest(
    nodes = 4,
    mode = ClusterMode.PROCESS,
    roles = {"1=broker", "2=broker", "3=broker", "4=controller"})
class ReplicationE2ETest {
  private static ProcessCluster cluster;

  @BeforeAll
  static void cluster(ProcessCluster c) {
    cluster = c;
  }

  /** A failed test must not leave brokers down for the next one. */
  @BeforeEach
  void everyNodeUp() {
    for (int n : cluster.nodes()) {
      if (!cluster.isRunning(n)) {
        cluster.start(n);
      } else if (!cluster.isServing(n)) {
        cluster.kill(n, Signal.CONT);
      }
    }
    cluster.awaitReady(E2e.READY);
  }

  private static Map<String, String> props(String... kv) {
    Map<String, String> m = new HashMap<>();
    m.put("bootstrap.servers", cluster.bootstrapServers());
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private static ProducerRecord record(String topic, String value) {
    return new ProducerRecord(
        topic, 0, null, value.getBytes(StandardCharsets.UTF_8), List.of(), null);
  }

  @Test
  @Order(1)
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void shouldKeepEveryAcknowledgedWriteWhenThePartitionLeaderIsKilled() throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "killed", 3, Map.of());
    int leader = cluster.partitionLeader(tps.get(0)).orElseThrow();
    List<AckedLoad.Ack> acks;
    List<Throwable> failures;
    try (AckedLoad load =
        new AckedLoad(cluster.bootstrapServers(), "killed", 3, 20, 300, Map.of())) {
      assertTrue(load.awaitMoreAcks(300, Duration.ofSeconds(30)), "load running before the kill");
      cluster.kill(leader, Signal.KILL);
      int before = load.acked();
      assertTrue(
          load.awaitMoreAcks(300, Duration.ofSeconds(60)), "writes acknowledged after the kill");
      assertNotEquals(leader, cluster.partitionLeader(tps.get(0)).orElseThrow(), "a new leader");
      cluster.start(leader);
      cluster.awaitReady(E2e.READY);
      cluster.awaitFullIsr(List.of("killed"), E2e.READY);
      assertTrue(load.awaitMoreAcks(100, Duration.ofSeconds(30)), "and after the restart");
      assertTrue(load.acked() > before);
      load.close();
      acks = load.acks();
      failures = load.failures();
    }
    ReadBack.assertNothingLostAndNoSendFailed(
        cluster, tps, acks, failures, "idempotent acks=all sends ride out a leader kill");
  }

  @Test
  @Order(2)
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void shouldRefuseAcksAllBelowMinIsrButTakeAcksOne() throws Exception {
    List<TopicPartition> tps =
        E2e.createTopic(cluster, "minisr", 1, Map.of("min.insync.replicas", "2"));
    TopicPartition tp = tps.get(0);
    int leader = cluster.partitionLeader(tp).orElseThrow();
    List<Integer> followers =
        cluster.partitionReplicas(tp).stream().filter(n -> n != leader).toList();
    cluster.kill(followers.get(0), Signal.KILL);
    cluster.stop(followers.get(1));
    ProcessCluster.await(
        "ISR of " + tp + " down to its leader",
        Duration.ofSeconds(30),
        () -> cluster.newestView(tp).map(p -> p.getIsrList().equals(List.of(leader))).orElse(false),
        () -> String.valueOf(cluster.newestView(tp)));

    // Without retries the broker's answer reaches the application as it is.
    try (Producer all =
        new Producer(
            props(
                "acks", "all", "linger.ms", "0", "enable.idempotence", "false", "retries", "0"))) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> all.send(record("minisr", "refused")).get(30, TimeUnit.SECONDS));
      ProduceException pe = assertInstanceOf(ProduceException.class, e.getCause());
      assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, pe.errorCode(), pe.getMessage());
      assertFalse(pe.mayHaveBeenAppended(), pe.getMessage());
    }
    // The default (idempotent, retrying) producer gives up after its delivery timeout, and can
    // still
    // tell that no attempt was appended.
    try (Producer all =
        new Producer(
            props(
                "acks",
                "all",
                "linger.ms",
                "0",
                "request.timeout.ms",
                "2000",
                "delivery.timeout.ms",
                "4000"))) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> all.send(record("minisr", "refused again")).get(30, TimeUnit.SECONDS));
      ProduceException pe = assertInstanceOf(ProduceException.class, e.getCause());
      assertFalse(
          pe.mayHaveBeenAppended(),
          "every attempt was refused before appending: " + pe.getMessage());
    }
    try (Producer one = new Producer(props("acks", "1", "linger.ms", "0"))) {
      assertEquals(0, one.send(record("minisr", "acks=1")).get(30, TimeUnit.SECONDS).offset());
    }

    followers.forEach(cluster::start);
    cluster.awaitReady(E2e.READY);
    cluster.awaitFullIsr(List.of("minisr"), E2e.READY);
    try (Producer all = new Producer(props("acks", "all", "linger.ms", "0"))) {
      assertEquals(
          1, all.send(record("minisr", "acks=all again")).get(30, TimeUnit.SECONDS).offset());
    }
    List<String> values =
        ReadBack.readAll(cluster, tps).get(tp).stream().map(ConsumerRecord::valueAsString).toList();
    assertEquals(List.of("acks=1", "acks=all again"), values, "the refused record is nowhere");
  }

  @Test
  @Order(3)
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void shouldNotFailASingleSendWhenALeaderShutsDownCleanly() throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "graceful", 3, Map.of());
    int leader = cluster.partitionLeader(tps.get(0)).orElseThrow();
    List<AckedLoad.Ack> acks;
    List<Throwable> failures;
    try (AckedLoad load =
        new AckedLoad(cluster.bootstrapServers(), "graceful", 3, 20, 300, Map.of())) {
      assertTrue(load.awaitMoreAcks(300, Duration.ofSeconds(30)));
      cluster.stop(leader); // SIGTERM: controlled shutdown moves its leaderships first
      assertEquals(0, cluster.isRunning(leader) ? 1 : 0);
      assertTrue(load.awaitMoreAcks(300, Duration.ofSeconds(60)), "writes go on while it is down");
      cluster.start(leader);
      cluster.awaitReady(E2e.READY);
      cluster.awaitFullIsr(List.of("graceful"), E2e.READY);
      assertTrue(load.awaitMoreAcks(100, Duration.ofSeconds(30)));
      load.close();
      acks = load.acks();
      failures = load.failures();
    }
    assertEquals(
        List.of(), failures.stream().map(Throwable::toString).toList(), "zero failed sends");
    ReadBack.assertEveryAckReadOnceAtItsOffset(acks, ReadBack.readAll(cluster, tps));
  }

  /**
   * A follower goes down fully caught up in epoch E; the leadership moves on to epoch E' > E and
   * more is written; while it is down, a batch of epoch E is appended to its log files (a tail no
   * leader ever had). On restart it must find the divergence through the leader's epoch history,
   * truncate that tail, catch up and rejoin the ISR, so that all three logs agree below the high
   * watermark. Last in the class: it stops the cluster to read the logs.
   */
  @Test
  @Order(4)
  @Timeout(value = 200, unit = TimeUnit.SECONDS)
  void shouldTruncateADivergedFollowerTailAndRejoinTheIsr() throws Exception {
    List<TopicPartition> tps = E2e.createTopic(cluster, "diverge", 1, Map.of());
    TopicPartition tp = tps.get(0);
    PartitionMetadata start = cluster.newestView(tp).orElseThrow();
    int leader = start.getLeaderId();
    int follower =
        start.getReplicasList().stream().filter(n -> n != leader).findFirst().orElseThrow();
    try (Producer p = new Producer(props("linger.ms", "0"))) {
      for (int i = 0; i < 20; i++) {
        p.send(record("diverge", "epoch-1 " + i)).get(30, TimeUnit.SECONDS);
      }
    }
    cluster.awaitFullIsr(List.of("diverge"), E2e.READY);
    cluster.kill(follower, Signal.KILL);
    Path scratch = cluster.dir().resolve("scratch");
    ReplicaLogs.Replica down =
        ReplicaLogs.read(follower, cluster.nodeDataDir(follower), scratch).get(tp);
    assertEquals(20, down.logEndOffset(), "the follower had everything");
    int oldEpoch = down.batches().get(down.batches().size() - 1).leaderEpoch();

    cluster.stop(leader); // the leadership moves to the third replica in a new epoch
    cluster.start(leader);
    cluster.awaitReady(E2e.READY);
    ProcessCluster.await(
        "old leader back in the ISR",
        E2e.READY,
        () -> cluster.newestView(tp).map(m -> m.getIsrCount() == 2).orElse(false),
        () -> String.valueOf(cluster.newestView(tp)));
    int newEpoch = cluster.newestView(tp).orElseThrow().getLeaderEpoch();
    assertTrue(newEpoch > oldEpoch);
    try (Producer p = new Producer(props("linger.ms", "0"))) {
      for (int i = 0; i < 20; i++) {
        p.send(record("diverge", "epoch-2 " + i)).get(30, TimeUnit.SECONDS);
      }
    }

    appendForeignBatch(cluster.nodeDataDir(follower).resolve(tp.toString()), 20, oldEpoch);
    ReplicaLogs.Replica diverged =
        ReplicaLogs.read(follower, cluster.nodeDataDir(follower), scratch).get(tp);
    assertEquals(23, diverged.logEndOffset(), "recovery keeps the foreign batch: its CRC is valid");

    cluster.start(follower);
    cluster.awaitReady(E2e.READY);
    cluster.awaitFullIsr(List.of("diverge"), E2e.READY);
    assertTrue(
        cluster.newestView(tp).orElseThrow().getIsrList().contains(follower), "rejoined the ISR");
    List<String> values =
        ReadBack.readAll(cluster, tps).get(tp).stream().map(ConsumerRecord::valueAsString).toList();
    assertEquals(40, values.size());
    assertFalse(values.stream().anyMatch(v -> v.startsWith("foreign")), values.toString());

    cluster.stop();
    Map<Integer, Map<TopicPartition, ReplicaLogs.Replica>> logs =
        ReadBack.assertReplicasIdenticalBelowHighWatermark(cluster, "diverge", scratch);
    ReplicaLogs.Replica after = logs.get(follower).get(tp);
    assertEquals(40, after.highWatermark());
    BatchSummary at20 =
        after.batches().stream().filter(b -> b.baseOffset() == 20).findFirst().orElseThrow();
    // The foreign batch carries the old epoch; a leader of any later epoch (the controller may have
    // moved leadership back to the preferred replica since newEpoch was read) wrote what is there.
    assertTrue(
        at20.leaderEpoch() >= newEpoch,
        "offset 20 now holds a new leader's batch, epoch " + at20.leaderEpoch());
    for (String topic : List.of("killed", "minisr", "graceful")) {
      ReadBack.assertReplicasIdenticalBelowHighWatermark(cluster, topic, scratch);
    }
  }

  /**
   * Appends a valid batch of three records at {@code baseOffset} in {@code epoch} to the newest
   * segment.
   */
  private static void appendForeignBatch(Path partitionDir, long baseOffset, int epoch)
      throws Exception {
    Path segment;
    try (Stream<Path> files = Files.list(partitionDir)) {
      segment =
          files
              .filter(f -> f.getFileName().toString().endsWith(".log"))
              .max(Path::compareTo)
              .orElseThrow();
    }
    RecordBatchBuilder b =
        new RecordBatchBuilder(512).baseOffset(baseOffset).partitionLeaderEpoch(epoch);
    for (int i = 0; i < 3; i++) {
      b.append(System.currentTimeMillis(), null, ("foreign " + i).getBytes(StandardCharsets.UTF_8));
    }
    ByteBuffer bytes = b.build();
    try (FileChannel ch =
        FileChannel.open(segment, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      while (bytes.hasRemaining()) {
        ch.write(bytes);
      }
    }
  }
}
