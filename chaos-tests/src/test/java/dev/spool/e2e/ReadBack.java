package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.spool.chaos.cluster.ReplicaLogs;
import dev.spool.chaos.history.BatchSummary;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.common.TopicPartition;
import dev.spool.testing.process.ProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Reading a topic back to its end, and the checks the replication tests share. */
final class ReadBack {
  private ReadBack() {}

  /** Every record of {@code tps} from the log start to the end offsets at the time of the call. */
  static Map<TopicPartition, List<ConsumerRecord>> readAll(
      ProcessCluster c, List<TopicPartition> tps) {
    Map<TopicPartition, List<ConsumerRecord>> out = new TreeMap<>();
    try (Consumer consumer =
        new Consumer(
            Map.of("bootstrap.servers", c.bootstrapServers(), "fetch.max.wait.ms", "200"))) {
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      tps.forEach(tp -> out.put(tp, new ArrayList<>()));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read to the end offsets " + end + " within 60 s");
        }
        for (ConsumerRecord r : consumer.poll(Duration.ofMillis(500))) {
          out.get(r.topicPartition()).add(r);
        }
      }
    }
    return out;
  }

  /**
   * Every acknowledged value is read exactly once, at the partition and offset it was acknowledged
   * at.
   */
  static void assertEveryAckReadOnceAtItsOffset(
      List<AckedLoad.Ack> acks, Map<TopicPartition, List<ConsumerRecord>> read) {
    Map<String, List<String>> whereRead = new HashMap<>();
    Map<String, String> valueAt = new HashMap<>();
    read.forEach(
        (tp, records) ->
            records.forEach(
                r -> {
                  whereRead
                      .computeIfAbsent(r.valueAsString(), v -> new ArrayList<>())
                      .add(tp.partition() + "@" + r.offset());
                  valueAt.put(tp.partition() + "@" + r.offset(), r.valueAsString());
                }));
    List<String> problems = new ArrayList<>();
    for (AckedLoad.Ack a : acks) {
      String v = Long.toString(a.value());
      List<String> at = whereRead.getOrDefault(v, List.of());
      String expected = a.partition() + "@" + a.offset();
      if (!at.equals(List.of(expected))) {
        problems.add(
            "value "
                + v
                + " acknowledged at "
                + expected
                + " but read at "
                + at
                + " (that offset holds "
                + valueAt.get(expected)
                + ")");
      }
    }
    assertEquals(
        List.of(),
        problems.subList(0, Math.min(20, problems.size())),
        problems.size() + " acknowledged records not read exactly once at their offset");
  }

  /**
   * The load's end as the failover tests check it: every acknowledged value read back exactly once
   * at its offset, and no send failed ({@code why} says what the sends had to ride out).
   */
  static void assertNothingLostAndNoSendFailed(
      ProcessCluster c,
      List<TopicPartition> tps,
      List<AckedLoad.Ack> acks,
      List<Throwable> failures,
      String why) {
    assertEveryAckReadOnceAtItsOffset(acks, readAll(c, tps));
    assertEquals(List.of(), failures.stream().map(Throwable::toString).toList(), why);
  }

  /**
   * Stops nothing: reads each node's files (the nodes must be stopped) and compares the replicas
   * below their HWs.
   */
  static Map<Integer, Map<TopicPartition, ReplicaLogs.Replica>>
      assertReplicasIdenticalBelowHighWatermark(ProcessCluster c, String topic, Path scratch)
          throws Exception {
    Map<Integer, Map<TopicPartition, ReplicaLogs.Replica>> byNode = new TreeMap<>();
    for (int n : c.brokers()) {
      byNode.put(n, ReplicaLogs.read(n, c.nodeDataDir(n), scratch));
    }
    Map<TopicPartition, List<ReplicaLogs.Replica>> byPartition = new TreeMap<>();
    byNode
        .values()
        .forEach(
            m ->
                m.forEach(
                    (tp, r) -> {
                      if (tp.topic().equals(topic)) {
                        byPartition.computeIfAbsent(tp, k -> new ArrayList<>()).add(r);
                      }
                    }));
    assertEquals(false, byPartition.isEmpty(), "no replica of " + topic + " found");
    byPartition.forEach(
        (tp, replicas) -> {
          assertEquals(3, replicas.size(), tp + " has three replicas on disk");
          long hw =
              replicas.stream().mapToLong(ReplicaLogs.Replica::highWatermark).min().orElseThrow();
          List<BatchSummary> reference = null;
          for (ReplicaLogs.Replica r : replicas) {
            List<BatchSummary> below =
                r.batches().stream().filter(b -> b.lastOffset() < hw).toList();
            if (reference == null) {
              reference = below;
              assertNotNull(reference);
            } else {
              assertEquals(
                  reference,
                  below,
                  tp + ": n" + r.node() + " differs below the high watermark " + hw);
            }
          }
        });
    return byNode;
  }
}
