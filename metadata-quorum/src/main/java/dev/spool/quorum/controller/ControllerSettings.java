package dev.spool.quorum.controller;

/**
 * The settings the pure controller decisions use (taken from {@code QuorumConfig}).
 *
 * @param sessionTimeoutMs a broker that has not heartbeated for this long is fenced
 * @param heartbeatIntervalMs how often brokers heartbeat (used for answers, not decisions)
 * @param defaultReplicationFactor replication factor when a create request says -1 (capped by the
 *     number of eligible brokers)
 * @param defaultNumPartitions partition count when a create request says -1
 * @param maxPartitionsPerTopic upper bound on a topic's partition count
 * @param producerIdBlockSize producer ids handed to a broker per allocation
 * @param autoLeaderRebalance move leadership back to preferred replicas periodically
 * @param leaderImbalanceCheckIntervalMs how often that balancing runs
 * @param maxRecordsPerWrite bound on records in one controller write (the rest waits a tick)
 * @param maxBatchesPerHeartbeat bound on metadata batches in one heartbeat answer
 */
public record ControllerSettings(
    long sessionTimeoutMs,
    long heartbeatIntervalMs,
    int defaultReplicationFactor,
    int defaultNumPartitions,
    int maxPartitionsPerTopic,
    int producerIdBlockSize,
    boolean autoLeaderRebalance,
    long leaderImbalanceCheckIntervalMs,
    int maxRecordsPerWrite,
    int maxBatchesPerHeartbeat) {

  /** Defaults as in QuorumConfig; for tests. */
  public static ControllerSettings defaults() {
    return new ControllerSettings(1500, 250, 3, 1, 10_000, 1000, true, 30_000, 2000, 1000);
  }

  public ControllerSettings withSessionTimeoutMs(long ms) {
    return new ControllerSettings(
        ms,
        heartbeatIntervalMs,
        defaultReplicationFactor,
        defaultNumPartitions,
        maxPartitionsPerTopic,
        producerIdBlockSize,
        autoLeaderRebalance,
        leaderImbalanceCheckIntervalMs,
        maxRecordsPerWrite,
        maxBatchesPerHeartbeat);
  }

  public ControllerSettings withLeaderBalancing(boolean enabled, long intervalMs) {
    return new ControllerSettings(
        sessionTimeoutMs,
        heartbeatIntervalMs,
        defaultReplicationFactor,
        defaultNumPartitions,
        maxPartitionsPerTopic,
        producerIdBlockSize,
        enabled,
        intervalMs,
        maxRecordsPerWrite,
        maxBatchesPerHeartbeat);
  }
}
