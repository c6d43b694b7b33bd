package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;

/**
 * A follower of the current leader (same leader epoch) holds exactly the leader's batches below the
 * smaller of both high watermarks: followers truncate by leader epochs, so what they keep below the
 * high watermark is never a different history.
 *
 * <p>Threads: the simulation's single thread.
 */
final class FollowerPrefixConsistentBelowHighWatermark implements Invariant.PerLeader {
  private final VerifiedPrefixes verified = new VerifiedPrefixes();

  @Override
  public void check(ReplicationSimulation sim, TopicPartition tp, SimBroker l, Partition p) {
    long hw = p.log().highWatermark();
    for (SimBroker f : sim.brokers) {
      Partition fp = f.alive ? f.partitions.get(tp) : null;
      if (fp == null
          || fp.role() != ReplicaRole.FOLLOWER
          || fp.leaderId() != l.id
          || fp.leaderEpoch() != p.leaderEpoch()) {
        continue;
      }
      long bound = Math.min(hw, fp.log().highWatermark());
      sim.check(
          verified.equalBelow(f.shadows.get(tp), l.shadows.get(tp), bound),
          name(),
          () ->
              "follower "
                  + f.id
                  + " of "
                  + tp
                  + " differs from leader "
                  + l.id
                  + " below "
                  + bound
                  + ": "
                  + f.shadows.get(tp).describe(bound)
                  + " vs "
                  + l.shadows.get(tp).describe(bound));
    }
  }
}
