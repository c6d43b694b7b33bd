package dev.spool.coordinator.group.assignor;

import dev.spool.common.TopicPartition;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * What an assignor works from.
 *
 * @param members by member id (sorted, so results do not depend on arrival order)
 * @param partitionCounts partition count of every topic some member subscribes to and that exists
 */
public record AssignmentSpec(
    SortedMap<String, Member> members, Map<String, Integer> partitionCounts) {

  /**
   * One member: the topics it subscribes to (regular expressions already resolved), its rack, and
   * its current target assignment (what stickiness keeps).
   */
  public record Member(Set<String> topics, String rackId, Set<TopicPartition> currentTarget) {}

  /** Whether {@code tp} exists in the spec's topics. */
  public boolean exists(TopicPartition tp) {
    Integer n = partitionCounts.get(tp.topic());
    return n != null && tp.partition() >= 0 && tp.partition() < n;
  }
}
