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
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code spool reassign} against node processes (docs/operations.md#moving-replicas): three
 * combined nodes and broker 4. A topic on 1..3 with records is planned onto 1, 2, 4, executed with
 * a throttle, followed with {@code status} until complete (which removes the throttle); broker 3
 * then holds none of its replicas and every record is still there. Needs the brokers'
 * AlterPartitionReassignments and ListPartitionReassignments handlers.
 */
@Tag("integration")
@SpoolClusterTest(nodes = 4, mode = ClusterMode.PROCESS, roles = "4=broker")
class ReassignE2ETest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOPIC = "moving";
  private static final int RECORDS = 200;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void aTopicMovesOffBrokerThreeWithItsRecords(ProcessCluster cluster) throws Exception {
    cluster.awaitReady(E2e.READY);
    // Broker 4 stopped while the topic is created, so it is placed on 1..3 only.
    cluster.node(4).stop();
    Awaitility.await().atMost(E2e.READY).until(() -> fenced(cluster, 4));
    List<TopicPartition> tps = E2e.createTopic(cluster, TOPIC, 3, Map.of());
    cluster.node(4).start();
    Awaitility.await().atMost(E2e.READY).until(() -> !fenced(cluster, 4));
    E2e.produceKeyed(cluster, TOPIC, RECORDS);

    CliRunner.Result plan =
        E2e.cli(
            cluster,
            "reassign",
            "plan",
            "--brokers",
            "1,2,4",
            "--topics",
            TOPIC,
            "--output",
            "move.json",
            "--json");
    assertEquals(0, plan.exitCode(), plan.toString());
    JsonNode proposed = JSON.readTree(plan.out()).path("proposed");
    assertEquals(3, proposed.path("partitions").size(), plan.toString());
    assertTrue(Files.exists(cluster.dir().resolve("move.json")));

    CliRunner.Result execute =
        E2e.cli(cluster, "reassign", "execute", "move.json", "--throttle", "10MB/s", "--json");
    assertEquals(0, execute.exitCode(), execute.toString());
    JsonNode ej = JSON.readTree(execute.out());
    assertEquals(10L * 1024 * 1024, ej.path("throttleBytesPerSec").asLong(), execute.toString());
    ej.path("partitions")
        .forEach(p -> assertEquals("NONE", p.path("error").asText(), p.toString()));

    AtomicReference<CliRunner.Result> last = new AtomicReference<>();
    try {
      Awaitility.await()
          .atMost(E2e.READY)
          .until(
              () -> {
                CliRunner.Result s = E2e.cli(cluster, "reassign", "status", "move.json", "--json");
                last.set(s);
                JsonNode sj = JSON.readTree(s.out());
                return s.exitCode() == 0
                    && sj.path("throttleCleared").asBoolean()
                    && allComplete(sj);
              });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("the plan did not complete; last status: " + last.get(), e);
    }
    for (TopicPartition tp : tps) {
      List<Integer> replicas = cluster.partitionReplicas(tp);
      assertFalse(replicas.contains(3), tp + " still on broker 3: " + replicas);
      assertEquals(3, replicas.size(), tp + ": " + replicas);
    }
    // The status that removed the throttle waited for its own broker's image; the next call may
    // ask another broker, whose image follows within a heartbeat.
    Awaitility.await()
        .atMost(E2e.READY)
        .until(
            () -> {
              CliRunner.Result after = E2e.cli(cluster, "reassign", "status", "--json");
              JsonNode aj = JSON.readTree(after.out());
              return after.exitCode() == 0
                  && aj.path("throttleBytesPerSec").asLong() == 0
                  && aj.path("partitions").isEmpty();
            });

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

    CliRunner.Result cancel = E2e.cli(cluster, "reassign", "cancel");
    assertEquals(0, cancel.exitCode(), cancel.toString());
    assertTrue(cancel.out().contains("No reassignment in progress"), cancel.toString());
  }

  private static boolean allComplete(JsonNode status) {
    for (JsonNode p : status.path("partitions")) {
      if (!p.path("state").asText().equals("complete")) {
        return false;
      }
    }
    return true;
  }

  private static boolean fenced(ProcessCluster cluster, int id) throws Exception {
    CliRunner.Result r = E2e.cli(cluster, "cluster", "status", "--json");
    for (JsonNode b : JSON.readTree(r.out()).path("brokers")) {
      if (b.path("id").asInt() == id) {
        return b.path("fenced").asBoolean();
      }
    }
    return false;
  }
}
