package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.PartitionState;

/**
 * Every batch acknowledged with acks=all is, unchanged and at its offset, on every live member of
 * the ISR the quorum holds now: whoever the quorum elects next has it.
 *
 * <p>Threads: the simulation's single thread.
 */
final class AcknowledgedWriteNeverLost implements Invariant {
  @Override
  public void check(ReplicationSimulation sim) {
    for (TopicPartition tp : sim.tps) {
      PartitionState st = sim.quorum.image.partition(tp);
      for (SimClients.Acked a : sim.clients.acked) {
        if (!a.tp().equals(tp)) {
          continue;
        }
        for (int m : st.isr()) {
          SimBroker mb = sim.broker(m);
          if (!mb.alive || !mb.shadows.containsKey(tp)) {
            continue;
          }
          LogShadow.Batch found = mb.shadows.get(tp).batches.get(a.baseOffset());
          sim.check(
              found != null && found.crc() == a.crc() && found.last() == a.lastOffset(),
              name(),
              () ->
                  "batch "
                      + a.baseOffset()
                      + ".."
                      + a.lastOffset()
                      + " of "
                      + tp
                      + " acknowledged at step "
                      + a.step()
                      + " is "
                      + (found == null ? "missing" : "different")
                      + " on ISR member "
                      + m
                      + " (ISR "
                      + st.isr()
                      + ", its log "
                      + mb.shadows.get(tp).describe(a.lastOffset() + 1)
                      + ")");
        }
      }
    }
  }
}
