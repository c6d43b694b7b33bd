package dev.spool.coordinator.group.runtime;

import dev.spool.coordinator.group.core.GroupSettings;

/**
 * The coordinator's settings from the broker config. Immutable.
 *
 * @param offsetsTopicPartitions partitions of {@code __consumer_offsets} when it is created
 * @param offsetsTopicReplicationFactor its replication factor (capped by the live brokers)
 * @param offsetsTopicSegmentBytes its segment size (small segments let compaction work sooner)
 * @param commitTimeoutMs how long a write may wait for replication before it fails
 * @param loadBufferBytes how much of the partition one loading step reads
 */
public record CoordinatorConfig(
    int offsetsTopicPartitions,
    int offsetsTopicReplicationFactor,
    int offsetsTopicSegmentBytes,
    long commitTimeoutMs,
    int loadBufferBytes,
    GroupSettings groups) {}
