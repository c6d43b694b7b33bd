package dev.spool.config;

import java.util.List;
import java.util.Map;

/**
 * Topic-level configuration keys: the one definition shared by the controller (which validates
 * {@code --config k=v} at topic creation), the broker's storage engine and the admin client. Names
 * and meanings follow Kafka's topic configs so operators recognise them.
 */
public final class TopicConfig {
  private TopicConfig() {}

  public static final ConfigDef DEF = new ConfigDef("topic");

  /** {@code cleanup.policy} values. */
  public static final String CLEANUP_DELETE = "delete";

  public static final String CLEANUP_COMPACT = "compact";

  public static final ConfigKey<Integer> SEGMENT_BYTES =
      DEF.intKey(
          "segment.bytes",
          1 << 30,
          ConfigKey.atLeast(1024),
          "Roll a new segment when the active one reaches this many bytes.");
  public static final ConfigKey<Long> SEGMENT_MS =
      DEF.longKey(
          "segment.ms",
          7L * 24 * 3600 * 1000,
          ConfigKey.atLeast(1L),
          "Roll a new segment when the active one's first batch is this old.");
  public static final ConfigKey<Integer> SEGMENT_INDEX_BYTES =
      DEF.intKey(
          "segment.index.bytes",
          10 * 1024 * 1024,
          ConfigKey.atLeast(1024),
          "Preallocated size of each segment's offset index; the segment rolls when it is full.");
  public static final ConfigKey<Integer> INDEX_INTERVAL_BYTES =
      DEF.intKey(
          "index.interval.bytes",
          4096,
          ConfigKey.atLeast(0),
          "Add an offset/time index entry every this many bytes of log.");
  public static final ConfigKey<Long> RETENTION_MS =
      DEF.longKey(
          "retention.ms",
          7L * 24 * 3600 * 1000,
          ConfigKey.atLeast(-1L),
          "Delete whole segments whose newest record is older than this; -1 keeps them forever.");
  public static final ConfigKey<Long> RETENTION_BYTES =
      DEF.longKey(
          "retention.bytes",
          -1L,
          ConfigKey.atLeast(-1L),
          "Delete the oldest whole segments while the partition is larger than this; -1 = no limit.");
  public static final ConfigKey<List<String>> CLEANUP_POLICY =
      DEF.listKey(
          "cleanup.policy",
          List.of(CLEANUP_DELETE),
          TopicConfig::validCleanupPolicy,
          "delete: old segments go by retention.ms/retention.bytes; compact: the cleaner keeps the latest record per key; compact,delete: both.");
  public static final ConfigKey<Double> MIN_CLEANABLE_DIRTY_RATIO =
      DEF.doubleKey(
          "min.cleanable.dirty.ratio",
          0.5,
          ConfigKey.between(0.0, 1.0),
          "Compacted topics: clean when the not-yet-cleaned bytes are at least this share of the log.");
  public static final ConfigKey<Long> MIN_COMPACTION_LAG_MS =
      DEF.longKey(
          "min.compaction.lag.ms",
          0L,
          ConfigKey.atLeast(0L),
          "Compacted topics: a record stays uncompacted for at least this long after it was written.");
  public static final ConfigKey<Long> MAX_COMPACTION_LAG_MS =
      DEF.longKey(
          "max.compaction.lag.ms",
          Long.MAX_VALUE,
          ConfigKey.atLeast(1L),
          "Compacted topics: a record is compacted at most this long after it was written, whatever the dirty ratio.");
  public static final ConfigKey<Long> DELETE_RETENTION_MS =
      DEF.longKey(
          "delete.retention.ms",
          24L * 3600 * 1000,
          ConfigKey.atLeast(0L),
          "Compacted topics: a tombstone (null value) stays readable this long after the cleaner first saw it, then goes.");
  public static final ConfigKey<Integer> MAX_MESSAGE_BYTES =
      DEF.intKey(
          "max.message.bytes",
          1024 * 1024 + 12,
          ConfigKey.atLeast(64),
          "Largest record batch (including its 12-byte log overhead) the partition accepts.");
  public static final ConfigKey<String> MESSAGE_TIMESTAMP_TYPE =
      DEF.stringKey(
          "message.timestamp.type",
          "CreateTime",
          ConfigKey.oneOf("CreateTime", "LogAppendTime"),
          "CreateTime keeps the producer's timestamps; LogAppendTime stamps the broker's time on append.");
  public static final ConfigKey<Long> MESSAGE_TIMESTAMP_AFTER_MAX_MS =
      DEF.longKey(
          "message.timestamp.after.max.ms",
          3600L * 1000,
          ConfigKey.atLeast(0L),
          "Reject CreateTime batches whose timestamp is further than this in the broker's future.");
  public static final ConfigKey<Long> MESSAGE_TIMESTAMP_BEFORE_MAX_MS =
      DEF.longKey(
          "message.timestamp.before.max.ms",
          Long.MAX_VALUE,
          ConfigKey.atLeast(0L),
          "Reject CreateTime batches whose timestamp is further than this in the broker's past.");
  public static final ConfigKey<Integer> MIN_INSYNC_REPLICAS =
      DEF.intKey(
          "min.insync.replicas",
          -1,
          v -> v == -1 || v >= 1 ? null : "must be -1 or at least 1",
          "acks=all writes need this many in-sync replicas; -1 = a majority of the replication factor.");
  public static final ConfigKey<Boolean> UNCLEAN_LEADER_ELECTION_ENABLE =
      DEF.boolKey(
          "unclean.leader.election.enable",
          false,
          "Allow electing an out-of-sync replica when no in-sync one is alive (may lose acknowledged data).");
  public static final ConfigKey<Long> FILE_DELETE_DELAY_MS =
      DEF.longKey(
          "file.delete.delay.ms",
          60_000L,
          ConfigKey.atLeast(0L),
          "Delay between removing a segment from the log and deleting its files (in-flight reads finish).");

