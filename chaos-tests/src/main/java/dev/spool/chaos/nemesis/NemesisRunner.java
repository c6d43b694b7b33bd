package dev.spool.chaos.nemesis;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays a {@link Schedule} against a set of {@link Nemesis}es. A duty cycle with no thread and no
 * clock of its own: the harness calls {@link #tick(long)} with the time since the run started (at
 * least every few hundred ms) and {@link #healAll(long)} at the end; each call heals what is due,
 * then starts what is due. Every start and heal is reported to the timeline consumer as a {@link
 * FaultWindow} (at start with {@code endNs = -1}; again when healed), so a crashed run still has
 * the faults that were open.
 *
 * <p>A fault whose kind has no nemesis (e.g. partitions without root) or whose start throws is
 * recorded with a note and skipped, loudly; the run goes on. A fault whose nemesis did nothing
 * because its target does not exist yet (no partition leader while a restarted cluster is still
 * electing one) waits: it is tried again every {@link #RETRY_MS} ms, and once applied a fault of
 * the main sequence lasts its planned duration from the moment it really started (a fault composed
 * inside another still ends with its planned window, inside its parent's). One still waiting when
 * the faults end ({@link #healAll}) is recorded with what its nemesis said. So a slow machine
 * delays a fault instead of dropping it. Called from one thread.
 */
public final class NemesisRunner {
  private static final Logger LOG = LoggerFactory.getLogger(NemesisRunner.class);
  private static final long NS_PER_MS = 1_000_000L;

  /** How often a fault whose target could not be resolved is tried again. */
  static final long RETRY_MS = 500;

  private final List<PlannedFault> pending;
  private final Map<FaultKind, Nemesis> byKind = new EnumMap<>(FaultKind.class);
  private final List<Nemesis> nemeses;
  private final Consumer<FaultWindow> timeline;
  private final Map<Integer, FaultWindow> active = new LinkedHashMap<>();
  private final Map<Integer, PlannedFault> activePlans = new LinkedHashMap<>();
  private final Map<Integer, Long> healAtNs = new HashMap<>();
  private final Map<PlannedFault, Waiting> waiting = new LinkedHashMap<>();
  private final List<FaultWindow> finished = new ArrayList<>();

  /** A fault whose target did not resolve: when to try again and what its nemesis said. */
  private record Waiting(long retryAtNs, String note) {}

  public NemesisRunner(Schedule schedule, List<Nemesis> nemeses, Consumer<FaultWindow> timeline) {
    this.pending = new ArrayList<>(schedule.faults());
    this.timeline = timeline;
    this.nemeses = List.copyOf(nemeses);
    for (Nemesis n : nemeses) {
      for (FaultKind k : n.kinds()) {
        if (byKind.put(k, n) != null) {
          throw new IllegalArgumentException("two nemeses handle " + k);
        }
      }
    }
  }

  /**
   * Heals faults whose window ended by {@code nowNs}, tries the waiting ones again when their retry
   * is due, then starts faults whose window began.
   */
  public void tick(long nowNs) {
    for (PlannedFault f : List.copyOf(activePlans.values())) {
      if (healAtNs.get(f.id()) <= nowNs) {
        heal(f, nowNs);
      }
    }
    for (Map.Entry<PlannedFault, Waiting> w : List.copyOf(waiting.entrySet())) {
      PlannedFault f = w.getKey();
      if (f.parentId() != null && f.endMs() * NS_PER_MS <= nowNs) {
        // A composed fault only means something inside its parent's window.
        waiting.remove(f);
        giveUp(f, w.getValue().note(), nowNs);
      } else if (w.getValue().retryAtNs() <= nowNs) {
        waiting.remove(f);
        start(f, nowNs);
      }
    }
    while (!pending.isEmpty() && pending.get(0).startMs() * NS_PER_MS <= nowNs) {
      start(pending.remove(0), nowNs);
    }
    for (Nemesis n : nemeses) {
      n.tick(nowNs);
    }
  }

  /**
   * Heals everything still active (innermost first), records the faults still waiting for their
   * target and drops faults not yet started.
   */
  public void healAll(long nowNs) {
    List<PlannedFault> open = new ArrayList<>(activePlans.values());
    for (int i = open.size() - 1; i >= 0; i--) {
      heal(open.get(i), nowNs);
    }
    waiting.forEach((f, w) -> giveUp(f, w.note(), nowNs));
    waiting.clear();
    pending.clear();
  }

  /** Finished windows in heal order, then those still open. */
  public List<FaultWindow> timeline() {
    List<FaultWindow> all = new ArrayList<>(finished);
    all.addAll(active.values());
    return all;
  }

  public boolean idle() {
    return pending.isEmpty() && activePlans.isEmpty() && waiting.isEmpty();
  }

  private void start(PlannedFault f, long nowNs) {
    Nemesis n = byKind.get(f.kind());
    if (n == null) {
      LOG.warn("SKIPPED fault #{} {}: no nemesis for this kind on this machine", f.id(), f.kind());
      record(
          new FaultWindow(
              f.id(), f.kind(), List.of(), nowNs, nowNs, "skipped: no nemesis for " + f.kind()));
      return;
    }
    Nemesis.Applied applied;
    try {
      applied = n.start(f);
    } catch (RuntimeException e) {
      LOG.error("fault #{} {} failed to start", f.id(), f.kind(), e);
      record(new FaultWindow(f.id(), f.kind(), List.of(), nowNs, nowNs, "failed to start: " + e));
      return;
    }
    if (applied.targets().isEmpty()) {
      LOG.info("fault #{} {} waits: {}", f.id(), f.kind(), applied.note());
      waiting.put(f, new Waiting(nowNs + RETRY_MS * NS_PER_MS, applied.note()));
      return;
    }
    long plannedEndNs = f.endMs() * NS_PER_MS;
    healAtNs.put(
        f.id(),
        f.parentId() == null
            ? Math.max(plannedEndNs, nowNs + f.durationMs() * NS_PER_MS)
            : plannedEndNs);
    FaultWindow w = new FaultWindow(f.id(), f.kind(), applied.targets(), nowNs, -1, applied.note());
    active.put(f.id(), w);
    activePlans.put(f.id(), f);
    timeline.accept(w);
  }

  /** Records a fault that never found its target: nothing was done. */
  private void giveUp(PlannedFault f, String note, long nowNs) {
    LOG.warn("fault #{} {} never found its target: {}", f.id(), f.kind(), note);
    record(new FaultWindow(f.id(), f.kind(), List.of(), nowNs, nowNs, note));
  }

  private void heal(PlannedFault f, long nowNs) {
    FaultWindow open = active.remove(f.id());
    activePlans.remove(f.id());
    healAtNs.remove(f.id());
    String note = open.note();
    try {
      byKind.get(f.kind()).heal();
    } catch (RuntimeException e) {
      LOG.error("fault #{} {} failed to heal", f.id(), f.kind(), e);
      note = (note == null ? "" : note + "; ") + "heal failed: " + e;
    }
    record(new FaultWindow(f.id(), f.kind(), open.targets(), open.startNs(), nowNs, note));
  }

  private void record(FaultWindow w) {
    finished.add(w);
    timeline.accept(w);
  }
}
