package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.testing.ClusterMode;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A broker's storage fails for real under a running acks=all producer
 * (docs/architecture.md#storage-errors): the partition directory it leads is replaced by a file, so
 * the next segment roll gets an I/O error (ENOTDIR) from the file system, as on a disk that went
 * read-only or away, whoever runs the test (root ignores permissions, not file types). Three
 * broker-only nodes and a controller-only node, as {@link ReplicationE2ETest}.
 */
@Tag("integration")
@SpoolClusterTest(
    nodes = 4,
    mode = ClusterMode.PROCESS,
    roles = {"1=broker", "2=broker", "3=broker", "4=controller"})
class DiskFailureE2ETest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOPIC = "disk";

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void aFailedDirectoryMovesLeadershipToTheIsrAndLosesNoAcknowledgedWrite(ProcessCluster cluster)
      throws Exception {
    // Small segments: under load each partition rolls every second or two.
    List<TopicPartition> tps = E2e.createTopic(cluster, TOPIC, 3, Map.of("segment.bytes", "16384"));
    TopicPartition tp = tps.get(0);
    int victim = cluster.partitionLeader(tp).orElseThrow();
    List<Integer> isrBefore = cluster.newestView(tp).orElseThrow().getIsrList();
    Path dataDir = cluster.nodeDataDir(victim);
    Path partitionDir = dataDir.resolve(tp.topic() + "-" + tp.partition());
    Path aside = dataDir.resolve("set-aside-by-test");
    List<AckedLoad.Ack> acks;
    List<Throwable> failures;
    try (AckedLoad load = new AckedLoad(cluster.bootstrapServers(), TOPIC, 3, 20, 300, Map.of())) {
      assertTrue(load.awaitMoreAcks(300, Duration.ofSeconds(30)), "load running before the fault");

      Files.move(partitionDir, aside);
      Files.writeString(partitionDir, "a file where the broker's partition directory was\n");

      ProcessCluster.await(
          "broker " + victim + " reported its data directory offline",
          Duration.ofSeconds(30),
          () -> offlineDirs(cluster, victim).size() == 1,
          () -> status(cluster).toString());
      assertEquals(
          dataDir.toAbsolutePath().normalize(),
          Path.of(offlineDirs(cluster, victim).get(0)).toAbsolutePath().normalize());
      assertTrue(load.awaitMoreAcks(300, Duration.ofSeconds(60)), "sends go on after failover");
      assertTrue(cluster.isRunning(victim), "the broker keeps running (and its voter would)");
      String log = Files.readString(cluster.logFile(victim));
      assertTrue(
          log.contains("is OFFLINE") && log.contains("Not a directory"),
          "the file system's own error took the directory offline");
      for (TopicPartition p : tps) {
        PartitionMetadata m = cluster.newestView(p).orElseThrow();
        assertFalse(m.getIsrList().contains(victim), p + " ISR without the failed replica: " + m);
        assertNotEquals(victim, m.getLeaderId(), p + " led elsewhere: " + m);
        assertTrue(m.getOfflineReplicasList().contains(victim), p + " offline replica: " + m);
      }
      int newLeader = cluster.partitionLeader(tp).orElseThrow();
      assertTrue(
          isrBefore.contains(newLeader), "new leader " + newLeader + " from the ISR " + isrBefore);
      JsonNode broker = brokerStatus(cluster, victim);
      assertFalse(broker.get("ready").asBoolean(), broker.toString());
      CliRunner.Result text = E2e.cli(cluster, "cluster", "status");
      assertTrue(text.out().contains("DIR OFFLINE"), text.out());

      // The disk is replaced: a restart on a healthy directory brings the replicas back.
      cluster.stop(victim);
      Files.delete(partitionDir);
      Files.move(aside, partitionDir);
      cluster.start(victim);
      cluster.awaitReady(E2e.READY);
      cluster.awaitFullIsr(List.of(TOPIC), E2e.READY);
      assertEquals(List.of(), offlineDirs(cluster, victim), "a new registration is all online");
      assertTrue(load.awaitMoreAcks(100, Duration.ofSeconds(30)), "and after the restart");
      load.close();
      acks = load.acks();
      failures = load.failures();
    }
    ReadBack.assertNothingLostAndNoSendFailed(
        cluster, tps, acks, failures, "idempotent acks=all sends ride out the failed disk");
  }

  private static JsonNode status(ProcessCluster cluster) {
    CliRunner.Result r = E2e.cli(cluster, "cluster", "status", "--json");
    assertEquals(0, r.exitCode(), r.toString());
    try {
      return JSON.readTree(r.out());
    } catch (IOException e) {
      throw new AssertionError("cluster status --json printed no JSON: " + r, e);
    }
  }

  private static JsonNode brokerStatus(ProcessCluster cluster, int id) {
    for (JsonNode b : status(cluster).get("brokers")) {
      if (b.get("id").asInt() == id) {
        return b;
      }
    }
    throw new AssertionError("broker " + id + " is not in cluster status");
  }

  private static List<String> offlineDirs(ProcessCluster cluster, int id) {
    List<String> dirs = new ArrayList<>();
    brokerStatus(cluster, id).get("offlineDirs").forEach(d -> dirs.add(d.asText()));
    return dirs;
  }
}
