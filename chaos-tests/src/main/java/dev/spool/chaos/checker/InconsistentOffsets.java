package dev.spool.chaos.checker;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * <b>inconsistent-offsets</b>: two different values at one offset of a partition.
 *
 * <p>Jepsen ({@code kafka.clj}, {@code version-orders} errors): "all sends and polls agree on the
 * value for a given key and offset"; an offset that maps to more than one value means the system
 * disagreed with itself about the log, e.g. a consumer read one value where a producer was told its
 * value landed, or two consumers read different records at one offset (a replica that diverged and
 * then served reads). Offsets do not need to be contiguous.
 */
public final class InconsistentOffsets implements Checker {
  public static final String NAME = "inconsistent-offsets";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    List<Anomaly> found = new ArrayList<>();
    for (TopicPartition tp : a.partitions()) {
      VersionOrder vo = a.versionOrder(tp);
      for (Map.Entry<Long, Map<Long, List<Integer>>> e : vo.log().entrySet()) {
        if (e.getValue().size() < 2) {
          continue;
        }
        List<Long> values = new ArrayList<>(e.getValue().keySet());
        values.sort(Long::compare);
        List<Integer> ops = new ArrayList<>();
        Map<String, Object> claims = new LinkedHashMap<>();
        for (long v : values) {
          List<Integer> by = e.getValue().get(v);
          ops.addAll(by);
          claims.put(Long.toString(v), List.copyOf(by));
        }
        found.add(
            Anomaly.of(NAME, tp)
                .offsets(List.of(e.getKey()))
                .values(values)
                .ops(ops, ops.stream().map(i -> a.history().op(i).timeNs()).toList())
                .detail("opsByValue", claims)
                .summary(
                    "offset "
                        + e.getKey()
                        + " of "
                        + tp
                        + " holds "
                        + values.size()
                        + " different values "
                        + values
                        + " (ops by value: "
                        + claims
                        + ")"));
      }
    }
    return CheckResult.of(NAME, found, null);
  }
}
