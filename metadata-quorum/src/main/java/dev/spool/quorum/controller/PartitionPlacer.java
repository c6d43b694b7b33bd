package dev.spool.quorum.controller;

import dev.spool.quorum.image.BrokerRegistration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Places the replicas of a new topic's partitions (or of partitions added to a topic) on brokers.
 * Pure: the only varying input is {@code startIndex} (the caller draws it from a seeded random),
 * which rotates tie-breaks so that consecutive topics do not all start on the same broker (the idea
 * of Kafka's striped placer).
 *
 * <p>Per partition, replicas are chosen greedily: a broker on a rack this partition does not use
 * yet first (when brokers name racks), then the fewest replicas of this topic so far, then the
 * rotation order. Taking the least loaded keeps every broker's replica count within one of every
 * other's (when racks do not force otherwise). The leader (first replica) is then the chosen broker
 * that leads the fewest partitions of this topic so far, which keeps leaders within one as well.
 */
public final class PartitionPlacer {
  private PartitionPlacer() {}

  /**
   * @param brokers eligible brokers (at least {@code replicationFactor})
   * @return per partition the replica list, preferred leader first
   */
  public static List<List<Integer>> place(
      List<BrokerRegistration> brokers, int partitions, int replicationFactor, int startIndex) {
    return place(brokers, List.of(), partitions, replicationFactor, startIndex);
  }

  /**
   * Places {@code partitions} more partitions of a topic whose partitions so far have the replica
   * lists {@code existing} (preferred leader first): those count as load already taken, so a grown
   * topic ends as balanced as one created with the final count would start.
   *
   * @param brokers eligible brokers (at least {@code replicationFactor})
   * @return per new partition the replica list, preferred leader first
   */
  public static List<List<Integer>> place(
      List<BrokerRegistration> brokers,
      List<List<Integer>> existing,
      int partitions,
      int replicationFactor,
      int startIndex) {
    if (replicationFactor > brokers.size() || replicationFactor < 1) {
      throw new IllegalArgumentException(
          "replication factor " + replicationFactor + " with " + brokers.size() + " brokers");
    }
    List<BrokerRegistration> ordered = rackAlternating(brokers);
    int n = ordered.size();
    Map<Integer, Integer> replicaCount = new HashMap<>();
    Map<Integer, Integer> leaderCount = new HashMap<>();
    for (List<Integer> replicas : existing) {
      replicas.forEach(id -> replicaCount.merge(id, 1, Integer::sum));
      if (!replicas.isEmpty()) {
        leaderCount.merge(replicas.get(0), 1, Integer::sum);
      }
    }
    List<List<Integer>> result = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      int rotation = Math.floorMod(startIndex + p, n);
      List<BrokerRegistration> chosen = new ArrayList<>();
      Set<String> racksUsed = new HashSet<>();
      for (int r = 0; r < replicationFactor; r++) {
        BrokerRegistration best = null;
        for (int k = 0; k < n; k++) {
          BrokerRegistration b = ordered.get((rotation + k) % n);
          if (chosen.contains(b)) {
            continue;
          }
          if (best == null || better(b, best, racksUsed, replicaCount)) {
            best = b;
          }
        }
        chosen.add(best);
        racksUsed.add(best.rack());
        replicaCount.merge(best.id(), 1, Integer::sum);
      }
      BrokerRegistration leader =
          chosen.stream()
              .min(Comparator.comparingInt(b -> leaderCount.getOrDefault(b.id(), 0)))
              .orElseThrow();
      leaderCount.merge(leader.id(), 1, Integer::sum);
      List<Integer> replicas = new ArrayList<>();
      replicas.add(leader.id());
      chosen.stream().filter(b -> b != leader).forEach(b -> replicas.add(b.id()));
      result.add(List.copyOf(replicas));
    }
    return result;
  }

  /**
   * Strictly better candidate (earlier in rotation wins ties, as candidates come in that order).
   */
  private static boolean better(
      BrokerRegistration b,
      BrokerRegistration best,
      Set<String> racksUsed,
      Map<Integer, Integer> replicaCount) {
    boolean bNewRack = b.hasRack() && !racksUsed.contains(b.rack());
    boolean bestNewRack = best.hasRack() && !racksUsed.contains(best.rack());
    if (bNewRack != bestNewRack) {
      return bNewRack;
    }
    return replicaCount.getOrDefault(b.id(), 0) < replicaCount.getOrDefault(best.id(), 0);
  }

  /**
   * Brokers ordered so that racks alternate (rack A's first, rack B's first, ..., rack A's second,
   * ...), brokers without a rack last; by id within a rack. Rotating through this order spreads
   * consecutive choices over racks.
   */
  static List<BrokerRegistration> rackAlternating(List<BrokerRegistration> brokers) {
    Map<String, List<BrokerRegistration>> byRack = new java.util.TreeMap<>();
    for (BrokerRegistration b : brokers) {
      byRack.computeIfAbsent(b.rack(), k -> new ArrayList<>()).add(b);
    }
    byRack.values().forEach(l -> l.sort(Comparator.comparingInt(BrokerRegistration::id)));
    List<BrokerRegistration> out = new ArrayList<>();
    int max = byRack.values().stream().mapToInt(List::size).max().orElse(0);
    for (int i = 0; i < max; i++) {
      for (List<BrokerRegistration> l : byRack.values()) {
        if (i < l.size()) {
          out.add(l.get(i));
        }
      }
    }
    return out;
  }
}
