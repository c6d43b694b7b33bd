package dev.spool.chaos.checker;

import dev.spool.chaos.checker.GroupHistory.Acked;
import dev.spool.chaos.checker.GroupHistory.Event;
import dev.spool.chaos.checker.GroupHistory.Polled;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * <b>group-unconsumed</b>: an acknowledged value that no member of the group ever polled. A group
 * promises at-least-once: whoever owns a partition, every acknowledged record of it reaches some
 * member. The run must end with members polling until they have caught up. One anomaly per
 * partition, listing up to {@link Unseen#MAX_VALUES} values.
 */
public final class GroupUnconsumed implements GroupChecker {
  public static final String NAME = "group-unconsumed";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(GroupHistory h) {
    Map<TopicPartition, Set<Long>> polled = new HashMap<>();
    for (Event e : h.events()) {
      if (e instanceof Polled p) {
        Set<Long> s = polled.computeIfAbsent(p.partition(), k -> new HashSet<>());
        p.records().forEach(r -> s.add(r.value()));
      }
    }
    Map<TopicPartition, List<Acked>> missing = new TreeMap<>();
    int acked = 0;
    for (Event e : h.events()) {
      if (e instanceof Acked a) {
        acked++;
        if (!polled.getOrDefault(a.partition(), Set.of()).contains(a.value())) {
          missing.computeIfAbsent(a.partition(), k -> new ArrayList<>()).add(a);
        }
      }
    }
    if (acked == 0) {
      return CheckResult.unknown(NAME, "no acknowledged send");
    }
    List<Anomaly> found = new ArrayList<>();
    missing.forEach(
        (tp, list) -> {
          List<Acked> shown = list.subList(0, Math.min(list.size(), Unseen.MAX_VALUES));
          found.add(
              Anomaly.of(NAME, tp)
                  .offsets(shown.stream().map(Acked::offset).toList())
                  .values(shown.stream().map(Acked::value).toList())
                  .detail("count", list.size())
                  .summary(
                      list.size()
                          + " acknowledged value(s) of "
                          + tp
                          + " were never polled by any member, first at offset "
                          + list.get(0).offset()));
        });
    return CheckResult.of(NAME, found, acked + " acknowledged values");
  }
}
