package dev.spool.chaos.net;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.spool.broker.log.LogManager;
import dev.spool.chaos.nemesis.Plane;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.network.ClientResponse;
import dev.spool.network.NetworkClient;
import dev.spool.network.NetworkConfig;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.testing.process.ProcessCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client notices a broker the network cut off by itself, well before its request deadline: the
 * kernel closes the connection once the broker stops acknowledging (the network client's dead
 * connection timeout), the waiting request fails with BROKER_NOT_AVAILABLE, and once the link heals
 * the client reconnects. Real namespaces (root only; skipped with the reason otherwise).
 */
@Tag("integration")
class DeadConnectionIntegrationTest {
  private static final long REQUEST_TIMEOUT_MS = 300_000; // far beyond the test's own limit

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void shouldFailARequestToACutOffBrokerLongBeforeItsDeadlineAndReconnectAfterTheHeal()
      throws Exception {
    Capabilities caps = Capabilities.detect(new CommandRunner());
    assumeTrue(caps.canPartition(), "skipped, needs root for network namespaces: " + caps.report());
    Path dir = Path.of("target", "e2e", "dead-connection").toAbsolutePath();
    if (Files.exists(dir)) {
      LogManager.deleteRecursively(dir);
    }
    FaultNetwork network = new FaultNetwork(true, false);
    try (ProcessCluster c = ProcessCluster.builder().nodes(1).dir(dir).network(network).start();
        NetworkClient client =
            new NetworkClient(
                NetworkConfig.defaults("dead-connection-test", "dead-connection-test-io")
                    .withDeadConnectionTimeout(2000),
                Clock.SYSTEM)) {
      NetNamespaces net = network.namespaces().orElseThrow();
      String[] hostPort = c.bootstrapServers().split(",")[0].split(":");
      Node broker = new Node(-1, hostPort[0], Integer.parseInt(hostPort[1]));
      assertEquals(net.address(1, Plane.DATA), broker.host());
      assertTrue(metadata(client, broker).get(30, TimeUnit.SECONDS), "answers before the cut");

      net.dropToHost(1);
      CompletableFuture<Boolean> cut = metadata(client, broker);
      // The request deadline is 300 s: only the dead-connection detection can end it this soon.
      await().atMost(Duration.ofSeconds(60)).until(cut::isDone);
      CompletionException e = assertThrows(CompletionException.class, cut::join);
      SpoolException why = assertInstanceOf(SpoolException.class, e.getCause());
      assertEquals(ErrorCode.BROKER_NOT_AVAILABLE, why.errorCode(), why.getMessage());
      assertFalse(why.getMessage().contains("no response within"), why.getMessage());

      net.healAll();
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> metadata(client, broker).get(10, TimeUnit.SECONDS));
    }
  }

  private static CompletableFuture<Boolean> metadata(NetworkClient client, Node broker) {
    return client
        .send(broker, ApiKey.METADATA, MetadataRequest.getDefaultInstance(), REQUEST_TIMEOUT_MS)
        .thenApply(
            r -> {
              try (ClientResponse resp = r) {
                return !resp.body(MetadataResponse.class).getClusterId().isEmpty();
              }
            });
  }
}
