package dev.spool.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.spool.client.testing.FakeCluster;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A broker cut off from the controller refuses writes (NOT_LEADER_OR_FOLLOWER, no leader hint) yet
 * still answers Metadata from its stale image, naming itself leader. It answers at once, so it is
 * the least loaded broker, and a producer that asked it again would never learn of the new leader
 * until the cut healed (seen in a chaos run: 12 s of no writes to its partitions). The producer
 * must ask another broker.
 */
@Tag("integration")
@Timeout(60)
class StaleLeaderProducerTest {
  @Test
  void aRefusingLeaderIsNotAskedWhoLeadsNext() throws Exception {
    try (FakeCluster cluster = FakeCluster.start(3)) {
      cluster.createTopic("t", 1);
      TopicPartition tp = new TopicPartition("t", 0);
      assertEquals(1, cluster.leader(tp));
      MetadataResponse stale =
          cluster.metadata(MetadataRequest.newBuilder().addTopics("t").build());
      // Broker 1 keeps answering with the image it had; leadership moves to broker 2, and broker 1
      // refuses produces without naming the new leader.
      cluster.broker(1).handle(ApiKey.METADATA, (req, out) -> out.reply(stale));
      cluster.leaderHints(false);
      cluster.moveLeader(tp, 2);

      // Only broker 1 as bootstrap: it is the one connection the producer has, so the least
      // loaded node, when it is refused.
      try (Producer p =
          new Producer(
              Map.of(
                  "bootstrap.servers", cluster.broker(1).address(),
                  "retry.backoff.ms", "10",
                  "retry.backoff.max.ms", "50",
                  "delivery.timeout.ms", "40000"))) {
        RecordMetadata md =
            p.send(new ProducerRecord("t", "v".getBytes(StandardCharsets.UTF_8)))
                .get(20, TimeUnit.SECONDS);
        assertEquals(0, md.partition());
        assertEquals(1, cluster.log(tp).logEndOffset(), "the record is in the log");
        assertFalse(cluster.broker(2).received(ApiKey.PRODUCE).isEmpty(), "broker 2 took it");
        p.close(Duration.ofSeconds(5));
      }
    }
  }
}
