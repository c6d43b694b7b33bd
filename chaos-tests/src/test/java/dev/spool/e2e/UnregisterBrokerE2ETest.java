package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spool.cli.CliRunner;
import dev.spool.common.TopicPartition;
import dev.spool.testing.ClusterMode;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code spool cluster unregister} against node processes (docs/operations.md#removing-a-broker):
 * three combined nodes and broker 4, which holds no replica. Refused while broker 4 runs
 * (BROKER_ALIVE) and for an unknown id; once it is stopped it is unregistered and {@code cluster
 * status} no longer lists it; started again it registers as a new broker. A stopped broker that
 * still holds replicas is refused with the count (BROKER_HAS_REPLICAS). One cluster throughout.
 */
@Tag("integration")
@SpoolClusterTest(nodes = 4, mode = ClusterMode.PROCESS, roles = "4=broker")
class UnregisterBrokerE2ETest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOPIC = "held";

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aStoppedBrokerWithNoReplicaIsUnregisteredAndTheOthersAreRefused(ProcessCluster cluster)
      throws Exception {
    cluster.awaitReady(E2e.READY);
    CliRunner.Result alive = E2e.cli(cluster, "cluster", "unregister", "4");
    assertEquals(1, alive.exitCode(), alive.toString());
    assertTrue(alive.err().contains("BROKER_ALIVE"), alive.toString());
    assertTrue(alive.err().contains("stop it first"), alive.toString());
    CliRunner.Result unknown = E2e.cli(cluster, "cluster", "unregister", "9", "--json");
    assertEquals(1, unknown.exitCode(), unknown.toString());
    assertTrue(unknown.err().contains("BROKER_ID_NOT_REGISTERED"), unknown.toString());
    assertTrue(brokerIds(cluster).contains(4), "refusals change nothing");

    // Stopped first, so the topic is placed on 1..3 only (a fenced broker gets no replica).
    cluster.node(4).stop();
    awaitFenced(cluster, 4);
    List<TopicPartition> tps = E2e.createTopic(cluster, TOPIC, 2, Map.of());
    for (TopicPartition tp : tps) {
      assertFalse(cluster.partitionReplicas(tp).contains(4), tp + " placed on broker 4");
    }

    CliRunner.Result done = awaitAnswerOtherThanAlive(cluster, 4);
    assertEquals(0, done.exitCode(), done.toString());
    JsonNode dj = JSON.readTree(done.out());
    assertEquals(4, dj.path("brokerId").asInt(), done.toString());
    assertTrue(dj.path("unregistered").asBoolean(), done.toString());
    assertFalse(brokerIds(cluster).contains(4), "status no longer lists broker 4");
    CliRunner.Result text = E2e.cli(cluster, "cluster", "status");
    assertFalse(text.out().contains("broker 4 "), text.out());

    // Broker 3 holds a replica of both partitions: stopped, it is still refused.
    cluster.node(3).kill();
    CliRunner.Result held = awaitAnswerOtherThanAlive(cluster, 3);
    assertEquals(1, held.exitCode(), held.toString());
    assertTrue(held.err().contains("BROKER_HAS_REPLICAS"), held.toString());
    assertTrue(
        held.err().contains("still a replica of 2 partitions (one is " + TOPIC + "-0)"),
        held.toString());
    assertTrue(held.err().contains("move its replicas off first"), held.toString());
    assertTrue(brokerIds(cluster).contains(3), "refused: broker 3 is still registered");

    // Kafka's behaviour: the unregistered id, started again, registers as a new broker.
    cluster.node(4).start();
    Awaitility.await()
        .atMost(E2e.READY)
        .until(
            () -> brokerIds(cluster).contains(4) && !broker(cluster, 4).path("fenced").asBoolean());
  }

  /**
   * Asks to unregister {@code id} until the answer is not BROKER_ALIVE: the active controller
   * counts a stopped broker alive until its session timeout has passed since its last heartbeat (or
   * since the controller's own start, after a failover).
   */
  private static CliRunner.Result awaitAnswerOtherThanAlive(ProcessCluster cluster, int id) {
    AtomicReference<CliRunner.Result> last = new AtomicReference<>();
    Awaitility.await()
        .atMost(E2e.READY)
        .until(
            () -> {
              CliRunner.Result r =
                  E2e.cli(cluster, "cluster", "unregister", String.valueOf(id), "--json");
              last.set(r);
              // A failover of the quorum (node 3 may lead it) answers as unreachable meanwhile.
              return r.exitCode() != 3
                  && !r.err().contains("BROKER_ALIVE")
                  && !r.err().contains("NOT_CONTROLLER");
            });
    return last.get();
  }

  private static void awaitFenced(ProcessCluster cluster, int id) {
    Awaitility.await()
        .atMost(E2e.READY)
        .until(() -> broker(cluster, id).path("fenced").asBoolean());
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

  private static List<Integer> brokerIds(ProcessCluster cluster) {
    List<Integer> ids = new ArrayList<>();
    status(cluster).get("brokers").forEach(b -> ids.add(b.get("id").asInt()));
    return ids;
  }

  private static JsonNode broker(ProcessCluster cluster, int id) {
    for (JsonNode b : status(cluster).get("brokers")) {
      if (b.get("id").asInt() == id) {
        return b;
      }
    }
    return JSON.createObjectNode();
  }
}
