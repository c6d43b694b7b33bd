package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Below a leader's high watermark no idempotent batch (producer id and base sequence) is stored
 * twice: retries after leader changes are detected as duplicates, not appended again.
 *
 * <p>Threads: the simulation's single thread.
 */
final class NoDuplicateBelowHighWatermark implements Invariant.PerLeader {
  @Override
  public void check(ReplicationSimulation sim, TopicPartition tp, SimBroker l, Partition p) {
    long hw = p.log().highWatermark();
    Set<String> writes = new HashSet<>();
    for (Map.Entry<Long, LogShadow.Batch> e : l.shadows.get(tp).below(hw).entrySet()) {
      LogShadow.Batch b = e.getValue();
      if (b.producerId() < 0) {
        continue;
      }
      String w = b.producerId() + "/" + b.baseSequence();
      sim.check(
          writes.add(w),
          name(),
          () ->
              "leader "
                  + l.id
                  + " of "
                  + tp
                  + " holds producer/sequence "
                  + w
                  + " twice below HW "
                  + hw
                  + ", again at "
                  + e.getKey());
    }
  }
}
