package dev.spool.client.internal.metadata;

import dev.spool.common.TopicPartition;
import dev.spool.network.Node;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable view of the cluster as last learned: brokers by id, and per topic its partitions
 * (sorted by partition number) and id. {@link Metadata} publishes a new snapshot on every change,
 * so readers on any thread see a consistent picture without locks.
 */
public final class MetadataSnapshot {
  /** A topic's partitions and id (empty id when the broker gave none). */
  public record TopicInfo(String name, String topicId, List<PartitionInfo> partitions) {
    public TopicInfo {
      partitions =
          partitions.stream()
              .sorted(Comparator.comparingInt(p -> p.topicPartition().partition()))
              .toList();
    }
  }

  public static final MetadataSnapshot EMPTY = new MetadataSnapshot("", -1, Map.of(), Map.of(), -1);

  private final String clusterId;
  private final int controllerId;
  private final Map<Integer, Node> brokers;
  private final Map<String, TopicInfo> topics;
  private final Map<TopicPartition, PartitionInfo> partitions;
  private final long metadataOffset;

  public MetadataSnapshot(
      String clusterId,
      int controllerId,
      Map<Integer, Node> brokers,
      Map<String, TopicInfo> topics,
      long metadataOffset) {
    this.clusterId = clusterId;
    this.controllerId = controllerId;
    this.brokers = Map.copyOf(brokers);
    this.topics = Map.copyOf(topics);
    this.metadataOffset = metadataOffset;
    Map<TopicPartition, PartitionInfo> byTp = new HashMap<>();
    for (TopicInfo t : topics.values()) {
      for (PartitionInfo p : t.partitions()) {
        byTp.put(p.topicPartition(), p);
      }
    }
    this.partitions = Map.copyOf(byTp);
  }

  public String clusterId() {
    return clusterId;
  }

  public int controllerId() {
    return controllerId;
  }

  /** The highest metadata offset of any answer applied so far (-1 before the first). */
  public long metadataOffset() {
    return metadataOffset;
  }

  public Map<Integer, Node> brokers() {
    return brokers;
  }

  public Collection<Node> brokerNodes() {
    return brokers.values();
  }

  public Node broker(int id) {
    return brokers.get(id);
  }

  public Map<String, TopicInfo> topics() {
    return topics;
  }

  public TopicInfo topic(String name) {
    return topics.get(name);
  }

  /** The topic's partitions sorted by number, or {@code null} if the topic is not known. */
  public List<PartitionInfo> partitionsFor(String topic) {
    TopicInfo t = topics.get(topic);
    return t == null ? null : t.partitions();
  }

  public PartitionInfo partition(TopicPartition tp) {
    return partitions.get(tp);
  }

  /**
   * The leader's node, or {@code null} when the partition, its leader or the leader's address is
   * unknown.
   */
  public Node leaderFor(TopicPartition tp) {
    PartitionInfo p = partitions.get(tp);
    return p == null || !p.hasLeader() ? null : brokers.get(p.leaderId());
  }

  @Override
  public String toString() {
    return "MetadataSnapshot(cluster="
        + clusterId
        + ", brokers="
        + brokers.keySet()
        + ", topics="
        + topics.keySet()
        + ", metadataOffset="
        + metadataOffset
        + ")";
  }
}
