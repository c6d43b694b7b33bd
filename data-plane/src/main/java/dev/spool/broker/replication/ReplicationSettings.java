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
 */
public record ReplicationSettings(
    int localBrokerId,
    long replicaLagTimeMaxMs,
    int maxPendingProducesPerPartition,
    long isrChangeRetryBackoffMs) {

  public ReplicationSettings {
    if (replicaLagTimeMaxMs < 1
        || maxPendingProducesPerPartition < 1
        || isrChangeRetryBackoffMs < 0) {
      throw new IllegalArgumentException("invalid replication settings");
    }
  }
}
