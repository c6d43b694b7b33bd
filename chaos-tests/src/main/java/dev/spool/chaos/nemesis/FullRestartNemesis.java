package dev.spool.chaos.nemesis;

import dev.spool.testing.process.Signal;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** SIGKILLs every node at once and starts them all again on heal. */
public final class FullRestartNemesis implements Nemesis {
  private final ClusterControl cluster;
  private List<Integer> killed;

  public FullRestartNemesis(ClusterControl cluster) {
    this.cluster = cluster;
  }

  @Override
  public Set<FaultKind> kinds() {
    return EnumSet.of(FaultKind.FULL_RESTART);
  }

  @Override
  public Applied start(PlannedFault fault) {
    if (killed != null) {
      throw new IllegalStateException("a full restart is already in progress");
    }
    killed = List.copyOf(cluster.nodes());
    for (int n : killed) {
      cluster.kill(n, Signal.KILL);
    }
    return new Applied(List.of(TargetResolver.names(killed)), null);
  }

  @Override
  public void heal() {
    if (killed != null) {
      for (int n : killed) {
        cluster.start(n);
      }
      killed = null;
    }
  }
}
