package dev.spool.coordinator.group.core;

import java.util.Collection;

/**
 * The topics of the cluster as a shard needs them: partition counts and the names a regular
 * expression is matched against (internal topics excluded). The runtime backs it with the broker's
 * metadata image.
 */
public interface TopicsView {
  /** The topic's partition count, or -1 when it does not exist. */
  int partitionCount(String topic);

  /** Every topic a subscription may match (internal topics excluded). */
  Collection<String> topicNames();
}
