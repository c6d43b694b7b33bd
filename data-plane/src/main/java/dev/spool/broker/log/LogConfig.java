package dev.spool.broker.log;

import dev.spool.config.Config;
import dev.spool.config.TopicConfig;
import dev.spool.record.RecordBatch;
import dev.spool.record.TimestampType;

/**
 * The topic-level settings one partition log works with, taken from {@link TopicConfig} plus the
 * broker's flush policy. Immutable; {@link PartitionLog#updateConfig} swaps it atomically.
 */
public record LogConfig(
    int segmentBytes,
    long segmentMs,
    int segmentIndexBytes,
    int indexIntervalBytes,
    long retentionMs,
    long retentionBytes,
    int maxMessageBytes,
    TimestampType timestampType,
    long timestampAfterMaxMs,
    long timestampBeforeMaxMs,
    long fileDeleteDelayMs,
    boolean flushEveryAppend) {

  public LogConfig {
    check(segmentBytes >= RecordBatch.HEADER_SIZE_BYTES, "segmentBytes", segmentBytes);
    check(segmentMs >= 1, "segmentMs", segmentMs);
    check(segmentIndexBytes >= 12 * 2, "segmentIndexBytes", segmentIndexBytes);
    check(indexIntervalBytes >= 0, "indexIntervalBytes", indexIntervalBytes);
    check(retentionMs >= -1, "retentionMs", retentionMs);
    check(retentionBytes >= -1, "retentionBytes", retentionBytes);
    check(maxMessageBytes >= RecordBatch.HEADER_SIZE_BYTES, "maxMessageBytes", maxMessageBytes);
    check(timestampAfterMaxMs >= 0, "timestampAfterMaxMs", timestampAfterMaxMs);
    check(timestampBeforeMaxMs >= 0, "timestampBeforeMaxMs", timestampBeforeMaxMs);
    check(fileDeleteDelayMs >= 0, "fileDeleteDelayMs", fileDeleteDelayMs);
    if (timestampType == null) {
      throw new IllegalArgumentException("timestampType is required");
    }
  }

  private static void check(boolean ok, String name, long value) {
    if (!ok) {
      throw new IllegalArgumentException("invalid LogConfig." + name + ": " + value);
    }
  }

  public static LogConfig from(Config topicConfig, boolean flushEveryAppend) {
    return new LogConfig(
        topicConfig.get(TopicConfig.SEGMENT_BYTES),
        topicConfig.get(TopicConfig.SEGMENT_MS),
        topicConfig.get(TopicConfig.SEGMENT_INDEX_BYTES),
        topicConfig.get(TopicConfig.INDEX_INTERVAL_BYTES),
        topicConfig.get(TopicConfig.RETENTION_MS),
        topicConfig.get(TopicConfig.RETENTION_BYTES),
        topicConfig.get(TopicConfig.MAX_MESSAGE_BYTES),
        TimestampType.forConfigName(topicConfig.get(TopicConfig.MESSAGE_TIMESTAMP_TYPE)),
        topicConfig.get(TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS),
        topicConfig.get(TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS),
        topicConfig.get(TopicConfig.FILE_DELETE_DELAY_MS),
        flushEveryAppend);
  }

  /** The topic defaults of {@link TopicConfig}. */
  public static LogConfig defaults() {
    return from(TopicConfig.parse(java.util.Map.of()), false);
  }
}
