package dev.spool.chaos.run;

import dev.spool.chaos.nemesis.ClusterControl;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.Grudge;
import dev.spool.chaos.nemesis.Nemesis;
import dev.spool.chaos.nemesis.NetworkControl;
import dev.spool.chaos.nemesis.Plane;
import dev.spool.chaos.nemesis.PlannedFault;
import dev.spool.chaos.nemesis.Target;
import dev.spool.chaos.nemesis.TargetResolver;
import dev.spool.testing.process.Signal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault that <em>must</em> lose data when the configuration allows it, for proving that the
 * checkers can fail: the leader of a partition is cut off from its followers (DATA plane only, so
 * it keeps its leadership; without root its followers are SIGSTOPped instead) while it keeps
 * acknowledging acks=1 writes that never reach them. On heal the leader is SIGKILLed
 * <em>before</em> anything is reconnected, the followers come back, one of them becomes leader
 * (cleanly, or uncleanly once the ISR has shrunk to the dead leader), and only then the old leader
 * restarts and truncates what it alone had. Handles {@link
 * FaultKind#ISOLATE_LEADER_FROM_FOLLOWERS}; used only by the unsafe scenario.
 */
final class LeaderLossNemesis implements Nemesis {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderLossNemesis.class);
  private static final Duration NEW_LEADER_TIMEOUT = Duration.ofSeconds(60);

  private final ClusterControl cluster;
  private final NetworkControl network;
  private final TargetResolver resolver;
  private Target.PartitionLeader target;
  private int leader = -1;
  private List<Integer> followers = List.of();

  /** {@code network} null: pause the followers instead of partitioning them away. */
  LeaderLossNemesis(ClusterControl cluster, NetworkControl network) {
    this.cluster = cluster;
    this.network = network;
    this.resolver = new TargetResolver(cluster);
  }

  @Override
  public Set<FaultKind> kinds() {
    return EnumSet.of(FaultKind.ISOLATE_LEADER_FROM_FOLLOWERS);
  }

  @Override
  public Applied start(PlannedFault fault) {
    if (leader >= 0) {
      throw new IllegalStateException("n" + leader + " is still isolated");
    }
    if (!(fault.target() instanceof Target.PartitionLeader pl)) {
      throw new IllegalArgumentException(
          "the leader-loss fault needs a partition leader target: " + fault.target());
    }
    OptionalInt l = resolver.node(pl);
    if (l.isEmpty()) {
      return new Applied(List.of(), "no leader of " + pl.partition() + " to isolate");
    }
    target = pl;
    leader = l.getAsInt();
    followers = new ArrayList<>(cluster.partitionReplicas(pl.partition()));
    followers.remove(Integer.valueOf(leader));
    String how;
    if (network != null) {
      for (Grudge.Link link : Grudge.bothWays(List.of(leader), followers, EnumSet.of(Plane.DATA))) {
        network.drop(link.from(), link.to(), link.plane());
      }
      how = "DATA plane cut; the quorum still hears the leader";
    } else {
      followers.forEach(f -> cluster.kill(f, Signal.STOP));
      how = "followers SIGSTOPped (no root for a partition)";
    }
    LOG.info(
        "#{} leader n{} of {} isolated from {}: {}",
        fault.id(),
        leader,
        pl.partition(),
        followers,
        how);
    return new Applied(
        List.of(TargetResolver.name(leader) + " | " + TargetResolver.names(followers)),
        how + "; on heal the leader is killed first, so what only it acknowledged is lost");
  }

  @Override
  public void heal() {
    if (leader < 0) {
      return;
    }
    cluster.kill(leader, Signal.KILL);
    if (network != null) {
      network.healAll();
    } else {
      followers.forEach(f -> cluster.kill(f, Signal.CONT));
    }
    long deadline = System.nanoTime() + NEW_LEADER_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      OptionalInt now = cluster.partitionLeader(target.partition());
      if (now.isPresent() && now.getAsInt() != leader) {
        LOG.info(
            "{} is now led by n{}; restarting the old leader n{}",
            target.partition(),
            now.getAsInt(),
            leader);
        break;
      }
      try {
        Thread.sleep(200); // waiting for the cluster to elect, nothing to be notified by
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    cluster.start(leader);
    leader = -1;
  }
}
