package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.client.TopicDescription;
import dev.spool.common.TopicPartition;
import dev.spool.testing.ClusterMode;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drain-and-remove story of docs/operations.md#draining-a-broker against node processes: three
 * combined nodes and broker 4. A topic placed on all four brokers, with records, is drained off
 * broker 4 ({@code spool cluster drain 4}): afterwards no partition names broker 4, each partition
 * keeps three replicas, every record is still readable, and once broker 4 is stopped {@code spool
 * cluster unregister 4} succeeds.
 */
@Tag("integration")
@SpoolClusterTest(nodes = 4, mode = ClusterMode.PROCESS, roles = "4=broker")
class DrainBrokerE2ETest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOPIC = "drained";
  private static final int RECORDS = 200;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void brokerFourIsDrainedWithItsRecordsThenUnregistered(ProcessCluster cluster) throws Exception {
    cluster.awaitReady(E2e.READY);
    List<TopicPartition> tps = E2e.createTopic(cluster, TOPIC, 4, Map.of());
    TreeSet<String> ledByFour = new TreeSet<>();
    int onFour = 0;
    for (TopicPartition tp : tps) {
      onFour += cluster.partitionReplicas(tp).contains(4) ? 1 : 0;
    }
    assertTrue(onFour > 0, "four partitions of three replicas on four brokers use broker 4");
    E2e.produceKeyed(cluster, TOPIC, RECORDS);
    // Broker 4 leads the partitions it is preferred leader of, so the drain has leaderships to
    // move.
    CliRunner.Result elect = E2e.cli(cluster, "cluster", "elect-leaders", "--topic", TOPIC);
    assertEquals(0, elect.exitCode(), elect.toString());
    TreeSet<String> preferredFour = new TreeSet<>();
    for (TopicDescription.PartitionDescription p :
        cluster.admin().describeTopic(TOPIC).get(30, TimeUnit.SECONDS).partitions()) {
      if (p.leader() == 4) {
        ledByFour.add(TOPIC + "-" + p.partition());
      }
      if (p.replicas().get(0) == 4) {
        preferredFour.add(TOPIC + "-" + p.partition());
      }
    }
    assertEquals(preferredFour, ledByFour, "after a preferred election");

    CliRunner.Result drain =
        E2e.cli(
            cluster,
            "cluster",
            "drain",
            "4",
            "--throttle",
            "10MB/s",
            "--timeout-ms",
            "60000",
            "--json");
    assertEquals(0, drain.exitCode(), drain.toString());
    JsonNode dj = JSON.readTree(drain.out());
    assertTrue(dj.path("complete").asBoolean(), drain.toString());
    assertTrue(dj.path("throttleCleared").asBoolean(), drain.toString());
    TreeSet<String> moved = new TreeSet<>();
    dj.path("leadershipsMoved").forEach(tp -> moved.add(tp.asText()));
    assertEquals(ledByFour, moved, drain.toString());
    assertTrue(dj.path("moves").size() >= onFour, drain.toString());
    for (TopicPartition tp : tps) {
      List<Integer> replicas = cluster.partitionReplicas(tp);
      assertFalse(replicas.contains(4), tp + " still on broker 4: " + replicas);
      assertEquals(3, replicas.size(), tp + ": " + replicas);
    }

    CliRunner.Result consumed =
        E2e.cli(
            cluster,
            "consume",
            TOPIC,
            "--from-beginning",
            "--output",
            "json",
            "--timeout-ms",
            "5000");
    assertEquals(RECORDS, consumed.outLines().size(), consumed.toString());

    cluster.node(4).stop();
    AtomicReference<CliRunner.Result> last = new AtomicReference<>();
    Awaitility.await()
        .atMost(E2e.READY)
        .until(
            () -> {
              // The controller counts a stopped broker alive until its session times out.
              CliRunner.Result r = E2e.cli(cluster, "cluster", "unregister", "4");
              last.set(r);
              return r.exitCode() != 3 && !r.err().contains("BROKER_ALIVE");
            });
    assertEquals(0, last.get().exitCode(), last.get().toString());
  }
}
