package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ReassignmentPlannerTest {
  private static final Map<Integer, String> NO_RACKS =
      Map.of(1, "", 2, "", 3, "", 4, "", 5, "", 6, "");

  private static Map<String, Map<Integer, List<Integer>>> topic(
      String name, List<List<Integer>> partitions) {
    Map<Integer, List<Integer>> parts = new TreeMap<>();
    for (int i = 0; i < partitions.size(); i++) {
      parts.put(i, partitions.get(i));
    }
    Map<String, Map<Integer, List<Integer>>> out = new HashMap<>();
    out.put(name, parts);
    return out;
  }

  private static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }

  @Test
  void movesOnlyTheReplicasOffTheListAndKeepsEachInItsPosition() {
    var plan =
        ReassignmentPlanner.plan(
            List.of("a"),
            List.of(1, 2, 4),
            topic("a", List.of(List.of(3, 1, 2), List.of(1, 2, 4), List.of(2, 3, 1))),
            NO_RACKS);
    // a-1 is already on 1,2,4 and stays out of the plan; 3 is replaced where it stood, so the
    // preferred leader of a-2 (broker 2) stays first
    assertEquals(Map.of(tp("a", 0), List.of(4, 1, 2), tp("a", 2), List.of(2, 4, 1)), plan);
  }

  @Test
  void aTopicAlreadyOnTheListedBrokersGivesAnEmptyPlan() {
    var plan =
        ReassignmentPlanner.plan(
            List.of("a"),
            List.of(1, 2, 3, 4),
            topic("a", List.of(List.of(1, 2, 3), List.of(2, 3, 4))),
            NO_RACKS);
    assertTrue(plan.isEmpty(), plan.toString());
  }

  @Test
  void keepsTheReplicationFactorAndSpreadsReplicasAndLeadersEvenly() {
    // 12 partitions, RF 2, all on brokers 1 and 2; move them onto 3,4,5,6
    List<List<Integer>> parts = new java.util.ArrayList<>();
    for (int i = 0; i < 12; i++) {
      parts.add(i % 2 == 0 ? List.of(1, 2) : List.of(2, 1));
    }
    var plan =
        ReassignmentPlanner.plan(List.of("a"), List.of(3, 4, 5, 6), topic("a", parts), NO_RACKS);
    assertEquals(12, plan.size());
    Map<Integer, Integer> count = new HashMap<>();
    Map<Integer, Integer> leaders = new HashMap<>();
    plan.values()
        .forEach(
            r -> {
              assertEquals(2, r.size(), r.toString());
              assertEquals(2, new HashSet<>(r).size(), r.toString());
              r.forEach(b -> count.merge(b, 1, Integer::sum));
              leaders.merge(r.get(0), 1, Integer::sum);
            });
    assertEquals(Map.of(3, 6, 4, 6, 5, 6, 6, 6), count);
    assertEquals(Map.of(3, 3, 4, 3, 5, 3, 6, 3), leaders);
  }

  @Test
  void countsTheStayingReplicasWhenBalancing() {
    // broker 1 already holds 4 replicas that stay; the 4 replicas leaving broker 9 go to 2 and 3
    var plan =
        ReassignmentPlanner.plan(
            List.of("a"),
            List.of(1, 2, 3),
            topic("a", List.of(List.of(1, 9), List.of(1, 9), List.of(1, 9), List.of(1, 9))),
            Map.of(1, "", 2, "", 3, "", 9, ""));
    Map<Integer, Integer> count = new HashMap<>();
    plan.values().forEach(r -> r.forEach(b -> count.merge(b, 1, Integer::sum)));
    assertEquals(Map.of(1, 4, 2, 2, 3, 2), count);
  }

  @Test
  void balancesAcrossSeveralTopics() {
    Map<String, Map<Integer, List<Integer>>> a = topic("a", List.of(List.of(9), List.of(9)));
    a.putAll(topic("b", List.of(List.of(9), List.of(9))));
    var plan =
        ReassignmentPlanner.plan(
            List.of("a", "b"), List.of(1, 2, 3, 4), a, Map.of(1, "", 2, "", 3, "", 4, "", 9, ""));
    assertEquals(4, plan.size());
    assertEquals(4, new HashSet<>(plan.values()).size(), "each goes to another broker: " + plan);
  }

  @Test
  void placesNoTwoReplicasOfAPartitionInOneRackWhenTheListAllowsIt() {
    // racks: x = {1, 2}, y = {3, 4}, z = {5}; broker 1 (rack x) stays in each partition
    Map<Integer, String> racks = Map.of(1, "x", 2, "x", 3, "y", 4, "y", 5, "z", 9, "x");
    var plan =
        ReassignmentPlanner.plan(
            List.of("a"),
            List.of(1, 2, 3, 4, 5),
            topic("a", List.of(List.of(1, 9, 8), List.of(1, 8, 9), List.of(9, 1, 8))),
            withBroker(racks, 8, "q"));
    for (var e : plan.entrySet()) {
      List<String> used = e.getValue().stream().map(racks::get).toList();
      assertEquals(3, new HashSet<>(used).size(), e + " racks " + used);
    }
  }

  @Test
  void sharesARackOnlyWhenTheListedBrokersSpanTooFewRacks() {
    Map<Integer, String> racks = Map.of(1, "x", 2, "x", 3, "y", 9, "z", 8, "z");
    var plan =
        ReassignmentPlanner.plan(
            List.of("a"), List.of(1, 2, 3), topic("a", List.of(List.of(9, 8, 3))), racks);
    assertEquals(1, plan.size());
    List<Integer> r = plan.get(tp("a", 0));
    assertEquals(3, r.get(2), "broker 3 stays where it was: " + r);
    assertEquals(new HashSet<>(List.of(1, 2, 3)), new HashSet<>(r));
  }

  @Test
  void prefersANewRackOverALighterBroker() {
    // broker 2 (rack x, like the staying broker 1) has no replica, broker 3 (rack y) has two
    Map<Integer, String> racks = Map.of(1, "x", 2, "x", 3, "y", 9, "z");
    Map<String, Map<Integer, List<Integer>>> a =
        topic("a", List.of(List.of(1, 9), List.of(3, 1), List.of(3, 1)));
    var plan = ReassignmentPlanner.plan(List.of("a"), List.of(1, 2, 3), a, racks);
    assertEquals(Map.of(tp("a", 0), List.of(1, 3)), plan);
  }

  @Test
  void aBrokerListSmallerThanTheReplicationFactorIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ReassignmentPlanner.plan(
                    List.of("a"), List.of(1, 2), topic("a", List.of(List.of(1, 2, 3))), NO_RACKS));
    assertTrue(
        e.getMessage().contains("has 3 replicas but --brokers lists only 2"), e.getMessage());
  }

  @Test
  void unknownBrokerIdsAreRefusedByName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ReassignmentPlanner.plan(
                    List.of("a"), List.of(1, 7, 2, 8), topic("a", List.of(List.of(1))), NO_RACKS));
    assertTrue(e.getMessage().contains("unregistered broker(s) [7, 8]"), e.getMessage());
    assertTrue(e.getMessage().contains("registered: [1, 2, 3, 4, 5, 6]"), e.getMessage());
  }

  @Test
  void aRepeatedOrEmptyBrokerListIsRefused() {
    IllegalArgumentException twice =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ReassignmentPlanner.plan(
                    List.of("a"), List.of(1, 2, 1), topic("a", List.of(List.of(1))), NO_RACKS));
    assertTrue(twice.getMessage().contains("names broker 1 twice"), twice.getMessage());
    IllegalArgumentException none =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ReassignmentPlanner.plan(
                    List.of("a"), List.of(), topic("a", List.of(List.of(1))), NO_RACKS));
    assertTrue(none.getMessage().contains("no broker"), none.getMessage());
  }

  @Test
  void anUnknownTopicIsRefusedByName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ReassignmentPlanner.plan(
                    List.of("a", "nope"),
                    List.of(1, 2),
                    topic("a", List.of(List.of(1))),
                    NO_RACKS));
    assertEquals("unknown topic 'nope'", e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> ReassignmentPlanner.plan(List.of(), List.of(1), Map.of(), NO_RACKS));
  }

  @Test
  void theSameInputGivesTheSamePlan() {
    Map<String, Map<Integer, List<Integer>>> a =
        topic("a", List.of(List.of(9, 8), List.of(8, 9), List.of(9, 1), List.of(7, 9)));
    Map<Integer, String> racks = Map.of(1, "r1", 2, "r2", 3, "r1", 4, "r2", 7, "", 8, "", 9, "");
    assertEquals(
        ReassignmentPlanner.plan(List.of("a"), List.of(4, 3, 2, 1), a, racks),
        ReassignmentPlanner.plan(List.of("a"), List.of(1, 2, 3, 4), a, racks));
  }

  private static Map<Integer, String> withBroker(Map<Integer, String> racks, int id, String rack) {
    Map<Integer, String> out = new HashMap<>(racks);
    out.put(id, rack);
    return out;
  }

  @Test
  void aKeptBrokerKeepsItsReplicasButTakesNoNewOne() {
    // draining 4 with 2 fenced: 2 keeps its replica of a-0, and 4's replicas go to 1 or 3 only
    var plan =
        ReassignmentPlanner.plan(
            List.of("a"),
            List.of(1, 3),
            java.util.Set.of(2),
            topic("a", List.of(List.of(4, 2, 1), List.of(2, 1, 3))),
            NO_RACKS);
    assertEquals(Map.of(tp("a", 0), List.of(3, 2, 1)), plan);
  }

  @Test
  void aKeptBrokerDoesNotCountAsRoomForAMovingReplica() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ReassignmentPlanner.plan(
                    List.of("a"),
                    List.of(1, 3),
                    java.util.Set.of(2),
                    topic("a", List.of(List.of(4, 1, 3))),
                    NO_RACKS));
    assertTrue(
        e.getMessage().contains("a-0 has 1 replica(s) to move but only 0 listed broker(s)"),
        e.getMessage());
  }
}
