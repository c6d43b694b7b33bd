package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.PartitionState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every batch acknowledged with acks=all is, unchanged and at its offset, on every live member of
 * the ISR the quorum holds now: whoever the quorum elects next has it.
 *
 * <p>Each member's shadow remembers how many of its partition's acknowledged batches were already
 * found on it; while the shadow is not read afresh ({@link LogShadow#generation}) those stay, so a
 * step checks only the batches acknowledged since (or since the member last counted).
 *
 * <p>Threads: the simulation's single thread.
 */
final class AcknowledgedWriteNeverLost implements Invariant {
  private record Found(int generation, int count) {}

  private final Map<TopicPartition, List<SimClients.Acked>> ackedByPartition = new HashMap<>();
  private int ackedSeen;
  private final Map<LogShadow, Found> found = new IdentityHashMap<>();

  @Override
  public void check(ReplicationSimulation sim) {
    List<SimClients.Acked> all = sim.clients.acked;
    for (; ackedSeen < all.size(); ackedSeen++) {
      SimClients.Acked a = all.get(ackedSeen);
      ackedByPartition.computeIfAbsent(a.tp(), k -> new ArrayList<>()).add(a);
    }
    for (TopicPartition tp : sim.tps) {
      PartitionState st = sim.quorum.image.partition(tp);
      List<SimClients.Acked> acked = ackedByPartition.getOrDefault(tp, List.of());
      for (int m : st.isr()) {
        SimBroker mb = sim.broker(m);
        if (!mb.alive || !mb.shadows.containsKey(tp)) {
          continue;
        }
        LogShadow shadow = mb.shadows.get(tp);
        Found f = found.get(shadow);
        int from = f != null && f.generation() == shadow.generation ? f.count() : 0;
        for (int i = from; i < acked.size(); i++) {
          check(sim, tp, st, m, shadow, acked.get(i));
        }
        found.put(shadow, new Found(shadow.generation, acked.size()));
      }
    }
  }

  private void check(
      ReplicationSimulation sim,
      TopicPartition tp,
      PartitionState st,
      int m,
      LogShadow shadow,
      SimClients.Acked a) {
    LogShadow.Batch found = shadow.batches.get(a.baseOffset());
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
                + shadow.describe(a.lastOffset() + 1)
                + ")");
  }
}
