package dev.spool.chaos.checker;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checker of a keyed workload on a compacted topic (cleanup.policy=compact), where older values
 * of a key are meant to disappear, so the lost-write and unseen checkers do not apply. Each key is
 * written by one writer, one send at a time, with values 1, 2, 3, ... (the version of the key), so
 * the values of a key are ordered by when they were sent. Given every send's outcome and a final
 * read of the whole topic in offset order, it reports:
 *
 * <ul>
 *   <li><b>{@value #RESURRECTED}</b>: a key read with an older value after a newer one, in offset
 *       order (compaction dropped the newer record, or an older record came back below it);
 *   <li><b>{@value #STALE}</b>: a key's final value is older than its last acknowledged value;
 *   <li><b>{@value #LOST}</b>: a key with an acknowledged value is not read at all;
 *   <li><b>{@value #PHANTOM}</b>: a value read that was never sent, or whose send failed (a
 *       definite failure: nothing may have been appended).
 * </ul>
 *
 * A final value newer than the last acknowledged one is fine when its send's outcome is unknown
 * ({@code info}): it may have been appended. Pure: reads its inputs only; thread-confined to the
 * caller.
 */
public final class CompactedKeys {
  public static final String RESURRECTED = "compacted-resurrected-value";
  public static final String STALE = "compacted-stale-value";
  public static final String LOST = "compacted-lost-key";
  public static final String PHANTOM = "compacted-phantom-value";

  private CompactedKeys() {}

  /** How a send ended: acknowledged, refused for sure, or unknown. */
  public enum Outcome {
    OK,
    FAIL,
    INFO
  }

  /** One send of value (version) {@code value} of {@code key}. */
  public record Write(String key, long value, Outcome outcome) {}

  /** One record of the final read. */
  public record Read(TopicPartition partition, long offset, String key, long value) {}

  /**
   * The anomalies of {@code writes} and {@code finalRead} (records of each partition in offset
   * order; partitions in any order).
   */
  public static List<Anomaly> check(List<Write> writes, List<Read> finalRead) {
    Map<String, Map<Long, Outcome>> sent = new HashMap<>();
    Map<String, Long> lastOk = new LinkedHashMap<>();
    for (Write w : writes) {
      sent.computeIfAbsent(w.key(), k -> new HashMap<>()).put(w.value(), w.outcome());
      if (w.outcome() == Outcome.OK) {
        lastOk.merge(w.key(), w.value(), Math::max);
      }
    }
    List<Anomaly> found = new ArrayList<>();
    Map<String, Read> last = new LinkedHashMap<>();
    for (Read r : finalRead) {
      Outcome o = sent.getOrDefault(r.key(), Map.of()).get(r.value());
      if (o == null || o == Outcome.FAIL) {
        found.add(
            Anomaly.of(PHANTOM, r.partition())
                .offsets(List.of(r.offset()))
                .values(List.of(r.value()))
                .detail("key", r.key())
                .summary(
                    "key "
                        + r.key()
                        + " read with value "
                        + r.value()
                        + " at offset "
                        + r.offset()
                        + ", "
                        + (o == null ? "which was never sent" : "whose send failed for sure")));
      }
      Read before = last.get(r.key());
      if (before != null
          && before.partition().equals(r.partition())
          && r.offset() > before.offset()
          && r.value() < before.value()) {
        found.add(
            Anomaly.of(RESURRECTED, r.partition())
                .offsets(List.of(before.offset(), r.offset()))
                .values(List.of(before.value(), r.value()))
                .detail("key", r.key())
                .summary(
                    "key "
                        + r.key()
                        + " reads "
                        + before.value()
                        + " at offset "
                        + before.offset()
                        + " and then the older "
                        + r.value()
                        + " at offset "
                        + r.offset()));
      }
      last.put(r.key(), r);
    }
    for (Map.Entry<String, Long> e : lastOk.entrySet()) {
      String key = e.getKey();
      long acked = e.getValue();
      Read fin = last.get(key);
      if (fin == null) {
        found.add(
            Anomaly.of(LOST, null)
                .values(List.of(acked))
                .detail("key", key)
                .summary("key " + key + " had value " + acked + " acknowledged but is not read"));
      } else if (fin.value() < acked) {
        found.add(
            Anomaly.of(STALE, fin.partition())
                .offsets(List.of(fin.offset()))
                .values(List.of(acked, fin.value()))
                .detail("key", key)
                .summary(
                    "key "
                        + key
                        + " ends with value "
                        + fin.value()
                        + " at offset "
                        + fin.offset()
                        + " although "
                        + acked
                        + " was acknowledged"));
      }
    }
    return found;
  }
}
