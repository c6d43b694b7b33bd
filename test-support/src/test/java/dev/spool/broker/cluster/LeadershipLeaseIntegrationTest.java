package dev.spool.broker.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.Broker;
import dev.spool.broker.log.PartitionLog;
import dev.spool.broker.replication.Partition;
import dev.spool.broker.replication.ReplicaRole;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.quorum.image.PartitionState;
import dev.spool.record.RecordBatch;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The leadership lease end to end: a partition leader whose broker is cut off from the quorum (its
 * clients and followers still reach it) stops taking produces while its own metadata still says it
 * leads, the quorum elects another leader, acknowledged writes resume there, and after the link
 * heals nothing acknowledged is missing on any replica.
 */
@Tag("integration")
@Timeout(180)
@SpoolClusterTest(nodes = 3)
class LeadershipLeaseIntegrationTest {
  private static final String TOPIC = "lease";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

  private final TestClient client = new TestClient();
  private InProcessCluster cluster;

  @AfterEach
  void closeClient() {
    client.close();
  }

  private static long checksum(ByteBuffer batch) {
    return RecordBatch.at(batch, batch.position()).checksum();
  }

  private PartitionState stateOn(int broker) {
    return cluster.broker(broker).image().partition(TP);
  }

  @Test
  void shouldRefuseWritesOnTheCutOffLeaderAndAcknowledgeOnTheNewOneLosingNothing(
      InProcessCluster cluster) {
    this.cluster = cluster;
    Broker any = cluster.broker(1);
    assertEquals(ErrorCode.NONE, client.createTopic(any, TOPIC, 1, 3).getTopics(0).getErrorCode());
    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () -> {
              for (int id = 1; id <= 3; id++) {
                PartitionState st = stateOn(id);
                if (st == null || !st.hasLeader() || st.isr().size() != 3) {
                  return false;
                }
              }
              return true;
            });
    int old = stateOn(1).leader();
    Map<Long, Long> acked = new TreeMap<>(); // offset -> checksum of the acknowledged batch
    for (int i = 0; i < 5; i++) {
      ByteBuffer b = LogBytes.oneRecordBatch("before-" + i);
      ProduceResponse.PartitionResponse r = client.produce(cluster.broker(old), TOPIC, 0, -1, b);
      assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
      acked.put(r.getBaseOffset(), checksum(b));
    }

    cluster.cutQuorumLink(old);

    // The cut-off broker cannot learn anything from the quorum, so it still sees itself as the
    // leader; once its lease runs out it refuses acks=1 and acks=all alike, appending nothing.
    Broker zombie = cluster.broker(old);
    AtomicReference<ProduceResponse.PartitionResponse> refused = new AtomicReference<>();
    Awaitility.await()
        .atMost(20, TimeUnit.SECONDS)
        .pollInterval(50, TimeUnit.MILLISECONDS)
        .until(
            () -> {
              ProduceResponse.PartitionResponse r =
                  client.produce(zombie, TOPIC, 0, 1, LogBytes.oneRecordBatch("zombie-probe"));
              refused.set(r);
              return r.getErrorCode() == ErrorCode.NOT_LEADER_OR_FOLLOWER;
            });
    assertTrue(
        refused.get().getErrorMessage().contains("session timeout"),
        refused.get().getErrorMessage());
    Partition onZombie = zombie.replicaManager().partition(TP).orElseThrow();
    assertEquals(ReplicaRole.LEADER, onZombie.role(), "still leader in its own stale metadata");
    assertEquals(old, stateOn(old).leader());
    long zombieEnd = onZombie.log().logEndOffset();
    ProduceResponse.PartitionResponse all =
        client.produce(zombie, TOPIC, 0, -1, LogBytes.oneRecordBatch("zombie-acks-all"));
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, all.getErrorCode(), all.getErrorMessage());
    assertEquals(zombieEnd, onZombie.log().logEndOffset(), "a refused produce appends nothing");

    // The quorum fences the cut-off broker and elects a leader among the others, which takes
    // acknowledged writes.
    int other = old == 1 ? 2 : 1;
    AtomicReference<Integer> newLeader = new AtomicReference<>(-1);
    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () -> {
              PartitionMetadata pm = client.partition(cluster.broker(other), TOPIC, 0);
              newLeader.set(pm.getLeaderId());
              return pm.getLeaderId() > 0 && pm.getLeaderId() != old;
            });
    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () -> {
              ByteBuffer b = LogBytes.oneRecordBatch("after-" + acked.size());
              ProduceResponse.PartitionResponse r =
                  client.produce(cluster.broker(newLeader.get()), TOPIC, 0, -1, b);
              if (r.getErrorCode() == ErrorCode.NONE) {
                acked.put(r.getBaseOffset(), checksum(b));
              }
              return r.getErrorCode() == ErrorCode.NONE;
            });
    for (int i = 0; i < 5; i++) {
      ByteBuffer b = LogBytes.oneRecordBatch("during-" + i);
      ProduceResponse.PartitionResponse r =
          client.produce(cluster.broker(newLeader.get()), TOPIC, 0, -1, b);
      assertEquals(ErrorCode.NONE, r.getErrorCode(), r.getErrorMessage());
      acked.put(r.getBaseOffset(), checksum(b));
    }

    // Healed: the old leader learns it follows now, catches up and rejoins the ISR.
    cluster.healQuorumLink(old);
    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () ->
                onZombie.role() == ReplicaRole.FOLLOWER
                    && stateOn(newLeader.get()).isr().size() == 3);
    assertNotEquals(old, stateOn(old).leader());

    long end = acked.keySet().stream().mapToLong(o -> o + 1).max().orElseThrow();
    Awaitility.await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () -> {
              for (int id = 1; id <= 3; id++) {
                PartitionLog l = cluster.broker(id).logManager().get(TP).orElse(null);
                if (l == null || l.highWatermark() < end) {
                  return false;
                }
              }
              return true;
            });
    for (int id = 1; id <= 3; id++) {
      PartitionLog l = cluster.broker(id).logManager().get(TP).orElseThrow();
      List<Long> sums = LogBytes.checksums(l, l.highWatermark());
      for (Map.Entry<Long, Long> a : acked.entrySet()) {
        assertEquals(
            a.getValue(),
            sums.get(a.getKey().intValue()),
            "broker " + id + " lost the write acknowledged at offset " + a.getKey());
      }
    }
  }
}
