package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;
import java.util.HashMap;
import java.util.Map;

/**
 * A leader's high watermark never goes back while it leads in one epoch (one incarnation of the
 * broker: a restarted broker starts from its checkpointed high watermark, which may be older).
 *
 * <p>Threads: the simulation's single thread.
 */
final class LeaderHighWatermarkNeverDecreases implements Invariant.PerLeader {
  /** "broker/incarnation/partition@epoch" -> the high watermark seen last. */
  private final Map<String, Long> leaderHighWatermark = new HashMap<>();

  @Override
  public void check(ReplicationSimulation sim, TopicPartition tp, SimBroker l, Partition p) {
    long hw = p.log().highWatermark();
    String hwKey = l.id + "/" + l.incarnation + "/" + tp + "@" + p.leaderEpoch();
    Long prevHw = leaderHighWatermark.put(hwKey, hw);
    sim.check(
        prevHw == null || hw >= prevHw,
        name(),
        () ->
            "broker "
                + l.id
                + " "
                + tp
                + " epoch "
                + p.leaderEpoch()
                + ": "
                + prevHw
                + " -> "
                + hw);
  }
}
