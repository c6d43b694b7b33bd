package dev.spool.chaos.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.testing.process.NodeAddresses;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The config of a Kafka node in a chaos run, without Kafka: combined roles, listeners only on the
 * addresses the harness's network gave the node (broker on DATA, controller on QUORUM), static
 * voters on the QUORUM addresses, and the workload's durability settings.
 */
@Tag("unit")
class KafkaNodeConfigTest {
  private static Map<Integer, NodeAddresses> namespaceLayout() {
    Map<Integer, NodeAddresses> m = new TreeMap<>();
    for (int id = 1; id <= 3; id++) {
      m.put(
          id,
          NodeAddresses.direct(
              id,
              new InetSocketAddress("10.87.5." + id, 9092),
              new InetSocketAddress("10.87.5." + (100 + id), 9093)));
    }
    return m;
  }

  @Test
  void shouldBindOnlyTheNodesOwnAddressesAndVoteOnTheQuorumPlane() {
    Map<String, String> p =
        KafkaNodeConfig.properties(2, namespaceLayout(), Path.of("/d/node-2/data"), Map.of());
    assertEquals("broker,controller", p.get("process.roles"));
    assertEquals("2", p.get("node.id"));
    assertEquals("PLAINTEXT://10.87.5.2:9092,CONTROLLER://10.87.5.102:9093", p.get("listeners"));
    assertEquals("PLAINTEXT://10.87.5.2:9092", p.get("advertised.listeners"));
    assertEquals(
        "1@10.87.5.101:9093,2@10.87.5.102:9093,3@10.87.5.103:9093",
        p.get("controller.quorum.voters"));
    assertEquals("/d/node-2/data", p.get("log.dirs"));
    String text = KafkaNodeConfig.render(p);
    assertFalse(text.contains("0.0.0.0"), text);
    assertFalse(text.contains("127.0.0.1"), text);
  }

  @Test
  void shouldAskOfKafkaWhatTheWorkloadAsksOfSpool() {
    Map<String, String> p =
        KafkaNodeConfig.properties(1, namespaceLayout(), Path.of("/d"), Map.of());
    assertEquals("3", p.get("default.replication.factor"));
    assertEquals("2", p.get("min.insync.replicas"));
    assertEquals("false", p.get("unclean.leader.election.enable"));
    assertEquals("false", p.get("auto.create.topics.enable"));
    assertFalse(p.containsKey("broker.session.timeout.ms"), "Kafka's own timeouts stay");
  }

  @Test
  void shouldLetExtraKeysOverrideTheDefaults() {
    Map<String, String> p =
        KafkaNodeConfig.properties(
            1, namespaceLayout(), Path.of("/d"), Map.of("min.insync.replicas", "1", "x.y", "z"));
    assertEquals("1", p.get("min.insync.replicas"));
    assertTrue(KafkaNodeConfig.render(p).contains("\nx.y=z\n"));
  }

  @Test
  void shouldDeriveAValidClusterIdFromTheSeed() {
    String id = KafkaCluster.clusterId(20261129);
    assertEquals(22, id.length());
    assertEquals(id, Uuid.fromString(id).toString());
    assertEquals(id, KafkaCluster.clusterId(20261129));
    assertNotEquals(id, KafkaCluster.clusterId(7));
  }
}
