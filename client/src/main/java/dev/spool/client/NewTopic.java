package dev.spool.client;

import java.util.Map;
import java.util.Objects;

/**
 * A topic to create.
 *
 * @param partitions number of partitions, -1 for the broker's default
 * @param replicationFactor replicas per partition, -1 for the default (3, capped by live brokers)
 * @param configs topic config overrides (see {@code dev.spool.config.TopicConfig})
 */
public record NewTopic(
    String name, int partitions, int replicationFactor, Map<String, String> configs) {
  public NewTopic {
    Objects.requireNonNull(name, "name");
    if (partitions == 0 || partitions < -1) {
      throw new IllegalArgumentException("partitions must be positive or -1: " + partitions);
    }
    if (replicationFactor == 0 || replicationFactor < -1) {
      throw new IllegalArgumentException(
          "replication factor must be positive or -1: " + replicationFactor);
    }
    configs = configs == null ? Map.of() : Map.copyOf(configs);
  }

  /** A topic with the server's defaults for everything. */
  public static NewTopic of(String name) {
    return new NewTopic(name, -1, -1, Map.of());
  }
}
