package dev.spool.chaos.nemesis;

import java.util.ArrayList;
import java.util.EnumMap;
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
 * recorded with a note and skipped, loudly; the run goes on. Called from one thread.
 */
public final class NemesisRunner {
  private static final Logger LOG = LoggerFactory.getLogger(NemesisRunner.class);
  private static final long NS_PER_MS = 1_000_000L;

  private final List<PlannedFault> pending;
  private final Map<FaultKind, Nemesis> byKind = new EnumMap<>(FaultKind.class);
  private final Consumer<FaultWindow> timeline;
  private final Map<Integer, FaultWindow> active = new LinkedHashMap<>();
  private final Map<Integer, PlannedFault> activePlans = new LinkedHashMap<>();
  private final List<FaultWindow> finished = new ArrayList<>();

  public NemesisRunner(Schedule schedule, List<Nemesis> nemeses, Consumer<FaultWindow> timeline) {
    this.pending = new ArrayList<>(schedule.faults());
    this.timeline = timeline;
    for (Nemesis n : nemeses) {
      for (FaultKind k : n.kinds()) {
        if (byKind.put(k, n) != null) {
          throw new IllegalArgumentException("two nemeses handle " + k);
        }
      }
    }
  }

  /** Heals faults whose window ended by {@code nowNs}, then starts faults whose window began. */
  public void tick(long nowNs) {
    for (PlannedFault f : List.copyOf(activePlans.values())) {
      if (f.endMs() * NS_PER_MS <= nowNs) {
        heal(f, nowNs);
      }
    }
    while (!pending.isEmpty() && pending.get(0).startMs() * NS_PER_MS <= nowNs) {
      start(pending.remove(0), nowNs);
    }
  }

  /** Heals everything still active (innermost first) and drops faults not yet started. */
  public void healAll(long nowNs) {
    List<PlannedFault> open = new ArrayList<>(activePlans.values());
    for (int i = open.size() - 1; i >= 0; i--) {
      heal(open.get(i), nowNs);
    }
    pending.clear();
  }

  /** Finished windows in heal order, then those still open. */
  public List<FaultWindow> timeline() {
    List<FaultWindow> all = new ArrayList<>(finished);
    all.addAll(active.values());
    return all;
  }

  public boolean idle() {
    return pending.isEmpty() && activePlans.isEmpty();
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
      record(new FaultWindow(f.id(), f.kind(), List.of(), nowNs, nowNs, applied.note()));
      return;
    }
    FaultWindow w = new FaultWindow(f.id(), f.kind(), applied.targets(), nowNs, -1, applied.note());
    active.put(f.id(), w);
    activePlans.put(f.id(), f);
    timeline.accept(w);
  }

  private void heal(PlannedFault f, long nowNs) {
    FaultWindow open = active.remove(f.id());
    activePlans.remove(f.id());
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
