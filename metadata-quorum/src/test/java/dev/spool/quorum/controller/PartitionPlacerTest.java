package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.quorum.image.BrokerRegistration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("unit")
class PartitionPlacerTest {

  private static List<BrokerRegistration> brokers(int n, int racks) {
    List<BrokerRegistration> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(
          new BrokerRegistration(
              i, 10 + i, "inc", "h", 9000, racks == 0 ? "" : "r" + (i % racks), false, false));
    }
    return out;
  }

  private static void assertWithinOne(Map<Integer, Integer> counts, int brokers, String what) {
    List<Integer> values = new ArrayList<>(counts.values());
    while (values.size() < brokers) {
      values.add(0);
    }
    int min = values.stream().mapToInt(x -> x).min().orElse(0);
    int max = values.stream().mapToInt(x -> x).max().orElse(0);
    assertTrue(max - min <= 1, what + " not within one: " + counts);
  }

  @ParameterizedTest(name = "{0} brokers, {1} partitions, rf {2}, start {3}")
  @CsvSource({"3,3,3,0", "5,50,3,2", "4,7,2,1", "6,13,3,5", "7,100,1,3", "10,9,3,4"})
  void shouldSpreadReplicasAndLeadersWithinOne(int n, int partitions, int rf, int start) {
    List<List<Integer>> a = PartitionPlacer.place(brokers(n, 0), partitions, rf, start);
    assertEquals(partitions, a.size());
    Map<Integer, Integer> replicas = new HashMap<>();
    Map<Integer, Integer> leaders = new HashMap<>();
    for (List<Integer> r : a) {
      assertEquals(rf, r.size());
      assertEquals(rf, new HashSet<>(r).size(), "distinct replicas " + r);
      r.forEach(b -> replicas.merge(b, 1, Integer::sum));
      leaders.merge(r.get(0), 1, Integer::sum);
    }
    assertWithinOne(replicas, n, "replicas");
    assertWithinOne(leaders, n, "leaders");
  }

  @ParameterizedTest(name = "{0} brokers in {1} racks, rf {2}")
  @CsvSource({"6,3,3", "4,2,2", "9,3,3", "6,2,3"})
  void shouldPutReplicasOnDistinctRacksWhenPossible(int n, int racks, int rf) {
    List<BrokerRegistration> bs = brokers(n, racks);
    Map<Integer, String> rackOf =
        bs.stream().collect(Collectors.toMap(BrokerRegistration::id, BrokerRegistration::rack));
    List<List<Integer>> a = PartitionPlacer.place(bs, 30, rf, 1);
    Map<Integer, Integer> replicas = new HashMap<>();
    for (List<Integer> r : a) {
      long distinctRacks = r.stream().map(rackOf::get).distinct().count();
      assertEquals(Math.min(rf, racks), distinctRacks, "racks of " + r);
      r.forEach(b -> replicas.merge(b, 1, Integer::sum));
    }
    if (n % racks == 0) {
      assertWithinOne(replicas, n, "replicas");
    }
  }
}
