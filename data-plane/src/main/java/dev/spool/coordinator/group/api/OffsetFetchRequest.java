package dev.spool.coordinator.group.api;

import dev.spool.common.TopicPartition;
import java.util.List;

/**
 * Committed offsets of a group: of {@code partitions}, or every one the group has when null. A
 * member may pass its id and epoch to have them checked.
 */
public record OffsetFetchRequest(
    String groupId, String memberId, int memberEpoch, List<TopicPartition> partitions) {}
