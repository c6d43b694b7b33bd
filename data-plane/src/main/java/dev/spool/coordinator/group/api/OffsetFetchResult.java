package dev.spool.coordinator.group.api;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.Map;

/**
 * Committed offsets; a partition asked for that has none is absent from {@code offsets}. An error
 * applies to the whole group.
 */
public record OffsetFetchResult(
    ErrorCode error, String message, Map<TopicPartition, OffsetAndMetadata> offsets) {

  public static OffsetFetchResult error(ErrorCode code, String message) {
    return new OffsetFetchResult(code, message, Map.of());
  }
}
