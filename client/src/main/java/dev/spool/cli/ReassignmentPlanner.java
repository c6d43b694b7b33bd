package dev.spool.cli;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Plans moving topics onto a list of brokers ({@code spool reassign plan}): each partition keeps
 * its replication factor; a replica already on a listed broker stays where it is (in its position,
 * so the preferred leader stays first when it stays), and only the others move, so a partition
 * already entirely on listed brokers is not in the plan. Each moving replica goes to the listed
 * broker that (1) holds no replica of the partition, (2) is in a rack the partition does not use
 * yet, when some such broker is listed, (3) holds the fewest replicas of the planned topics so far,
 * (4) for a preferred leader (the first replica), is preferred leader of the fewest, (5) has the
 * lowest id; so the brokers end up evenly loaded, in replicas and in leaders, as far as the staying
 * replicas allow, and a partition spans as many racks as the listed brokers allow. A broker with an
 * empty rack shares a rack with no other. Partitions are planned in topic and partition order, so
 * the same input gives the same plan. Pure; any thread.
 */
final class ReassignmentPlanner {
  private ReassignmentPlanner() {}

  /**
   * The plan for {@code topics} onto {@code brokers}.
   *
   * @param assignments each existing topic's partitions with their current replicas (preferred
   *     leader first)
   * @param racks every registered broker's rack ("" for none)
   * @throws IllegalArgumentException for an empty, repeated or unregistered broker list, an empty
   *     topic list, an unknown topic, or a topic whose replication factor is larger than the number
   *     of listed brokers; nothing is planned then
   */
  static Map<TopicPartition, List<Integer>> plan(
      Collection<String> topics,
      Collection<Integer> brokers,
      Map<String, Map<Integer, List<Integer>>> assignments,
      Map<Integer, String> racks) {
    return plan(topics, brokers, Set.of(), assignments, racks);
  }

  /**
   * As {@link #plan(Collection, Collection, Map, Map)}, where a replica on a broker of {@code keep}
   * also stays where it is but no replica moves onto one ({@code spool cluster drain}: a fenced
   * broker keeps its replicas and takes no new one, as the controller would refuse it).
   *
   * @throws IllegalArgumentException also for a partition whose moving replicas outnumber the
   *     listed brokers that do not hold it already
   */
  static Map<TopicPartition, List<Integer>> plan(
      Collection<String> topics,
      Collection<Integer> brokers,
      Set<Integer> keep,
      Map<String, Map<Integer, List<Integer>>> assignments,
      Map<Integer, String> racks) {
    Set<Integer> listed = checkBrokers(brokers, racks);
    Set<Integer> stays = new HashSet<>(keep);
    stays.addAll(listed);
    // With kept brokers a partition may have more replicas than there are listed brokers; what
    // must fit is only the replicas that move.
    Map<TopicPartition, List<Integer>> current =
        checkTopics(topics, assignments, keep.isEmpty() ? listed.size() : Integer.MAX_VALUE);
    current.forEach(
        (tp, replicas) -> {
          long moving = replicas.stream().filter(b -> !stays.contains(b)).count();
          long free = listed.stream().filter(b -> !replicas.contains(b)).count();
          if (moving > free) {
            throw new IllegalArgumentException(
                tp
                    + " has "
                    + moving
                    + " replica(s) to move but only "
                    + free
                    + " listed broker(s) do not hold it already");
          }
        });
    Map<Integer, Integer> load = new HashMap<>();
    listed.forEach(b -> load.put(b, 0));
    Map<Integer, Integer> leaders = new HashMap<>(load);
    for (List<Integer> r : current.values()) {
      r.stream().filter(listed::contains).forEach(b -> load.merge(b, 1, Integer::sum));
      if (listed.contains(r.get(0))) {
        leaders.merge(r.get(0), 1, Integer::sum);
      }
    }
    Map<TopicPartition, List<Integer>> plan = new TreeMap<>();
    current.forEach(
        (tp, replicas) -> {
          if (stays.containsAll(replicas)) {
            return;
          }
          List<Integer> target = new ArrayList<>(replicas);
          Set<Integer> used = new HashSet<>();
          Set<String> usedRacks = new HashSet<>();
          for (int b : replicas) {
            if (stays.contains(b)) {
              used.add(b);
              usedRacks.add(racks.getOrDefault(b, ""));
            }
          }
          for (int i = 0; i < target.size(); i++) {
            if (!stays.contains(target.get(i))) {
              int chosen = choose(listed, used, usedRacks, load, i == 0 ? leaders : null, racks);
              target.set(i, chosen);
              used.add(chosen);
              usedRacks.add(racks.get(chosen));
              load.merge(chosen, 1, Integer::sum);
              if (i == 0) {
                leaders.merge(chosen, 1, Integer::sum);
              }
            }
          }
          plan.put(tp, List.copyOf(target));
        });
    return plan;
  }

