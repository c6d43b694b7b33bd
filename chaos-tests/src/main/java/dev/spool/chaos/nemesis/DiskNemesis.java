package dev.spool.chaos.nemesis;

import dev.spool.testing.process.Signal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Disk faults: SIGKILL a node, damage the tail of its newest segment or one of its checkpoint files
 * while it is down ({@link FileCorruption}), and restart it on heal, so recovery has to deal with
 * the damage. The damage is drawn from {@code new Random(seed * 31 + fault id)}, so a seed
 * reproduces it.
 */
public final class DiskNemesis implements Nemesis {
  private static final Logger LOG = LoggerFactory.getLogger(DiskNemesis.class);

  private final ClusterControl cluster;
  private final TargetResolver resolver;
  private final long seed;
  private Integer downNode;

  public DiskNemesis(ClusterControl cluster, long seed) {
    this.cluster = cluster;
    this.resolver = new TargetResolver(cluster);
    this.seed = seed;
  }

  @Override
  public Set<FaultKind> kinds() {
    return EnumSet.of(
        FaultKind.TORN_SEGMENT_TAIL,
        FaultKind.BITFLIP_SEGMENT_TAIL,
        FaultKind.TORN_CHECKPOINT,
        FaultKind.BITFLIP_CHECKPOINT);
  }

  @Override
  public Applied start(PlannedFault fault) {
    if (downNode != null) {
      throw new IllegalStateException("n" + downNode + " is still down from a disk fault");
    }
    OptionalInt node = resolver.node(fault.target());
    if (node.isEmpty()) {
      return new Applied(List.of(), "no node to corrupt");
    }
    int n = node.getAsInt();
    cluster.kill(n, Signal.KILL);
    downNode = n;
    try {
      Optional<FileCorruption.Plan> plan =
          FileCorruption.plan(
              fault.kind(),
              FileCorruption.candidates(fault.kind(), cluster.nodeDataDir(n)),
              new Random(seed * 31 + fault.id()));
      if (plan.isEmpty()) {
        return new Applied(
            List.of(TargetResolver.name(n)),
            "killed; no file to corrupt in " + cluster.nodeDataDir(n));
      }
      FileCorruption.apply(plan.get());
      LOG.info("#{} {} on n{}: {}", fault.id(), fault.kind(), n, plan.get().describe());
      return new Applied(List.of(TargetResolver.name(n)), plan.get().describe());
    } catch (IOException | UncheckedIOException e) {
      // The node is down either way; heal() must still restart it, so report rather than throw.
      LOG.error("#{} {} on n{}: corruption failed", fault.id(), fault.kind(), n, e);
      return new Applied(List.of(TargetResolver.name(n)), "killed; corruption failed: " + e);
    }
  }

  @Override
  public void heal() {
    if (downNode != null) {
      cluster.start(downNode);
      downNode = null;
    }
  }
}
