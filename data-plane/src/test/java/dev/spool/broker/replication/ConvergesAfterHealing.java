package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.PartitionState;

/**
 * Once every fault is healed and the cluster has had time to settle: every partition has a leader,
 * and its log holds every acknowledged write.
 *
 * <p>Threads: the simulation's single thread.
 */
final class ConvergesAfterHealing implements Invariant {
  @Override
  public void check(ReplicationSimulation sim) {
    for (TopicPartition tp : sim.tps) {
      PartitionState st = sim.quorum.image.partition(tp);
      sim.check(st.hasLeader(), name(), () -> tp + " has no leader: " + st);
      SimBroker l = sim.broker(st.leader());
      for (SimClients.Acked a : sim.clients.acked) {
        if (a.tp().equals(tp)) {
          LogShadow.Batch found = l.shadows.get(tp).batches.get(a.baseOffset());
          sim.check(
              found != null && found.crc() == a.crc(),
              name(),
              () -> "leader " + l.id + " of " + tp + " lacks acknowledged batch " + a.baseOffset());
        }
      }
    }
  }
}
