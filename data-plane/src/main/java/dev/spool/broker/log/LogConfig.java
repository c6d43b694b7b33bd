package dev.spool.broker.log;

import dev.spool.config.Config;
import dev.spool.config.TopicConfig;
import dev.spool.record.Compression;
import dev.spool.record.CompressionType;
import dev.spool.record.RecordBatch;
import dev.spool.record.TimestampType;

/**
 * The topic-level settings one partition log works with, taken from {@link TopicConfig} plus the
 * broker's flush policy. Immutable; {@link PartitionLog#updateConfig} swaps it atomically. {@code
 * cleanup} is the cleanup policy: retention, compaction, or both.
 *
 * <p>{@code targetCompression} is the codec the leader stores batches with, or null for the topic's
 * {@code compression.type=producer} (batches are stored as the producer compressed them); {@code
 * maxDecompressedBytes} bounds what one batch's records may inflate to when the leader checks them.
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
    boolean flushEveryAppend,
    Compression targetCompression,
    int maxDecompressedBytes,
    CleanupConfig cleanup) {

  /**
   * The settings without compression and cleanup ones: producer's compression, the default bound,
   * {@code cleanup.policy=delete}.
   */
  public LogConfig(
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
    this(
        segmentBytes,
        segmentMs,
        segmentIndexBytes,
        indexIntervalBytes,
        retentionMs,
        retentionBytes,
        maxMessageBytes,
        timestampType,
        timestampAfterMaxMs,
        timestampBeforeMaxMs,
        fileDeleteDelayMs,
        flushEveryAppend,
        null,
        TopicConfig.MESSAGE_MAX_DECOMPRESSED_BYTES.defaultValue(),
        CleanupConfig.DELETE);
  }

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
    check(maxDecompressedBytes >= 0, "maxDecompressedBytes", maxDecompressedBytes);
    if (timestampType == null || cleanup == null) {
      throw new IllegalArgumentException("timestampType and cleanup are required");
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
        flushEveryAppend,
        targetCompression(topicConfig),
        topicConfig.get(TopicConfig.MESSAGE_MAX_DECOMPRESSED_BYTES),
        CleanupConfig.from(topicConfig));
  }

  /** The codec {@code compression.type} names, at its level; null for {@code producer}. */
  static Compression targetCompression(Config topicConfig) {
    String name = topicConfig.get(TopicConfig.COMPRESSION_TYPE);
    if (name.equals("producer")) {
      return null;
    }
    return Compression.of(
        CompressionType.forName(name), TopicConfig.compressionLevel(name, topicConfig));
  }

  /** This config with {@code cleanup} as its cleanup policy. */
  public LogConfig withCleanup(CleanupConfig newCleanup) {
    return new LogConfig(
        segmentBytes,
        segmentMs,
        segmentIndexBytes,
        indexIntervalBytes,
        retentionMs,
        retentionBytes,
        maxMessageBytes,
        timestampType,
        timestampAfterMaxMs,
        timestampBeforeMaxMs,
        fileDeleteDelayMs,
        flushEveryAppend,
        targetCompression,
        maxDecompressedBytes,
        newCleanup);
  }

  /** The topic defaults of {@link TopicConfig}. */
  public static LogConfig defaults() {
    return from(TopicConfig.parse(java.util.Map.of()), false);
  }
}
