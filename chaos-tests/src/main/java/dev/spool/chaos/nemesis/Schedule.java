package dev.spool.chaos.nemesis;

import java.util.List;
import java.util.Set;

/**
 * A planned run of faults, in start order. {@code skippedFamilies} are families that were asked for
 * but are not available on this machine (say it loudly: a run without partitions proves less).
 */
public record Schedule(
    long seed,
    ScheduleConfig config,
    List<PlannedFault> faults,
    Set<NemesisFamily> skippedFamilies) {
  public Schedule {
    faults = List.copyOf(faults);
    skippedFamilies = Set.copyOf(skippedFamilies);
  }

  /** One line per fault, for logs and the report. */
  public String describe() {
    StringBuilder sb =
        new StringBuilder("nemesis schedule, seed " + seed + ", " + faults.size() + " faults");
    if (!skippedFamilies.isEmpty()) {
      sb.append(", SKIPPED families ").append(skippedFamilies);
    }
    for (PlannedFault f : faults) {
      sb.append('\n').append("  ").append(f);
    }
    return sb.toString();
  }
}
