package dev.spool.broker.replication;

/**
 * The replication knobs a {@link Partition} works with, built by {@code
 * BrokerConfig.replicationSettings} (whose keys own every default). Immutable; any thread.
 *
 * @param localBrokerId this broker's id
 * @param replicaLagTimeMaxMs an ISR member not caught up for this long is proposed for removal
 * @param maxPendingProducesPerPartition acks=all produces waiting for the high watermark, per
 *     partition (a limit on the purgatory: beyond it a produce is refused before it appends)
 * @param isrChangeRetryBackoffMs pause before proposing another ISR change after one failed
 * @param replicaSilentTimeMaxMs an ISR member from which no fetch arrived for this long is proposed
 *     for removal when the ISR keeps min.insync.replicas without it ({@link Long#MAX_VALUE}: never,
 *     only the lag rule)
 */
public record ReplicationSettings(
    int localBrokerId,
    long replicaLagTimeMaxMs,
    int maxPendingProducesPerPartition,
    long isrChangeRetryBackoffMs,
    long replicaSilentTimeMaxMs) {

  public ReplicationSettings {
    if (replicaLagTimeMaxMs < 1
        || maxPendingProducesPerPartition < 1
        || isrChangeRetryBackoffMs < 0
        || replicaSilentTimeMaxMs < 1) {
      throw new IllegalArgumentException("invalid replication settings");
    }
  }

  /** Settings where only the lag rule shrinks the ISR. */
  public ReplicationSettings(
      int localBrokerId,
      long replicaLagTimeMaxMs,
      int maxPendingProducesPerPartition,
      long isrChangeRetryBackoffMs) {
    this(
        localBrokerId,
        replicaLagTimeMaxMs,
        maxPendingProducesPerPartition,
        isrChangeRetryBackoffMs,
        Long.MAX_VALUE);
  }

  /** Whether a silent ISR member may leave before the lag rule would drop it. */
  public boolean shrinksOnSilence() {
    return replicaSilentTimeMaxMs != Long.MAX_VALUE;
  }

  /**
   * A gap between two of a leader's ticks longer than this means the leader itself stood still, and
   * its followers' silence counts again from the end of the gap.
   */
  public long leaderStallMs() {
    return shrinksOnSilence() ? Math.max(1L, replicaSilentTimeMaxMs / 2) : Long.MAX_VALUE;
  }
}
