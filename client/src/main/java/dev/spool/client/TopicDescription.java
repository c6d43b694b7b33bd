package dev.spool.client;

import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.TopicMetadata;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A topic as the cluster's metadata describes it.
 *
 * @param topicId the topic's id (changes when a topic is deleted and created again)
 * @param configs the topic's explicit config overrides
 */
public record TopicDescription(
    String name,
    String topicId,
    List<PartitionDescription> partitions,
    Map<String, String> configs) {
  public TopicDescription {
    partitions = List.copyOf(partitions);
    configs = Map.copyOf(configs);
  }

  /** A topic as one Metadata answer describes it, partitions in order. */
  static TopicDescription from(TopicMetadata t) {
    List<PartitionDescription> parts = new ArrayList<>();
    for (PartitionMetadata p : t.getPartitionsList()) {
      parts.add(
          new PartitionDescription(
              p.getPartition(),
              p.getLeaderId(),
              p.getLeaderEpoch(),
              p.getReplicasList(),
              p.getIsrList(),
              p.getOfflineReplicasList()));
    }
    parts.sort(Comparator.comparingInt(PartitionDescription::partition));
    return new TopicDescription(
        t.getName(), t.getTopicId(), parts, new TreeMap<>(t.getConfigsMap()));
  }

  /**
   * One partition: its leader (-1 = none) and leader epoch, replicas, in-sync replicas, and the
   * replicas on brokers that are offline.
   */
  public record PartitionDescription(
      int partition,
      int leader,
      int leaderEpoch,
      List<Integer> replicas,
      List<Integer> isr,
      List<Integer> offlineReplicas) {
    public PartitionDescription {
      replicas = List.copyOf(replicas);
      isr = List.copyOf(isr);
      offlineReplicas = List.copyOf(offlineReplicas);
    }
  }
}
