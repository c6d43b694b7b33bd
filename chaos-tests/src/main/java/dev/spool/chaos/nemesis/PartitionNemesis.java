package dev.spool.chaos.nemesis;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Network partitions at the IP level through a {@link NetworkControl}.
 *
 * <ul>
 *   <li>{@code ISOLATE_NODE}: one node from all others, both planes, both directions.
 *   <li>{@code SPLIT_MAJORITY_MINORITY}: a minority from the majority, both planes.
 *   <li>{@code ISOLATE_CONTROLLER_FROM_BROKERS}: the active controller from the broker-only nodes
 *       (it keeps its quorum peers). In a combined-role cluster every other node is also a
 *       controller, so this degenerates to isolating the controller, and the timeline says so.
 *   <li>{@code ISOLATE_LEADER_FROM_FOLLOWERS}: a partition leader from that partition's followers
 *       on the data plane only, so replication stops while the quorum still hears the leader.
 *   <li>{@code ONE_WAY_LOSS}: packets from one node to another are dropped, the reverse direction
 *       is untouched.
 * </ul>
 */
public final class PartitionNemesis implements Nemesis {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionNemesis.class);

  private final ClusterControl cluster;
  private final TargetResolver resolver;
  private final NetworkControl network;
  private boolean active;

  public PartitionNemesis(ClusterControl cluster, NetworkControl network) {
    this.cluster = cluster;
    this.resolver = new TargetResolver(cluster);
    this.network = network;
  }

  @Override
  public Set<FaultKind> kinds() {
    return EnumSet.of(
        FaultKind.ISOLATE_NODE,
        FaultKind.SPLIT_MAJORITY_MINORITY,
        FaultKind.ISOLATE_CONTROLLER_FROM_BROKERS,
        FaultKind.ISOLATE_LEADER_FROM_FOLLOWERS,
        FaultKind.ONE_WAY_LOSS);
  }

  @Override
  public Applied start(PlannedFault fault) {
    if (active) {
      throw new IllegalStateException("a partition is already active; heal it first");
    }
    Plan plan = plan(fault);
    if (plan.links().isEmpty()) {
      return new Applied(List.of(), plan.note());
    }
    for (Grudge.Link link : plan.links()) {
      network.drop(link.from(), link.to(), link.plane());
    }
    active = true;
    LOG.info(
        "partition #{} {}: cut {} links ({})",
        fault.id(),
        fault.kind(),
        plan.links().size(),
        plan.targets());
    return new Applied(plan.targets(), plan.note());
  }

  @Override
  public void heal() {
    if (active) {
      network.healAll();
      active = false;
    }
  }

  private record Plan(Set<Grudge.Link> links, List<String> targets, String note) {}

  private Plan plan(PlannedFault fault) {
    List<Integer> nodes = cluster.nodes();
    return switch (fault.kind()) {
      case ISOLATE_NODE -> isolate(resolver.node(fault.target()), nodes, Grudge.ALL_PLANES, null);
      case SPLIT_MAJORITY_MINORITY -> {
        TargetResolver.Split s = resolver.split((Target.MajorityMinority) fault.target());
        yield new Plan(
            Grudge.bothWays(s.minority(), s.majority(), Grudge.ALL_PLANES),
            List.of(
                TargetResolver.names(s.minority()) + " | " + TargetResolver.names(s.majority())),
            null);
      }
      case ISOLATE_CONTROLLER_FROM_BROKERS -> {
        OptionalInt c = cluster.activeController();
        List<Integer> brokersOnly = new ArrayList<>(cluster.brokers());
        brokersOnly.removeAll(cluster.controllers());
        if (brokersOnly.isEmpty()) {
          yield isolate(
              c,
              nodes,
              Grudge.ALL_PLANES,
              "combined roles: no broker-only node, so the controller is isolated from all");
        }
        yield isolate(c, brokersOnly, Grudge.ALL_PLANES, null);
      }
      case ISOLATE_LEADER_FROM_FOLLOWERS -> {
        OptionalInt leader = resolver.node(fault.target());
        List<Integer> followers =
            fault.target() instanceof Target.PartitionLeader pl
                ? followers(pl.partition(), leader)
                : nodes;
        yield isolate(leader, followers, EnumSet.of(Plane.DATA), "data plane only");
      }
      case ONE_WAY_LOSS -> {
        int[] p = resolver.pair((Target.NodePair) fault.target());
        yield new Plan(
            Grudge.oneWay(p[0], p[1], Grudge.ALL_PLANES),
            List.of(TargetResolver.name(p[0]) + " -> " + TargetResolver.name(p[1])),
            "packets from "
                + TargetResolver.name(p[0])
                + " to "
                + TargetResolver.name(p[1])
                + " dropped");
      }
      default -> throw new IllegalArgumentException("not a partition: " + fault.kind());
    };
  }

  private List<Integer> followers(TopicPartition tp, OptionalInt leader) {
    List<Integer> f = new ArrayList<>(cluster.partitionReplicas(tp));
    leader.ifPresent(l -> f.remove(Integer.valueOf(l)));
    return f;
  }

  private static Plan isolate(
      OptionalInt node, List<Integer> from, Set<Plane> planes, String note) {
    if (node.isEmpty()) {
      return new Plan(
          Set.of(), List.of(), "target could not be resolved (no leader known); nothing cut");
    }
    List<Integer> others = new ArrayList<>(from);
    others.remove(Integer.valueOf(node.getAsInt()));
    return new Plan(
        Grudge.bothWays(List.of(node.getAsInt()), others, planes),
        List.of(TargetResolver.name(node.getAsInt()) + " | " + TargetResolver.names(others)),
        note);
  }
}
