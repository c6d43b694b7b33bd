package dev.spool.quorum.image;

import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Objects;

/**
 * The quorum's view of one partition. Immutable.
 *
 * @param replicas the assigned replicas, preferred leader first
 * @param isr in-sync replicas, a subset of {@code replicas}
 * @param leader the leader broker id, a member of {@code isr}, or {@link #NO_LEADER}
 * @param leaderEpoch grows on every leader change
 * @param partitionEpoch grows on every change at all (AlterPartition's precondition)
 * @param addingReplicas replicas a reassignment in progress adds
 *     (docs/architecture.md#replica-reassignment)
 * @param removingReplicas replicas a reassignment in progress drops once the target is in sync
 */
public record PartitionState(
    String topicId,
    String topic,
    int partition,
    List<Integer> replicas,
    List<Integer> isr,
    int leader,
    int leaderEpoch,
    int partitionEpoch,
    List<Integer> addingReplicas,
    List<Integer> removingReplicas) {

  public static final int NO_LEADER = -1;

  public PartitionState {
    Objects.requireNonNull(topicId, "topicId");
    Objects.requireNonNull(topic, "topic");
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
    addingReplicas = List.copyOf(addingReplicas);
    removingReplicas = List.copyOf(removingReplicas);
  }

  /** A partition with no reassignment in progress. */
  public PartitionState(
      String topicId,
      String topic,
      int partition,
      List<Integer> replicas,
      List<Integer> isr,
      int leader,
      int leaderEpoch,
      int partitionEpoch) {
    this(
        topicId,
        topic,
        partition,
        replicas,
        isr,
        leader,
        leaderEpoch,
        partitionEpoch,
        List.of(),
        List.of());
  }

  /**
   * The replication factor: the target's size, so a partition being moved counts as many replicas
   * as it will have (min.insync.replicas and under-replication are measured against it).
   */
  public int replicationFactor() {
    return replicas.size() - removingReplicas.size();
  }

  /** True while a reassignment is in progress. */
  public boolean isReassigning() {
    return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
  }

  /** The replicas the partition ends with: {@code replicas} without those being removed. */
  public List<Integer> targetReplicas() {
    return removingReplicas.isEmpty() ? replicas : without(replicas, removingReplicas);
  }

  /** The replicas before the reassignment: {@code replicas} without those being added. */
  public List<Integer> originalReplicas() {
    return addingReplicas.isEmpty() ? replicas : without(replicas, addingReplicas);
  }

  private static List<Integer> without(List<Integer> from, List<Integer> drop) {
    return from.stream().filter(id -> !drop.contains(id)).toList();
  }

  public TopicPartition topicPartition() {
    return new TopicPartition(topic, partition);
  }

  public boolean hasLeader() {
    return leader != NO_LEADER;
  }

  /** The first assigned replica: the leader when leadership is balanced. */
  public int preferredLeader() {
    return replicas.get(0);
  }

  public boolean isrContains(int brokerId) {
    return isr.contains(brokerId);
  }

  public boolean isReplica(int brokerId) {
    return replicas.contains(brokerId);
  }
}
