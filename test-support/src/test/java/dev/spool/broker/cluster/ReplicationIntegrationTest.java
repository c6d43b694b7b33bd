package dev.spool.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.Broker;
import dev.spool.broker.log.PartitionLog;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.ElectionType;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.lifecycle.BrokerState;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Three combined nodes (3-voter quorum, 3 brokers): replication, ISR changes, leader moves. */
@Tag("integration")
@Timeout(180)
@SpoolClusterTest(nodes = 3)
class ReplicationIntegrationTest {
  static InProcessCluster cluster;
  static TestClient client;

  @BeforeAll
  static void start(InProcessCluster c) {
    cluster = c;
    client = new TestClient();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
  }

  private static ByteBuffer batch(String value) {
    return LogBytes.oneRecordBatch(value);
  }

  /**
   * A broker that serves with current metadata: a RUNNING one (a broker just restarted is still
   * RECOVERING, its image may not have the test's topics yet), else any started one.
   */
  private static Broker any() {
    Broker started = null;
    for (int id = 1; id <= cluster.size(); id++) {
      Broker b = cluster.broker(id);
      if (b != null && b.state() == BrokerState.RUNNING) {
        return b;
      }
      started = started == null ? b : started;
    }
    if (started == null) {
      throw new AssertionError("no broker running");
    }
    return started;
  }

  /** Creates a topic and waits until every running broker's image has it with a leader. */
  private static void create(String topic) {
    assertEquals(
        ErrorCode.NONE, client.createTopic(any(), topic, 1, 3).getTopics(0).getErrorCode());
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () -> {
              for (int id = 1; id <= cluster.size(); id++) {
                Broker b = cluster.broker(id);
                PartitionState st =
                    b == null ? null : b.image().partition(new TopicPartition(topic, 0));
                if (b != null && (st == null || !st.hasLeader())) {
                  return false;
                }
              }
              return true;
            });
  }

  private static PartitionMetadata meta(String topic) {
    return client.partition(any(), topic, 0);
  }

  private static ProduceResponse.PartitionResponse produceToLeader(String topic, String value) {
    PartitionMetadata pm = meta(topic);
    return client.produce(cluster.broker(pm.getLeaderId()), topic, 0, -1, batch(value));
  }

  private static void awaitLeaderImageIsr(String topic, int size) {
    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () -> {
              PartitionMetadata pm = meta(topic);
              Broker leader = pm.getLeaderId() > 0 ? cluster.broker(pm.getLeaderId()) : null;
              PartitionState st =
                  leader == null ? null : leader.image().partition(new TopicPartition(topic, 0));
              return st != null && st.isr().size() == size;
            });
  }

  private static List<Long> checksums(PartitionLog log, long upTo) {
    return LogBytes.checksums(log, upTo);
  }

  @Test
  void shouldReplicateToEveryFollowerAndAcknowledgeAcksAll() {
    create("rep");
    for (int i = 0; i < 5; i++) {
      ProduceResponse.PartitionResponse r = produceToLeader("rep", "v" + i);
      assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
      assertEquals(i, r.getBaseOffset());
    }
    TopicPartition tp = new TopicPartition("rep", 0);
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () -> {
              for (int id = 1; id <= 3; id++) {
                PartitionLog l = cluster.broker(id).logManager().get(tp).orElse(null);
                if (l == null || l.logEndOffset() != 5 || l.highWatermark() != 5) {
                  return false;
                }
              }
              return true;
            });
    List<Long> leader = checksums(cluster.broker(1).logManager().get(tp).orElseThrow(), 5);
    assertEquals(5, leader.size());
    for (int id = 2; id <= 3; id++) {
      assertEquals(leader, checksums(cluster.broker(id).logManager().get(tp).orElseThrow(), 5));
    }
  }

  @Test
  void shouldShrinkTheIsrWhenFollowersStopAndExpandWhenTheyReturn() {
    create("isr");
    PartitionMetadata pm = meta("isr");
    int leader = pm.getLeaderId();
    List<Integer> followers = pm.getReplicasList().stream().filter(r -> r != leader).toList();
    assertEquals(ErrorCode.NONE, produceToLeader("isr", "before").getErrorCode());

    // One follower stops fetching (its broker stays registered): the lag rule removes it and
    // acks=all goes on with the two others (min.insync.replicas = 2).
    cluster.broker(followers.get(0)).replicaFetchers().close();
    ProduceResponse.PartitionResponse r = produceToLeader("isr", "one-down");
    assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
    awaitLeaderImageIsr("isr", 2);

    // The second follower stops too: once the ISR is the leader alone, acks=all is refused.
    cluster.broker(followers.get(1)).replicaFetchers().close();
    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () -> produceToLeader("isr", "probe").getErrorCode() == ErrorCode.NOT_ENOUGH_REPLICAS);

    // Restarted followers rejoin through the fetch path and the ISR expands again.
    for (int f : followers) {
      cluster.stopBroker(f);
      cluster.startBroker(f);
    }
    awaitLeaderImageIsr("isr", 3);
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> produceToLeader("isr", "all-back").getErrorCode() == ErrorCode.NONE);
  }

  @Test
  void shouldMoveLeadershipAwayAndElectThePreferredLeaderBack() {
    create("elect");
    PartitionMetadata pm = meta("elect");
    int preferred = pm.getReplicas(0);
    assertEquals(preferred, pm.getLeaderId());
    int acked = 0;
    for (int i = 0; i < 3; i++) {
      assertEquals(ErrorCode.NONE, produceToLeader("elect", "a" + i).getErrorCode());
      acked++;
    }
    assertTrue(cluster.broker(preferred).controlledShutdown(15_000));
    cluster.stopBroker(preferred);
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () -> {
              int l = meta("elect").getLeaderId();
              return l > 0 && l != preferred;
            });
    for (int i = 0; i < 3; i++) {
      int attempt = i;
      Awaitility.await()
          .atMost(20, TimeUnit.SECONDS)
          .until(() -> produceToLeader("elect", "b" + attempt).getErrorCode() == ErrorCode.NONE);
      acked++;
    }
    cluster.startBroker(preferred);
    awaitLeaderImageIsr("elect", 3);
    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () -> {
              ElectLeadersResponse er =
                  client.call(
                      any(),
                      ApiKey.ELECT_LEADERS,
                      ElectLeadersRequest.newBuilder()
                          .setElectionType(ElectionType.PREFERRED)
                          .setTimeoutMs(10_000)
                          .addPartitions(
                              TopicPartitions.newBuilder().setTopic("elect").addPartitions(0))
                          .build(),
                      ElectLeadersResponse.class);
              return meta("elect").getLeaderId() == preferred;
            });
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> produceToLeader("elect", "c").getErrorCode() == ErrorCode.NONE);
    acked++;
    TestClient.Fetched f =
        client.fetch(cluster.broker(preferred), TestClient.consumerFetch("elect", 0, 0, 0));
    int records = 0;
    for (RecordBatch b : MemoryRecords.wrap(ByteBuffer.wrap(f.records()))) {
      records += b.recordsCount();
    }
    assertTrue(
        records >= acked,
        "every acknowledged record is on the re-elected leader: " + records + " < " + acked);
  }
}
