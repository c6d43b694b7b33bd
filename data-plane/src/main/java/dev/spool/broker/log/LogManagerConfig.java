package dev.spool.broker.log;

/**
 * Data-directory level settings of a {@link LogManager}, built by {@code
 * BrokerConfig.logManagerConfig} (whose keys own every default). Immutable; any thread.
 *
 * @param recoveryThreads threads that open partitions in parallel at startup (bounded pool)
 * @param retentionCheckIntervalMs how often retention runs over every partition
 * @param checkpointIntervalMs how often high watermarks, recovery points and log start offsets are
 *     written to the data directory's checkpoint files
 * @param producerIdExpirationMs a producer whose newest batch is older than this is forgotten by
 *     each partition at its next retention pass (Kafka's {@code producer.id.expiration.ms})
 * @param defaultLogConfig the config of partitions opened at startup, until updated
 * @param cleaner the log cleaner's settings
 */
public record LogManagerConfig(
    int recoveryThreads,
    long retentionCheckIntervalMs,
    long checkpointIntervalMs,
    long producerIdExpirationMs,
    LogConfig defaultLogConfig,
    CleanerConfig cleaner) {

  public LogManagerConfig {
    if (recoveryThreads < 1 || recoveryThreads > 64) {
      throw new IllegalArgumentException("recoveryThreads must be in [1, 64]: " + recoveryThreads);
    }
    if (retentionCheckIntervalMs < 1 || checkpointIntervalMs < 1 || producerIdExpirationMs < 1) {
      throw new IllegalArgumentException("intervals must be >= 1 ms");
    }
    if (defaultLogConfig == null || cleaner == null) {
      throw new IllegalArgumentException("defaultLogConfig and cleaner are required");
    }
  }
}
