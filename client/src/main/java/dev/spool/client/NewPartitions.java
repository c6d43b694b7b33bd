package dev.spool.client;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * A topic's new partition count for {@link Admin#createPartitions}, as Kafka's {@code
 * NewPartitions}: the count can only grow. Without assignments the controller places the new
 * partitions as it places a new topic's; with them, {@code assignments.get(i)} is the replica list
 * (preferred leader first) of the i-th new partition, so there must be one per added partition,
 * each as long as the topic's replication factor (the controller checks what needs the topic).
 *
 * @param totalCount the partition count after the change
 * @param assignments empty, or the replicas of each new partition in partition order
 */
public record NewPartitions(int totalCount, List<List<Integer>> assignments) {
  public NewPartitions {
    if (totalCount < 1) {
      throw new IllegalArgumentException("partition count must be positive: " + totalCount);
    }
    List<List<Integer>> copy = new ArrayList<>();
    for (List<Integer> replicas : assignments == null ? List.<List<Integer>>of() : assignments) {
      if (replicas == null || replicas.isEmpty()) {
        throw new IllegalArgumentException("a new partition needs at least one replica");
      }
      if (new HashSet<>(replicas).size() != replicas.size()) {
        throw new IllegalArgumentException("replicas repeat a broker: " + replicas);
      }
      copy.add(List.copyOf(replicas));
    }
    assignments = List.copyOf(copy);
  }

  /** Grow to {@code totalCount} partitions, placed by the controller. */
  public static NewPartitions increaseTo(int totalCount) {
    return new NewPartitions(totalCount, List.of());
  }

  /** Grow to {@code totalCount} partitions on the given replicas, one list per new partition. */
  public static NewPartitions increaseTo(int totalCount, List<List<Integer>> assignments) {
    return new NewPartitions(totalCount, assignments);
  }
}
