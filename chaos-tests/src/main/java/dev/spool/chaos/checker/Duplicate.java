package dev.spool.chaos.checker;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * <b>duplicate</b>: one value at more than one offset of a partition.
 *
 * <p>Jepsen ({@code kafka.clj}, {@code duplicate-cases}): "a single value appears at more than one
 * offset in a key", counted over the version order (acknowledged offsets and polled offsets). Our
 * values are unique per run, so any duplicate means the log holds a record twice, e.g. a producer
 * retry appended again, which idempotence must prevent.
 */
public final class Duplicate implements Checker {
  public static final String NAME = "duplicate";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    List<Anomaly> found = new ArrayList<>();
    for (TopicPartition tp : a.partitions()) {
      VersionOrder vo = a.versionOrder(tp);
      List<Long> values = new ArrayList<>();
      vo.values().forEach(values::add);
      values.sort(Long::compare);
      for (long v : values) {
        List<Long> offsets = vo.offsetsOf(v);
        if (offsets.size() < 2) {
          continue;
        }
        Set<Integer> ops = new LinkedHashSet<>();
        for (long o : offsets) {
          ops.addAll(vo.claimsAt(o).get(v));
        }
        List<Integer> opList = List.copyOf(ops);
        found.add(
            Anomaly.of(NAME, tp)
                .offsets(offsets)
                .values(List.of(v))
                .ops(opList, opList.stream().map(i -> a.history().op(i).timeNs()).toList())
                .detail("count", offsets.size())
                .summary(
                    "value "
                        + v
                        + " appears at "
                        + offsets.size()
                        + " offsets of "
                        + tp
                        + ": "
                        + offsets));
      }
    }
    return CheckResult.of(NAME, found, null);
  }
}
