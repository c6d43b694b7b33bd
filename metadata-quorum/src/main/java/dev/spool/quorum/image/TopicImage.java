package dev.spool.quorum.image;

import dev.spool.config.Config;
import dev.spool.config.TopicConfig;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One topic in the metadata image: name, id, partitions (dense, index = partition number) and
 * explicit config overrides. Immutable; a change to one partition copies only this topic's
 * partition list.
 */
public final class TopicImage {
  private final String id;
  private final String name;
  private final List<PartitionState> partitions;
  private final Map<String, String> configs;
  private volatile Config parsedConfig;

  public TopicImage(
      String id, String name, List<PartitionState> partitions, Map<String, String> configs) {
    this.id = Objects.requireNonNull(id);
    this.name = Objects.requireNonNull(name);
    this.partitions = List.copyOf(partitions);
    this.configs = Map.copyOf(configs);
  }

  private TopicImage(TopicImage t, List<PartitionState> live) {
    this.id = t.id;
    this.name = t.name;
    this.partitions = java.util.Collections.unmodifiableList(live);
    this.configs = t.configs;
    this.parsedConfig = t.parsedConfig;
  }

  /**
   * {@code t} with {@code live} as its partitions, not copied: for {@link ImageBuilder}, which
   * changes {@code live} only until it builds the image that publishes this topic.
   */
  static TopicImage sharing(TopicImage t, List<PartitionState> live) {
    return new TopicImage(t, live);
  }

  public String id() {
    return id;
  }

  public String name() {
    return name;
  }

  public List<PartitionState> partitions() {
    return partitions;
  }

  public int partitionCount() {
    return partitions.size();
  }

  /** The partition, or {@code null} when it does not exist. */
  public PartitionState partition(int partition) {
    return partition >= 0 && partition < partitions.size() ? partitions.get(partition) : null;
  }

  /** Explicit overrides only, as set by the user. */
  public Map<String, String> configs() {
    return configs;
  }

  /**
   * The effective topic config (overrides on top of TopicConfig defaults). Overrides were validated
   * when they were set; if a later code version rejects an old value, the default is used for every
   * key rather than failing the reader.
   */
  public Config config() {
    Config c = parsedConfig;
    if (c == null) {
      try {
        c = TopicConfig.parse(configs);
      } catch (RuntimeException e) {
        c = TopicConfig.parse(Map.of());
      }
      parsedConfig = c;
    }
    return c;
  }

  public int replicationFactor() {
    return partitions.isEmpty() ? 0 : partitions.get(0).replicas().size();
  }

  TopicImage withPartitions(List<PartitionState> p) {
    return new TopicImage(id, name, p, configs);
  }

  TopicImage withConfigs(Map<String, String> c) {
    return new TopicImage(id, name, partitions, c);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TopicImage t
        && id.equals(t.id)
        && name.equals(t.name)
        && partitions.equals(t.partitions)
        && configs.equals(t.configs);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, name, partitions, configs);
  }

  @Override
  public String toString() {
    return "Topic{"
        + name
        + " id="
        + id
        + " partitions="
        + partitions
        + " configs="
        + configs
        + "}";
  }
}
