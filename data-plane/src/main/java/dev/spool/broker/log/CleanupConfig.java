package dev.spool.broker.log;

import dev.spool.config.Config;
import dev.spool.config.TopicConfig;

/**
 * What happens to a partition's old data: {@code cleanup.policy} (delete, compact, or both) and the
 * compaction settings of {@link TopicConfig}. Immutable; part of {@link LogConfig}.
 *
 * @param compact the cleaner keeps the latest record per key (cleanup.policy has compact)
 * @param delete retention.ms and retention.bytes delete old segments (cleanup.policy has delete)
 * @param minCleanableDirtyRatio clean when the dirty share of the log reaches this
 * @param minCompactionLagMs records younger than this are not cleaned
 * @param maxCompactionLagMs records are cleaned at the latest this long after they were written
 * @param deleteRetentionMs tombstones stay this long after the cleaner first saw them
 */
public record CleanupConfig(
    boolean compact,
    boolean delete,
    double minCleanableDirtyRatio,
    long minCompactionLagMs,
    long maxCompactionLagMs,
    long deleteRetentionMs) {

  /** Kafka's default: retention only, the compaction settings at their defaults. */
  public static final CleanupConfig DELETE = from(TopicConfig.parse(java.util.Map.of()));

  public CleanupConfig {
    if (!compact && !delete) {
      throw new IllegalArgumentException("a cleanup policy needs compact, delete or both");
    }
    if (!(minCleanableDirtyRatio >= 0 && minCleanableDirtyRatio <= 1)) {
      throw new IllegalArgumentException(
          "minCleanableDirtyRatio must be in [0, 1]: " + minCleanableDirtyRatio);
    }
    if (minCompactionLagMs < 0 || maxCompactionLagMs < minCompactionLagMs) {
      throw new IllegalArgumentException(
          "compaction lags must satisfy 0 <= min <= max: "
              + minCompactionLagMs
              + ", "
              + maxCompactionLagMs);
    }
    if (deleteRetentionMs < 0) {
      throw new IllegalArgumentException("deleteRetentionMs must be >= 0: " + deleteRetentionMs);
    }
  }

  public static CleanupConfig from(Config topicConfig) {
    return new CleanupConfig(
        TopicConfig.compact(topicConfig),
        TopicConfig.delete(topicConfig),
        topicConfig.get(TopicConfig.MIN_CLEANABLE_DIRTY_RATIO),
        topicConfig.get(TopicConfig.MIN_COMPACTION_LAG_MS),
        topicConfig.get(TopicConfig.MAX_COMPACTION_LAG_MS),
        topicConfig.get(TopicConfig.DELETE_RETENTION_MS));
  }

  /** Compaction with these settings and no retention (cleanup.policy=compact), for tests. */
  public static CleanupConfig compactOnly(
      double minCleanableDirtyRatio, long minCompactionLagMs, long deleteRetentionMs) {
    return new CleanupConfig(
        true, false, minCleanableDirtyRatio, minCompactionLagMs, Long.MAX_VALUE, deleteRetentionMs);
  }
}
