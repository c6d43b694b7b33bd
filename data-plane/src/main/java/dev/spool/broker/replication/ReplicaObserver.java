package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;

/**
 * Told about every local replica's role and high-watermark changes, on the partition's owner
 * thread; must not block. The group coordinator uses it to load an offsets partition when this
 * broker becomes its leader, drop it when it stops, and answer once its writes are committed.
 */
public interface ReplicaObserver {
  /** The replica changed role or leader epoch; {@code partition} may be read (owner thread). */
  void onRoleChanged(Partition partition, ReplicaRole role, int leaderEpoch);

  /** The high watermark moved forward. */
  void onHighWatermarkChanged(TopicPartition tp, long highWatermark);

  /** Observes nothing. */
  ReplicaObserver NONE =
      new ReplicaObserver() {
        @Override
        public void onRoleChanged(Partition partition, ReplicaRole role, int leaderEpoch) {}

        @Override
        public void onHighWatermarkChanged(TopicPartition tp, long highWatermark) {}
      };
}
