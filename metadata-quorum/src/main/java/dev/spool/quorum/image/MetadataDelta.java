package dev.spool.quorum.image;

import dev.spool.common.TopicPartition;
import java.util.Map;
import java.util.Set;

/**
 * What changed between two published images, for a broker's {@code MetadataListener}: which topics
 * and partitions are new or changed (with their new state), which were removed (with their last
 * state, so a broker knows which local replicas to delete), and which brokers changed. Immutable.
 *
 * @param fromOffset the offset of the previous image
 * @param toOffset the offset of the new image
 * @param changedTopics new or changed topics (partitions or configs), by name, new state
 * @param removedTopics removed topics by name, last state
 * @param changedPartitions new or changed partitions, new state
 * @param removedPartitions removed partitions, last state
 * @param changedBrokers ids of brokers registered, re-registered, fenced, unfenced or shutting down
 * @param fullImage true when the broker replaced its image with a full image from the quorum
 * @param changedScramUsers users whose SCRAM credentials were added, replaced or removed
 * @param aclsChanged whether any ACL was added or removed
 * @param clientQuotasChanged whether any client quota was set or removed
 */
public record MetadataDelta(
    long fromOffset,
    long toOffset,
    Map<String, TopicImage> changedTopics,
    Map<String, TopicImage> removedTopics,
    Map<TopicPartition, PartitionState> changedPartitions,
    Map<TopicPartition, PartitionState> removedPartitions,
    Set<Integer> changedBrokers,
    boolean fullImage,
    Set<String> changedScramUsers,
    boolean aclsChanged,
    boolean clientQuotasChanged) {

  public MetadataDelta {
    changedTopics = Map.copyOf(changedTopics);
    removedTopics = Map.copyOf(removedTopics);
    changedPartitions = Map.copyOf(changedPartitions);
    removedPartitions = Map.copyOf(removedPartitions);
    changedBrokers = Set.copyOf(changedBrokers);
    changedScramUsers = Set.copyOf(changedScramUsers);
  }

  public boolean isEmpty() {
    return changedTopics.isEmpty()
        && removedTopics.isEmpty()
        && changedPartitions.isEmpty()
        && removedPartitions.isEmpty()
        && changedBrokers.isEmpty()
        && changedScramUsers.isEmpty()
        && !aclsChanged
        && !clientQuotasChanged;
  }

  /**
   * The delta between two arbitrary images (used when a broker replaces its image with a full
   * image, where the individual records are not known).
   */
  public static MetadataDelta between(MetadataImage before, MetadataImage after, boolean full) {
    ImageBuilder b = new ImageBuilder(before);
    b.replaceWith(after);
    return b.delta(after.offset(), full);
  }
}
