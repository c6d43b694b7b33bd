package dev.spool.client.internal.producer;

import dev.spool.client.internal.metadata.MetadataSnapshot;
import dev.spool.client.internal.metadata.PartitionInfo;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.network.ExponentialBackoff;
import dev.spool.network.Node;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Builders shared by the producer's unit tests. */
final class ProducerFixtures {
  static final Node NODE_1 = new Node(1, "127.0.0.1", 9001);
  static final Node NODE_2 = new Node(2, "127.0.0.1", 9002);

  private ProducerFixtures() {}

  /** Topic {@code topic} with {@code partitions} partitions, all led by {@code leader}. */
  static MetadataSnapshot snapshot(String topic, int partitions, Node leader) {
    List<PartitionInfo> parts = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      parts.add(
          new PartitionInfo(
              new TopicPartition(topic, i),
              leader.id(),
              0,
              List.of(1, 2),
              List.of(1, 2),
              List.of(),
              ErrorCode.NONE));
    }
    Map<Integer, Node> brokers = new HashMap<>();
    brokers.put(NODE_1.id(), NODE_1);
    brokers.put(NODE_2.id(), NODE_2);
    return new MetadataSnapshot(
        "c", 1, brokers, Map.of(topic, new MetadataSnapshot.TopicInfo(topic, "id", parts)), 1);
  }

  static ExponentialBackoff noJitterBackoff() {
    return new ExponentialBackoff(100, 1000, 0, new Random(1));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
