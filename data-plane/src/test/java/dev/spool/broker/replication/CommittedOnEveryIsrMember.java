package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;

/**
 * Every batch below a leader's high watermark is on every live member of its maximal ISR (the
 * committed ISR plus a pending change), byte for byte: the high watermark counts only what the
 * whole maximal ISR has.
 *
 * <p>Threads: the simulation's single thread.
 */
final class CommittedOnEveryIsrMember implements Invariant.PerLeader {
  private final VerifiedPrefixes verified = new VerifiedPrefixes();

  @Override
  public void check(ReplicationSimulation sim, TopicPartition tp, SimBroker l, Partition p) {
    long hw = p.log().highWatermark();
    for (int m : p.leaderState().maximalIsr()) {
      SimBroker mb = sim.broker(m);
      if (m == l.id || !mb.alive || !mb.shadows.containsKey(tp)) {
        continue;
      }
      sim.check(
          verified.equalBelow(l.shadows.get(tp), mb.shadows.get(tp), hw),
          name(),
          () ->
              "leader "
                  + l.id
                  + " of "
                  + tp
                  + " (epoch "
                  + p.leaderEpoch()
                  + ", HW "
                  + hw
                  + ") has "
                  + l.shadows.get(tp).describe(hw)
                  + " but ISR member "
                  + m
                  + " has "
                  + mb.shadows.get(tp).describe(hw));
    }
  }
}
