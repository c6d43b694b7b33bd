package dev.spool.chaos.nemesis;

import java.util.List;
import java.util.Set;

/**
 * Injects one family of faults. At most one fault per nemesis is active at a time; {@link
 * NemesisRunner} starts and heals them on the schedule. Implementations resolve the fault's
 * abstract target against the live cluster when it starts.
 */
public interface Nemesis {
  /** The fault kinds this nemesis handles. */
  Set<FaultKind> kinds();

  /**
   * Starts {@code fault}. Returns what was hit, resolved, for the timeline. Throws {@link
   * IllegalStateException} if a fault is already active.
   */
  Applied start(PlannedFault fault);

  /** Heals the active fault; does nothing if none is active. */
  void heal();

  /**
   * Called by {@link NemesisRunner#tick} with the time since the run started, after it healed and
   * started what was due: a fault that changes while it lasts (a link cut and healed in turn) does
   * its next step here. Does nothing unless a nemesis needs it.
   */
  default void tick(long nowNs) {}

  /**
   * What a started fault hit.
   *
   * @param targets resolved targets, e.g. {@code ["n2"]} or {@code ["n1 | n2 n3"]}
   * @param note anything a person should know (the file corrupted, why nothing was hit)
   */
  record Applied(List<String> targets, String note) {
    public Applied {
      targets = List.copyOf(targets);
    }
  }
}
