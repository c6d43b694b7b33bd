package dev.spool.coordinator.group.assignor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Builders and the properties every assignor result must have. */
final class AssignorTestSupport {
  private AssignorTestSupport() {}

  static TreeMap<String, AssignmentSpec.Member> members(
      Map<String, Set<String>> subscriptions, Map<String, Set<TopicPartition>> current) {
    TreeMap<String, AssignmentSpec.Member> out = new TreeMap<>();
    subscriptions.forEach(
        (id, topics) ->
            out.put(id, new AssignmentSpec.Member(topics, "", current.getOrDefault(id, Set.of()))));
    return out;
  }

  /** Every partition of a subscribed topic to exactly one member, and only to a subscriber. */
  static void assertValid(AssignmentSpec spec, Map<String, Set<TopicPartition>> result) {
    assertEquals(spec.members().keySet(), result.keySet(), "an entry for every member");
    Map<TopicPartition, String> owner = new HashMap<>();
    result.forEach(
        (id, tps) -> {
          for (TopicPartition tp : tps) {
            String prev = owner.put(tp, id);
            assertEquals(null, prev, tp + " assigned to " + prev + " and " + id);
            assertTrue(spec.members().get(id).topics().contains(tp.topic()), id + " got " + tp);
            assertTrue(spec.exists(tp), tp + " does not exist");
          }
        });
    Set<String> subscribed = new HashSet<>();
    spec.members().values().forEach(m -> subscribed.addAll(m.topics()));
    spec.partitionCounts()
        .forEach(
            (topic, n) -> {
              if (subscribed.contains(topic)) {
                for (int p = 0; p < n; p++) {
                  assertTrue(owner.containsKey(new TopicPartition(topic, p)), topic + "-" + p);
                }
              }
            });
  }

  /** Partitions that changed owner (or lost one) between two assignments. */
  static int moves(
      Map<String, Set<TopicPartition>> before, Map<String, Set<TopicPartition>> after) {
    Map<TopicPartition, String> was = new HashMap<>();
    before.forEach((id, tps) -> tps.forEach(tp -> was.put(tp, id)));
    int n = 0;
    for (Map.Entry<String, Set<TopicPartition>> e : after.entrySet()) {
      for (TopicPartition tp : e.getValue()) {
        String prev = was.get(tp);
        if (prev != null && !prev.equals(e.getKey())) {
          n++;
        }
      }
    }
    return n;
  }
}
