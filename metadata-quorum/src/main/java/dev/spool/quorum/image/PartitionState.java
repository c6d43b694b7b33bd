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
 */
public record PartitionState(
    String topicId,
    String topic,
    int partition,
    List<Integer> replicas,
    List<Integer> isr,
    int leader,
    int leaderEpoch,
    int partitionEpoch) {

  public static final int NO_LEADER = -1;

  public PartitionState {
    Objects.requireNonNull(topicId, "topicId");
    Objects.requireNonNull(topic, "topic");
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
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
