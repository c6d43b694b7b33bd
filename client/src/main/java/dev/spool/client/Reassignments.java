package dev.spool.client;

import dev.spool.common.TopicPartition;
import java.util.List;

/**
 * The partition reassignments in progress and the cluster's replication throttle, as one broker's
 * metadata shows them ({@link Admin#listPartitionReassignments}). Immutable.
 *
 * @param partitions the partitions being moved, sorted by topic and partition
 * @param throttleBytesPerSec the cluster's replication throttle: bytes/s of catch-up fetching per
 *     broker, 0 when there is none
 */
public record Reassignments(List<Reassignment> partitions, long throttleBytesPerSec) {
  public Reassignments {
    partitions = List.copyOf(partitions);
  }

  /**
   * One partition being moved.
   *
   * @param replicas the replica set while it moves: the target plus the replicas leaving
   * @param adding the target's replicas that are catching up
   * @param removing the replicas that leave once every target replica is in the ISR
   * @param leader the current leader, -1 when there is none
   */
  public record Reassignment(
      TopicPartition partition,
      List<Integer> replicas,
      List<Integer> adding,
      List<Integer> removing,
      List<Integer> isr,
      int leader) {
    public Reassignment {
      replicas = List.copyOf(replicas);
      adding = List.copyOf(adding);
      removing = List.copyOf(removing);
      isr = List.copyOf(isr);
    }

    /** The replica set the partition will have once the move completes (replicas - removing). */
    public List<Integer> target() {
      return replicas.stream().filter(r -> !removing.contains(r)).toList();
    }
  }
}
