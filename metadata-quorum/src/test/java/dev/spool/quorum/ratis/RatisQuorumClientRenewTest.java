package dev.spool.quorum.ratis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.quorum.QuorumTestCluster;
import dev.spool.quorum.lifecycle.BrokerLifecycle;
import dev.spool.quorum.lifecycle.BrokerState;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ratis closes a client's ordered window for good after a failure it did not retry; the quorum
 * client then replaces it, so the request that met the closed client fails and the next one goes
 * through (before, every later write of that broker failed QUORUM_UNAVAILABLE "... is closed").
 */
@Tag("integration")
@Timeout(120)
class RatisQuorumClientRenewTest {

  private static CreateTopicsResponse create(RatisQuorumClient c, String name) throws Exception {
    return c.createTopics(
            CreateTopicsRequest.newBuilder()
                .addTopics(
                    CreateTopicsRequest.Topic.newBuilder()
                        .setName(name)
                        .setNumPartitions(1)
                        .setReplicationFactor(1))
                .build())
        .get(30, TimeUnit.SECONDS);
  }

  @Test
  void shouldReplaceAWriteClientThatRatisClosed() throws Exception {
    try (QuorumTestCluster c = QuorumTestCluster.builder().voters(1).start()) {
      c.awaitActiveController();
      BrokerLifecycle broker = c.newBroker(1);
      await().atMost(Duration.ofSeconds(30)).until(() -> broker.state() == BrokerState.RUNNING);
      RatisQuorumClient client = (RatisQuorumClient) c.newClient();
      assertEquals(ErrorCode.NONE, create(client, "before").getTopics(0).getErrorCode());

      client.closeWritesForTest();
      ExecutionException failed = assertThrows(ExecutionException.class, () -> create(client, "x"));
      SpoolException cause = (SpoolException) failed.getCause();
      assertEquals(ErrorCode.QUORUM_UNAVAILABLE, cause.errorCode());
      assertTrue(cause.getMessage().contains("is closed"), cause.getMessage());

      assertEquals(ErrorCode.NONE, create(client, "after").getTopics(0).getErrorCode());
      assertEquals(ErrorCode.NONE, create(client, "again").getTopics(0).getErrorCode());
    }
  }
}
