package dev.spool.chaos.net;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.spool.broker.log.LogManager;
import dev.spool.chaos.nemesis.Plane;
import dev.spool.client.NewTopic;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.testing.process.ProcessCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A process cluster in the chaos suite's network ({@link FaultNetwork}): nodes in namespaces behind
 * fault proxies. Built by hand rather than with {@code @SpoolClusterTest}, whose clusters run on
 * loopback.
 */
@Tag("integration")
class FaultNetworkIntegrationTest {
  private static Path dir(String name) throws Exception {
    Path d = Path.of("target", "e2e", name).toAbsolutePath();
    if (Files.exists(d)) {
      LogManager.deleteRecursively(d);
    }
    return d;
  }

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void shouldCutReplicationButNotTheQuorumInNamespacesWithProxies() throws Exception {
    Capabilities caps = Capabilities.detect(new CommandRunner());
    assumeTrue(caps.canPartition(), "skipped, needs root for network namespaces: " + caps.report());
    String ours = "spoolc-" + ProcessHandle.current().pid() + "-";
    FaultNetwork network = new FaultNetwork(true, true);
    try (ProcessCluster c =
        ProcessCluster.builder()
            .nodes(3)
            .dir(dir("harness-netns"))
            .network(network)
            .config("replica.lag.time.max.ms", "2000")
            .start()) {
      NetNamespaces net = network.namespaces().orElseThrow();
      ProxyGroup links = network.clientLinks().orElseThrow();
      assertTrue(c.bootstrapServers().contains(net.proxyAddress(1)), c.bootstrapServers());
      c.admin().createTopic(new NewTopic("ns", 1, 3, Map.of())).get(60, TimeUnit.SECONDS);
      c.awaitFullIsr(List.of("ns"), Duration.ofSeconds(60));
      TopicPartition tp = new TopicPartition("ns", 0);
      try (Producer p = new Producer(Map.of("bootstrap.servers", c.bootstrapServers()))) {
        p.send(new ProducerRecord("ns", "through the proxy".getBytes(StandardCharsets.UTF_8)))
            .get(30, TimeUnit.SECONDS);
      }
      assertTrue(
          links.proxy(1).openConnections() > 0
              || links.proxy(2).openConnections() > 0
              || links.proxy(3).openConnections() > 0,
          "clients and replicas use the proxies");

      PartitionMetadata before = c.newestView(tp).orElseThrow();
      int leader = before.getLeaderId();
      for (int f : before.getReplicasList()) {
        if (f != leader) {
          net.drop(leader, f, Plane.DATA);
          net.drop(f, leader, Plane.DATA);
        }
      }
      // Replication stops, so the leader shrinks the ISR to itself through the quorum, which it
      // still reaches: the quorum plane survived the DATA-plane cut, replies included.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  c.newestView(tp)
                      .map(p -> p.getIsrList().equals(List.of(leader)) && p.getLeaderId() == leader)
                      .orElse(false));
      c.awaitReady(Duration.ofSeconds(10));
      net.healAll();
      c.awaitFullIsr(List.of("ns"), Duration.ofSeconds(60));
      assertEquals(
          leader, c.partitionLeader(tp).orElseThrow(), "no leader change: it was never fenced");
    }
    assertFalse(
        new CommandRunner().tryRun("ip", "netns", "list").stdout().contains(ours),
        "namespaces removed");
  }
}
