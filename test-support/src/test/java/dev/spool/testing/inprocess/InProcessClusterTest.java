package dev.spool.testing.inprocess;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.NewTopic;
import dev.spool.common.TopicPartition;
import dev.spool.testing.ClusterNode;
import dev.spool.testing.SpoolClusterTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Nodes of an in-process cluster stop, die and come back on their old ports and data. */
@Tag("integration")
@SpoolClusterTest(nodes = 3)
class InProcessClusterTest {
  private static final Duration READY = Duration.ofSeconds(60);

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldKillStopAndRestartNodesOnTheirOldPortsAndData(InProcessCluster c) throws Exception {
    String bootstrap = c.bootstrapServers();
    assertEquals(List.of(1, 2, 3), c.controllers());
    c.admin().createTopic(new NewTopic("kept", 1, 3, Map.of())).get(30, TimeUnit.SECONDS);
    c.awaitFullIsr(List.of("kept"), READY);
    TopicPartition tp = new TopicPartition("kept", 0);

    int victim = c.activeController().orElseThrow();
    ClusterNode node = c.node(victim);
    long epochBefore = c.broker(victim).brokerEpoch();
    node.kill();
    assertFalse(node.isRunning());
    assertNull(c.broker(victim));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> c.activeController().orElse(victim) != victim);

    node.start();
    c.awaitReady(READY);
    assertTrue(node.isRunning());
    assertEquals(bootstrap, c.bootstrapServers(), "the same ports after a restart");
    assertEquals(node.brokerAddress().getPort(), c.broker(victim).boundPort());
    assertTrue(c.broker(victim).brokerEpoch() > epochBefore, "a new registration");
    assertNotNull(
        c.broker(victim).logManager().get(tp).orElse(null), "its replica, from its old data");
    c.awaitFullIsr(List.of("kept"), READY);

    int leader = c.partitionLeader(tp).orElseThrow();
    c.node(leader).restart();
    c.awaitReady(READY);
    c.awaitFullIsr(List.of("kept"), READY);
    assertEquals(3, c.partitionReplicas(tp).size());
    assertTrue(c.quorumServer(leader).appliedIndex() > 0, "its quorum member rejoined");
  }
}
