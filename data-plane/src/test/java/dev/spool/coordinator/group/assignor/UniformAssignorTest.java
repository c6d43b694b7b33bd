package dev.spool.coordinator.group.assignor;

import static dev.spool.coordinator.group.assignor.AssignorTestSupport.assertValid;
import static dev.spool.coordinator.group.assignor.AssignorTestSupport.members;
import static dev.spool.coordinator.group.assignor.AssignorTestSupport.moves;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.TopicPartition;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class UniformAssignorTest {
  private final UniformAssignor assignor = new UniformAssignor();

  private static Map<String, Set<String>> sameTopics(int members, Set<String> topics) {
    Map<String, Set<String>> out = new TreeMap<>();
    for (int i = 0; i < members; i++) {
      out.put(String.format("m%02d", i), topics);
    }
    return out;
  }

  private static int spread(Map<String, Set<TopicPartition>> result) {
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (Set<TopicPartition> s : result.values()) {
      min = Math.min(min, s.size());
      max = Math.max(max, s.size());
    }
    return max - min;
  }

  @Test
  void shouldBalanceIdenticalSubscriptions() {
    AssignmentSpec spec =
        new AssignmentSpec(
            members(sameTopics(7, Set.of("a", "b")), Map.of()), Map.of("a", 30, "b", 11));
    Map<String, Set<TopicPartition>> r = assignor.assign(spec);
    assertValid(spec, r);
    assertTrue(spread(r) <= 1, r.toString());
  }

  @Test
  void shouldMoveOnlyWhatAJoiningMemberTakes() {
    Map<String, Integer> counts = Map.of("t", 60);
    AssignmentSpec ten = new AssignmentSpec(members(sameTopics(10, Set.of("t")), Map.of()), counts);
    Map<String, Set<TopicPartition>> before = assignor.assign(ten);
    Map<String, Set<String>> subs = sameTopics(11, Set.of("t"));
    AssignmentSpec eleven = new AssignmentSpec(members(subs, before), counts);
    Map<String, Set<TopicPartition>> after = assignor.assign(eleven);
    assertValid(eleven, after);
    assertTrue(spread(after) <= 1);
    // 60 over 11 members: the newcomer gets 5, each taken from a different full member.
    assertEquals(5, after.get("m10").size());
    assertEquals(5, moves(before, after));
  }

  @Test
  void shouldMoveOnlyTheLeavingMembersPartitions() {
    Map<String, Integer> counts = Map.of("t", 60);
    Map<String, Set<TopicPartition>> before =
        assignor.assign(new AssignmentSpec(members(sameTopics(10, Set.of("t")), Map.of()), counts));
    Map<String, Set<String>> subs = sameTopics(10, Set.of("t"));
    subs.remove("m03");
    Map<String, Set<TopicPartition>> current = new HashMap<>(before);
    current.remove("m03");
    AssignmentSpec nine = new AssignmentSpec(members(subs, current), counts);
    Map<String, Set<TopicPartition>> after = assignor.assign(nine);
    assertValid(nine, after);
    assertTrue(spread(after) <= 1);
    assertEquals(0, moves(current, after), "no partition moves between the members that stay");
  }

  @Test
  void shouldRespectDifferentSubscriptions() {
    Map<String, Set<String>> subs = new TreeMap<>();
    subs.put("a", Set.of("x"));
    subs.put("b", Set.of("x", "y"));
    subs.put("c", Set.of("y"));
    AssignmentSpec spec = new AssignmentSpec(members(subs, Map.of()), Map.of("x", 4, "y", 4));
    Map<String, Set<TopicPartition>> r = assignor.assign(spec);
    assertValid(spec, r);
    assertTrue(spread(r) <= 1, r.toString());
  }

  @Test
  void shouldDropPartitionsOfTopicsThatWentAway() {
    Map<String, Set<String>> subs = sameTopics(2, Set.of("t"));
    Map<String, Set<TopicPartition>> current =
        Map.of("m00", Set.of(new TopicPartition("t", 0), new TopicPartition("gone", 0)));
    AssignmentSpec spec = new AssignmentSpec(members(subs, current), Map.of("t", 2));
    Map<String, Set<TopicPartition>> r = assignor.assign(spec);
    assertValid(spec, r);
    assertTrue(r.get("m00").contains(new TopicPartition("t", 0)), "kept where it was");
  }

  @Test
  void shouldStayValidBalancedAndStickyUnderRandomChurn() {
    Random random = new Random(12);
    Map<String, Set<String>> subs = new TreeMap<>();
    Map<String, Set<TopicPartition>> current = new HashMap<>();
    Map<String, Integer> counts = new TreeMap<>(Map.of("t", 24, "u", 7));
    int next = 0;
    for (int round = 0; round < 200; round++) {
      if (subs.isEmpty() || random.nextInt(3) > 0 && subs.size() < 12) {
        subs.put("m" + next++, Set.of("t", "u"));
      } else {
        String leaving = subs.keySet().stream().skip(random.nextInt(subs.size())).findFirst().get();
        subs.remove(leaving);
        current.remove(leaving);
      }
      if (random.nextInt(10) == 0) {
        counts.merge("u", 1, Integer::sum); // partitions added
      }
      AssignmentSpec spec = new AssignmentSpec(members(subs, current), counts);
      Map<String, Set<TopicPartition>> r = assignor.assign(spec);
      assertValid(spec, r);
      assertTrue(spread(r) <= 1, "round " + round + ": " + r);
      assertEquals(r, assignor.assign(spec), "deterministic");
      current = new HashMap<>(r);
    }
  }
}
