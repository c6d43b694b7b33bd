package dev.spool.broker.replication;

import dev.spool.common.TopicPartition;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Below a leader's high watermark no idempotent batch (producer id and base sequence) is stored
 * twice: retries after leader changes are detected as duplicates, not appended again.
 *
 * <p>Each leader's shadow keeps the writes already checked and the offset they were checked below,
 * so a step reads only the batches committed since; a shadow read afresh ({@link
 * LogShadow#generation}) is checked whole again.
 *
 * <p>Threads: the simulation's single thread.
 */
final class NoDuplicateBelowHighWatermark implements Invariant.PerLeader {
  private static final class Seen {
    final int generation;
    final Set<String> writes = new HashSet<>();
    long bound = Long.MIN_VALUE;

    Seen(int generation) {
      this.generation = generation;
    }
  }

  private final Map<LogShadow, Seen> seen = new IdentityHashMap<>();

  @Override
  public void check(ReplicationSimulation sim, TopicPartition tp, SimBroker l, Partition p) {
    long hw = p.log().highWatermark();
    LogShadow shadow = l.shadows.get(tp);
    Seen s = seen.get(shadow);
    if (s == null || s.generation != shadow.generation) {
      s = new Seen(shadow.generation);
      seen.put(shadow, s);
    }
    if (hw <= s.bound) {
      return; // everything below hw was checked and has not changed since
    }
    Map<Long, LogShadow.Batch> fresh =
        s.bound == Long.MIN_VALUE ? shadow.below(hw) : shadow.between(s.bound, hw);
    for (Map.Entry<Long, LogShadow.Batch> e : fresh.entrySet()) {
      LogShadow.Batch b = e.getValue();
      if (b.producerId() < 0) {
        continue;
      }
      String w = b.producerId() + "/" + b.baseSequence();
      sim.check(
          s.writes.add(w),
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
    s.bound = hw;
  }
}