  private static int choose(
      Set<Integer> listed,
      Set<Integer> used,
      Set<String> usedRacks,
      Map<Integer, Integer> load,
      Map<Integer, Integer> leaders,
      Map<Integer, String> racks) {
    int best = -1;
    for (int b : listed) {
      if (used.contains(b)) {
        continue;
      }
      if (best < 0 || better(b, best, usedRacks, load, leaders, racks)) {
        best = b;
      }
    }
    if (best < 0) {
      // checkTopics made sure every partition fits on the listed brokers
      throw new IllegalStateException("no listed broker left for a replica");
    }
    return best;
  }

  /** Whether {@code b} beats {@code best}; {@code leaders} is null unless placing a leader. */
  private static boolean better(
      int b,
      int best,
      Set<String> usedRacks,
      Map<Integer, Integer> load,
      Map<Integer, Integer> leaders,
      Map<Integer, String> racks) {
    boolean newRack = !sharesRack(racks.get(b), usedRacks);
    boolean bestNewRack = !sharesRack(racks.get(best), usedRacks);
    if (newRack != bestNewRack) {
      return newRack;
    }
    int c = Integer.compare(load.get(b), load.get(best));
    if (c == 0 && leaders != null) {
      c = Integer.compare(leaders.get(b), leaders.get(best));
    }
    return c != 0 ? c < 0 : b < best;
  }

  private static boolean sharesRack(String rack, Set<String> usedRacks) {
    return !rack.isEmpty() && usedRacks.contains(rack);
  }

  private static Set<Integer> checkBrokers(
      Collection<Integer> brokers, Map<Integer, String> racks) {
    if (brokers.isEmpty()) {
      throw new IllegalArgumentException("--brokers lists no broker");
    }
    Set<Integer> listed = new TreeSet<>();
    for (int b : brokers) {
      if (!listed.add(b)) {
        throw new IllegalArgumentException("--brokers names broker " + b + " twice");
      }
    }
    Set<Integer> unknown = new TreeSet<>(listed);
    unknown.removeAll(racks.keySet());
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "--brokers names unregistered broker(s) "
              + unknown
              + "; registered: "
              + new TreeSet<>(racks.keySet()));
    }
    return listed;
  }

  private static Map<TopicPartition, List<Integer>> checkTopics(
      Collection<String> topics,
      Map<String, Map<Integer, List<Integer>>> assignments,
      int brokers) {
    if (topics.isEmpty()) {
      throw new IllegalArgumentException("--topics lists no topic");
    }
    Map<TopicPartition, List<Integer>> current = new TreeMap<>();
    for (String topic : new LinkedHashSet<>(topics)) {
      Map<Integer, List<Integer>> partitions = assignments.get(topic);
      if (partitions == null) {
        throw new IllegalArgumentException("unknown topic '" + topic + "'");
      }
      partitions.forEach(
          (p, replicas) -> {
            if (replicas.size() > brokers) {
              throw new IllegalArgumentException(
                  "topic '"
                      + topic
                      + "' partition "
                      + p
                      + " has "
                      + replicas.size()
                      + " replicas but --brokers lists only "
                      + brokers
                      + " broker(s); a plan keeps each partition's replication factor");
            }
            current.put(new TopicPartition(topic, p), List.copyOf(replicas));
          });
    }
    return current;
  }
}
