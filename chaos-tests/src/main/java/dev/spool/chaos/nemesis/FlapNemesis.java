package dev.spool.chaos.nemesis;

import dev.spool.testing.process.Signal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults that come and go while they last, stepped by {@link #tick}: a fault of this family is in
 * one of two phases, "on" (the node cut off, or stopped) and "off" (healed, or running), and
 * switches at each phase's end until the window heals.
 *
 * <ul>
 *   <li>{@code FLAPPING_LINK}: the node cut off from every other node, both planes, for {@code
 *       cutMs}, then healed for {@code healedMs}, again and again (1 s each by default).
 *   <li>{@code INTERMITTENT_PAUSE}: the node SIGSTOPped for {@code stopMs}, then SIGCONTed for
 *       {@code runMs} (1 s and 2 s by default): slow, never dead for longer than its session
 *       timeout.
 * </ul>
 *
 * <p>Either starts "on" and always ends "off": heal leaves the node connected and running.
 */
public final class FlapNemesis implements Nemesis {
  private static final Logger LOG = LoggerFactory.getLogger(FlapNemesis.class);
  private static final long NS_PER_MS = 1_000_000L;

  private final ClusterControl cluster;
  private final TargetResolver resolver;
  private final NetworkControl network;

  private FaultKind activeKind;
  private int node;
  private long onMs;
  private long offMs;
  private boolean on;

  /** When the current phase ends; -1 until the first tick after the start. */
  private long switchAtNs = -1;

  private int switches;

  /** {@code network} may be null (no namespaces): then only {@code INTERMITTENT_PAUSE} works. */
  public FlapNemesis(ClusterControl cluster, NetworkControl network) {
    this.cluster = cluster;
    this.resolver = new TargetResolver(cluster);
    this.network = network;
  }

  @Override
  public Set<FaultKind> kinds() {
    return network == null
        ? EnumSet.of(FaultKind.INTERMITTENT_PAUSE)
        : EnumSet.of(FaultKind.FLAPPING_LINK, FaultKind.INTERMITTENT_PAUSE);
  }

  @Override
  public Applied start(PlannedFault fault) {
    if (activeKind != null) {
      throw new IllegalStateException(activeKind + " of n" + node + " is still active");
    }
    OptionalInt target = resolver.node(fault.target());
    if (target.isEmpty()) {
      return new Applied(List.of(), fault.target() + " could not be resolved now; nothing done");
    }
    activeKind = fault.kind();
    node = target.getAsInt();
    if (activeKind == FaultKind.FLAPPING_LINK) {
      onMs = fault.param("cutMs", 1_000);
      offMs = fault.param("healedMs", 1_000);
    } else {
      onMs = fault.param("stopMs", 1_000);
      offMs = fault.param("runMs", 2_000);
    }
    switchAtNs = -1;
    switches = 0;
    turnOn();
    LOG.info(
        "#{} {} n{} ({}): {} ms on, {} ms off",
        fault.id(),
        activeKind,
        node,
        fault.target(),
        onMs,
        offMs);
    return new Applied(
        List.of(TargetResolver.name(node)),
        fault.target() + ", " + onMs + " ms " + onWord() + " of every " + (onMs + offMs) + " ms");
  }

  @Override
  public void tick(long nowNs) {
    if (activeKind == null) {
      return;
    }
    if (switchAtNs < 0) {
      switchAtNs = nowNs + onMs * NS_PER_MS; // the first "on" phase counts from here
      return;
    }
    if (nowNs < switchAtNs) {
      return;
    }
    if (on) {
      turnOff();
      switchAtNs = nowNs + offMs * NS_PER_MS;
    } else {
      turnOn();
      switchAtNs = nowNs + onMs * NS_PER_MS;
    }
    switches++;
  }

  @Override
  public void heal() {
    if (activeKind == null) {
      return;
    }
    if (on) {
      turnOff();
    }
    LOG.info("{} n{} healed after {} switches", activeKind, node, switches);
    activeKind = null;
  }

  private void turnOn() {
    if (activeKind == FaultKind.FLAPPING_LINK) {
      List<Integer> others = new ArrayList<>(cluster.nodes());
      others.remove(Integer.valueOf(node));
      for (Grudge.Link link : Grudge.bothWays(List.of(node), others, Grudge.ALL_PLANES)) {
        network.drop(link.from(), link.to(), link.plane());
      }
    } else {
      cluster.kill(node, Signal.STOP);
    }
    on = true;
  }

  private void turnOff() {
    if (activeKind == FaultKind.FLAPPING_LINK) {
      network.healAll();
    } else {
      cluster.kill(node, Signal.CONT);
    }
    on = false;
  }

  private String onWord() {
    return activeKind == FaultKind.FLAPPING_LINK ? "cut" : "stopped";
  }
}
