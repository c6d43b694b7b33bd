package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;
import java.util.HashMap;
import java.util.Map;

/**
 * At most one broker ever leads a partition in a given leader epoch, over the whole run (crashes
 * and restarts included).
 *
 * <p>Threads: the simulation's single thread.
 */
final class SingleLeaderPerEpoch implements Invariant.PerLeader {
  /** "partition@epoch" -> the broker seen leading it first. */
  private final Map<String, Integer> leaderOfEpoch = new HashMap<>();

  @Override
  public void check(ReplicationSimulation sim, TopicPartition tp, SimBroker l, Partition p) {
    String key = tp + "@" + p.leaderEpoch();
    Integer prev = leaderOfEpoch.putIfAbsent(key, l.id);
    sim.check(
        prev == null || prev == l.id,
        name(),
        () ->
            "brokers "
                + prev
                + " and "
                + l.id
                + " both led "
                + tp
                + " in epoch "
                + p.leaderEpoch());
  }
}
