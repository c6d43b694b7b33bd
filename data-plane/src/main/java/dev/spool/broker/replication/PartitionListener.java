package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;

/**
 * What a {@link Partition} tells the rest of the broker. Called on the partition's owner thread;
 * implementations must not block (they hand work to other threads).
 */
public interface PartitionListener {

  /**
   * Send {@code change} to the quorum (AlterPartition). The answer must come back through {@link
   * Partition#onIsrChangeResult} on the owner thread; a lost answer is fine as long as a failure is
   * reported (the partition then proposes again later).
   */
  void sendIsrChange(Partition partition, IsrChange change);

  /** The high watermark moved forward (consumer long polls may now see data). */
  default void onHighWatermarkChanged(TopicPartition tp, long highWatermark) {}

  /** The log end offset moved forward on the leader (follower long polls may now see data). */
  default void onAppended(TopicPartition tp, long logEndOffset) {}

  /** The replica changed role, leader or epoch (fetchers and waiting fetches react). */
  default void onRoleChanged(
      Partition partition, ReplicaRole role, int leaderId, int leaderEpoch) {}

  /**
   * An I/O error on the replica's files took it offline: the broker takes the whole data directory
   * offline ({@code LogManager.markOffline}) and reports it to the controller.
   */
  default void onStorageError(Partition partition, String reason) {}

  /** A listener that sends nothing (tests). */
  PartitionListener NONE = (p, c) -> {};
}
