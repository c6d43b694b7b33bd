package dev.spool.coordinator.group.assignor;

import static dev.spool.coordinator.group.assignor.AssignorTestSupport.assertValid;
import static dev.spool.coordinator.group.assignor.AssignorTestSupport.members;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.common.TopicPartition;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class RangeAssignorTest {
  private final RangeAssignor assignor = new RangeAssignor();

  @Test
  void shouldGiveContiguousRangesWithTheRemainderToTheFirstMembers() {
    Map<String, Set<String>> subs = new TreeMap<>();
    subs.put("a", Set.of("t"));
    subs.put("b", Set.of("t"));
    subs.put("c", Set.of("t"));
    AssignmentSpec spec = new AssignmentSpec(members(subs, Map.of()), Map.of("t", 7));
    Map<String, Set<TopicPartition>> r = assignor.assign(spec);
    assertValid(spec, r);
    assertEquals(Set.of(tp("t", 0), tp("t", 1), tp("t", 2)), r.get("a"));
    assertEquals(Set.of(tp("t", 3), tp("t", 4)), r.get("b"));
    assertEquals(Set.of(tp("t", 5), tp("t", 6)), r.get("c"));
  }

  @Test
  void shouldLineUpCoPartitionedTopics() {
    Map<String, Set<String>> subs = new TreeMap<>();
    subs.put("a", Set.of("orders", "payments"));
    subs.put("b", Set.of("orders", "payments"));
    AssignmentSpec spec =
        new AssignmentSpec(members(subs, Map.of()), Map.of("orders", 4, "payments", 4));
    Map<String, Set<TopicPartition>> r = assignor.assign(spec);
    assertValid(spec, r);
    for (Set<TopicPartition> s : r.values()) {
      long orders = s.stream().filter(tp -> tp.topic().equals("orders")).count();
      for (TopicPartition tp : s) {
        assertEquals(
            true,
            s.contains(tp("orders", tp.partition())) && s.contains(tp("payments", tp.partition())));
      }
      assertEquals(2, orders);
    }
  }

  @Test
  void shouldAssignOnlyTopicsAMemberSubscribesTo() {
    Map<String, Set<String>> subs = new TreeMap<>();
    subs.put("a", Set.of("x"));
    subs.put("b", Set.of("y"));
    AssignmentSpec spec = new AssignmentSpec(members(subs, Map.of()), Map.of("x", 2, "y", 3));
    Map<String, Set<TopicPartition>> r = assignor.assign(spec);
    assertValid(spec, r);
    assertEquals(2, r.get("a").size());
    assertEquals(3, r.get("b").size());
  }

  private static TopicPartition tp(String t, int p) {
    return new TopicPartition(t, p);
  }
}
