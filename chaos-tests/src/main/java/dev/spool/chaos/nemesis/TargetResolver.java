package dev.spool.chaos.nemesis;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;

/**
 * Turns abstract {@link Target}s into node ids against the live cluster. The choices for random
 * targets are functions of the target's {@code pick} and the node list only, so they are
 * reproducible.
 */
public final class TargetResolver {
  private final ClusterControl cluster;

  public TargetResolver(ClusterControl cluster) {
    this.cluster = cluster;
  }

  /** A minority and a majority of the nodes; both non-empty when there are at least 2 nodes. */
  public record Split(List<Integer> minority, List<Integer> majority) {}

  /** One node for a single-node target, if it can be resolved now. */
  public OptionalInt node(Target target) {
    List<Integer> nodes = cluster.nodes();
    if (target instanceof Target.RandomNode r) {
      return nodes.isEmpty() ? OptionalInt.empty() : OptionalInt.of(pick(nodes, r.pick()));
    }
    if (target instanceof Target.PartitionLeader l) {
      return healthyLeader(l.partition());
    }
    if (target instanceof Target.ActiveController) {
      return cluster.activeController();
    }
    throw new IllegalArgumentException("not a single-node target: " + target);
  }

  /**
   * The partition's leader once every replica is back in its ISR. A leader killed while its ISR is
   * still short (right after a restart, say) takes the partition below min ISR with it, so the
   * fault would test recovery from a fault the schedule did not ask for; it waits instead.
   */
  private OptionalInt healthyLeader(TopicPartition partition) {
    OptionalInt leader = cluster.partitionLeader(partition);
    List<Integer> replicas = cluster.partitionReplicas(partition);
    if (leader.isEmpty()
        || replicas.isEmpty()
        || !cluster.partitionIsr(partition).containsAll(replicas)) {
      return OptionalInt.empty();
    }
    return leader;
  }

  public Split split(Target.MajorityMinority target) {
    return split(cluster.nodes(), target.pick());
  }

  /** {from, to}, distinct. */
  public int[] pair(Target.NodePair target) {
    return pair(cluster.nodes(), target.fromPick(), target.toPick());
  }

  static int pick(List<Integer> nodes, int pick) {
    return nodes.get(Math.floorMod(pick, nodes.size()));
  }

  /** Shuffles the nodes with {@code pick} as seed and puts the first ⌊(n-1)/2⌋ in the minority. */
  static Split split(List<Integer> nodes, int pick) {
    List<Integer> shuffled = new ArrayList<>(nodes);
    Collections.sort(shuffled);
    Collections.shuffle(shuffled, new Random(pick));
    int minority = Math.max(nodes.size() >= 2 ? 1 : 0, (nodes.size() - 1) / 2);
    List<Integer> min = new ArrayList<>(shuffled.subList(0, minority));
    List<Integer> maj = new ArrayList<>(shuffled.subList(minority, shuffled.size()));
    Collections.sort(min);
    Collections.sort(maj);
    return new Split(List.copyOf(min), List.copyOf(maj));
  }

  static int[] pair(List<Integer> nodes, int fromPick, int toPick) {
    if (nodes.size() < 2) {
      throw new IllegalStateException("a node pair needs at least 2 nodes: " + nodes);
    }
    int from = pick(nodes, fromPick);
    List<Integer> others = new ArrayList<>(nodes);
    others.remove(Integer.valueOf(from));
    return new int[] {from, pick(others, toPick)};
  }

  /** "n3". */
  public static String name(int node) {
    return "n" + node;
  }

  /** "n1 n2". */
  public static String names(List<Integer> nodes) {
    StringBuilder sb = new StringBuilder();
    for (int n : nodes) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(name(n));
    }
    return sb.toString();
  }
}
