package dev.spool.chaos.nemesis;

import dev.spool.testing.process.Signal;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Process faults on one node: {@code KILL} sends SIGKILL and restarts the node on heal; {@code
 * PAUSE} sends SIGSTOP and SIGCONT on heal (the schedule makes pauses longer than the session
 * timeout, so the paused node gets fenced and must rejoin).
 */
public final class ProcessNemesis implements Nemesis {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessNemesis.class);

  private final ClusterControl cluster;
  private final TargetResolver resolver;
  private FaultKind activeKind;
  private int activeNode;

  public ProcessNemesis(ClusterControl cluster) {
    this.cluster = cluster;
    this.resolver = new TargetResolver(cluster);
  }

  @Override
  public Set<FaultKind> kinds() {
    return EnumSet.of(FaultKind.KILL, FaultKind.PAUSE);
  }

  @Override
  public Applied start(PlannedFault fault) {
    if (activeKind != null) {
      throw new IllegalStateException(activeKind + " of n" + activeNode + " is still active");
    }
    OptionalInt node = resolver.node(fault.target());
    if (node.isEmpty()) {
      return new Applied(List.of(), fault.target() + " could not be resolved now; nothing done");
    }
    activeNode = node.getAsInt();
    activeKind = fault.kind();
    cluster.kill(activeNode, fault.kind() == FaultKind.KILL ? Signal.KILL : Signal.STOP);
    LOG.info("#{} {} n{} ({})", fault.id(), fault.kind(), activeNode, fault.target());
    return new Applied(List.of(TargetResolver.name(activeNode)), fault.target().toString());
  }

  @Override
  public void heal() {
    if (activeKind == null) {
      return;
    }
    if (activeKind == FaultKind.KILL) {
      cluster.start(activeNode);
    } else {
      cluster.kill(activeNode, Signal.CONT);
    }
    activeKind = null;
  }
}
