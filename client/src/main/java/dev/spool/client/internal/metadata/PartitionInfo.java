package dev.spool.client.internal.metadata;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.List;

/**
 * What the client knows about one partition: its leader (-1 = none) and leader epoch, replicas,
 * in-sync replicas, and the partition-level error of the metadata answer it came from.
 */
public record PartitionInfo(
    TopicPartition topicPartition,
    int leaderId,
    int leaderEpoch,
    List<Integer> replicas,
    List<Integer> isr,
    List<Integer> offlineReplicas,
    ErrorCode error) {

  public PartitionInfo {
    replicas = List.copyOf(replicas);
    isr = List.copyOf(isr);
    offlineReplicas = List.copyOf(offlineReplicas);
  }

  public boolean hasLeader() {
    return leaderId >= 0;
  }

  /** A copy with a new leader and epoch (from a KIP-951 leader hint). */
  public PartitionInfo withLeader(int newLeaderId, int newLeaderEpoch) {
    return new PartitionInfo(
        topicPartition,
        newLeaderId,
        newLeaderEpoch,
        replicas,
        isr,
        offlineReplicas,
        ErrorCode.NONE);
  }
}
