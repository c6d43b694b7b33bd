package dev.spool.e2e;

import dev.spool.client.Admin;
import dev.spool.client.NewTopic;
import dev.spool.common.TopicPartition;
import dev.spool.testing.SpoolCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Shared pieces of the end-to-end tests: how long a cluster may take, topics. */
final class E2e {
  static final Duration READY = Duration.ofSeconds(60);

  private E2e() {}

  /** Creates an RF-3 topic and waits until every partition has its full ISR. */
  static List<TopicPartition> createTopic(
      SpoolCluster c, String topic, int partitions, Map<String, String> configs) throws Exception {
    Admin admin = c.admin();
    admin.createTopic(new NewTopic(topic, partitions, 3, configs)).get(60, TimeUnit.SECONDS);
    c.awaitFullIsr(List.of(topic), READY);
    List<TopicPartition> tps = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      tps.add(new TopicPartition(topic, i));
    }
    return tps;
  }
}
