package dev.spool.coordinator.group.assignor;

import dev.spool.common.TopicPartition;
import java.util.Map;
import java.util.Set;

/** A server-side assignor. Implementations are pure and deterministic; any thread. */
public interface PartitionAssignor {

  /** The name members ask for in {@code group.remote.assignor}. */
  String name();

  /**
   * The target assignment: an entry for every member of {@code spec} (possibly empty). Only
   * partitions of topics a member subscribes to, each partition to at most one member, and every
   * partition of a subscribed topic to some member.
   */
  Map<String, Set<TopicPartition>> assign(AssignmentSpec spec);
}
