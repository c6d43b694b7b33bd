package dev.spool.coordinator.group.assignor;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Balanced and sticky: every member ends with as many partitions as any other eligible member, give
 * or take one, and partitions stay with their current owner unless balance needs them elsewhere.
 *
 * <p>Three steps: (1) each member keeps its current target partitions that still exist and that it
 * still subscribes to; (2) each partition left over goes to the eligible member (one subscribed to
 * its topic) with the fewest partitions; (3) while some member has at least two partitions more
 * than a member eligible for one of them, that partition moves. Each move lowers the sum of squared
 * counts, so step 3 ends; with identical subscriptions it makes exactly the moves balance needs (a
 * joining member takes ⌊P/M⌋ partitions, one from each of the fullest members). Ties break by
 * member id and partition order, so the result is deterministic.
 */
public final class UniformAssignor implements PartitionAssignor {
  public static final String NAME = "uniform";

  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, Set<TopicPartition>> assign(AssignmentSpec spec) {
    Map<String, TreeSet<TopicPartition>> out = new TreeMap<>();
    Set<TopicPartition> taken = new HashSet<>();
    spec.members()
        .forEach(
            (id, m) -> {
              TreeSet<TopicPartition> kept = new TreeSet<>(ORDER);
              for (TopicPartition tp : m.currentTarget()) {
                if (spec.exists(tp) && m.topics().contains(tp.topic()) && taken.add(tp)) {
                  kept.add(tp);
                }
              }
              out.put(id, kept);
            });
    Map<String, List<String>> eligible = eligibleMembers(spec);
    List<TopicPartition> unassigned = new ArrayList<>();
    new TreeMap<>(spec.partitionCounts())
        .forEach(
            (topic, count) -> {
              if (eligible.containsKey(topic)) {
                for (int p = 0; p < count; p++) {
                  TopicPartition tp = new TopicPartition(topic, p);
                  if (!taken.contains(tp)) {
                    unassigned.add(tp);
                  }
                }
              }
            });
    for (TopicPartition tp : unassigned) {
      String to = leastLoaded(eligible.get(tp.topic()), out, Integer.MAX_VALUE);
      out.get(to).add(tp);
    }
    balance(eligible, out);
    Map<String, Set<TopicPartition>> result = new TreeMap<>();
    out.forEach((id, s) -> result.put(id, Set.copyOf(s)));
    return result;
  }

  private static Map<String, List<String>> eligibleMembers(AssignmentSpec spec) {
    Map<String, List<String>> eligible = new HashMap<>();
    spec.members()
        .forEach(
            (id, m) -> {
              for (String t : m.topics()) {
                if (spec.partitionCounts().containsKey(t)) {
                  eligible.computeIfAbsent(t, k -> new ArrayList<>()).add(id);
                }
              }
            });
    return eligible;
  }

  /** The member of {@code candidates} with the fewest partitions below {@code below}, or null. */
  private static String leastLoaded(
      List<String> candidates, Map<String, TreeSet<TopicPartition>> out, int below) {
    String best = null;
    int bestCount = below;
    for (String c : candidates) {
      int n = out.get(c).size();
      if (n < bestCount) {
        best = c;
        bestCount = n;
      }
    }
    return best;
  }

  private static void balance(
      Map<String, List<String>> eligible, Map<String, TreeSet<TopicPartition>> out) {
    boolean moved = true;
    while (moved) {
      moved = false;
      List<String> donors = new ArrayList<>(out.keySet());
      donors.sort(
          Comparator.comparingInt((String id) -> out.get(id).size())
              .reversed()
              .thenComparing(Comparator.naturalOrder()));
      for (String donor : donors) {
        int count = out.get(donor).size();
        if (count < 2) {
          break;
        }
        // Move from the end of the donor's list: the lowest partitions stay put.
        for (TopicPartition tp : out.get(donor).descendingSet()) {
          String to = leastLoaded(eligible.get(tp.topic()), out, count - 1);
          if (to != null && !to.equals(donor)) {
            out.get(donor).remove(tp);
            out.get(to).add(tp);
            moved = true;
            break;
          }
        }
        if (moved) {
          break;
        }
      }
    }
  }
}
