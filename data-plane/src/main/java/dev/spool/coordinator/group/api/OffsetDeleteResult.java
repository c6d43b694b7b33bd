package dev.spool.coordinator.group.api;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.Map;

/** OffsetDelete: a group-level error, or one result per partition asked. */
public record OffsetDeleteResult(
    ErrorCode error, String message, Map<TopicPartition, PartitionResult> partitions) {}