  public static final ConfigKey<String> COMPRESSION_TYPE =
      DEF.stringKey(
          "compression.type",
          "producer",
          ConfigKey.oneOf("producer", "none", "gzip", "snappy", "lz4", "zstd"),
          "producer stores batches as the producer compressed them; a codec (or none) makes the leader recompress batches that use another.");
  static final CompressionConfig LEVELS =
      CompressionConfig.define(DEF, "when compression.type names it and the leader recompresses.");
  public static final ConfigKey<Integer> COMPRESSION_GZIP_LEVEL = LEVELS.gzipLevel();
  public static final ConfigKey<Integer> COMPRESSION_LZ4_LEVEL = LEVELS.lz4Level();
  public static final ConfigKey<Integer> COMPRESSION_ZSTD_LEVEL = LEVELS.zstdLevel();
  public static final ConfigKey<Integer> MESSAGE_MAX_DECOMPRESSED_BYTES =
      DEF.intKey(
          "message.max.decompressed.bytes",
          64 * 1024 * 1024,
          ConfigKey.atLeast(1024),
          "Largest size a compressed batch's records may inflate to; the leader refuses a batch that inflates past it (MESSAGE_TOO_LARGE), having inflated at most this much, in a small window.");

  /** The level {@code topicConfig} sets for codec {@code name} (0 for none and snappy). */
  public static int compressionLevel(String name, Config topicConfig) {
    return LEVELS.levelFor(name, topicConfig);
  }

  /**
   * Parses a topic's explicit overrides; every other key takes its default. Also checks that {@code
   * min.compaction.lag.ms} is not above {@code max.compaction.lag.ms}.
   */
  public static Config parse(Map<String, String> overrides) {
    Config c = DEF.parse(overrides);
    if (c.get(MIN_COMPACTION_LAG_MS) > c.get(MAX_COMPACTION_LAG_MS)) {
      throw new ConfigException(
          MIN_COMPACTION_LAG_MS.name(),
          "value "
              + c.get(MIN_COMPACTION_LAG_MS)
              + " is above "
              + MAX_COMPACTION_LAG_MS.name()
              + " ("
              + c.get(MAX_COMPACTION_LAG_MS)
              + ")");
    }
    return c;
  }

  /** Whether {@code cleanup.policy} includes compact. */
  public static boolean compact(Config topicConfig) {
    return topicConfig.get(CLEANUP_POLICY).contains(CLEANUP_COMPACT);
  }

  /** Whether {@code cleanup.policy} includes delete (retention by time and size). */
  public static boolean delete(Config topicConfig) {
    return topicConfig.get(CLEANUP_POLICY).contains(CLEANUP_DELETE);
  }

  private static String validCleanupPolicy(List<String> policies) {
    if (policies.isEmpty()) {
      return "must name delete, compact or both";
    }
    for (String p : policies) {
      if (!p.equals(CLEANUP_DELETE) && !p.equals(CLEANUP_COMPACT)) {
        return "has unknown policy '" + p + "' (policies: delete, compact)";
      }
    }
    return null;
  }

  /** The effective {@code min.insync.replicas} for a replication factor: -1 means a majority. */
  public static int effectiveMinInsyncReplicas(Config topicConfig, int replicationFactor) {
    int configured = topicConfig.get(MIN_INSYNC_REPLICAS);
    return configured == -1 ? replicationFactor / 2 + 1 : configured;
  }
}
