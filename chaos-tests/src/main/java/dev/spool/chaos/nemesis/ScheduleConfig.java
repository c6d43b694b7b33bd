package dev.spool.chaos.nemesis;

import dev.spool.common.TopicPartition;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a {@link NemesisSchedule} may plan. All times in ms from the run's start.
 *
 * @param seed the seed of every random choice; printed with the report and the re-run command
 * @param families the fault families enabled for this run
 * @param durationMs the whole run; faults are healed by {@code durationMs - finalQuietMs}
 * @param faultMinMs shortest fault window
 * @param faultMaxMs longest fault window
 * @param quietMinMs shortest fault-free period between two faults of the main sequence
 * @param quietMaxMs longest such period
 * @param pauseMinMs shortest SIGSTOP window; set above the broker session timeout so a pause is
 *     long enough to get the node fenced
 * @param finalQuietMs fault-free time at the end, for recovery and the final polls
 * @param composeProbability chance that a partition gets a kill composed inside it (0 disables)
 * @param partitions the partitions the workload uses, for partition-leader targets
 */
public record ScheduleConfig(
    long seed,
    Set<NemesisFamily> families,
    long durationMs,
    long faultMinMs,
    long faultMaxMs,
    long quietMinMs,
    long quietMaxMs,
    long pauseMinMs,
    long finalQuietMs,
    double composeProbability,
    List<TopicPartition> partitions) {

  public ScheduleConfig {
    families = families.isEmpty() ? EnumSet.noneOf(NemesisFamily.class) : EnumSet.copyOf(families);
    partitions = List.copyOf(Objects.requireNonNull(partitions, "partitions"));
    require(durationMs > 0, "durationMs must be > 0");
    require(0 < faultMinMs && faultMinMs <= faultMaxMs, "need 0 < faultMinMs <= faultMaxMs");
    require(0 <= quietMinMs && quietMinMs <= quietMaxMs, "need 0 <= quietMinMs <= quietMaxMs");
    require(pauseMinMs <= faultMaxMs, "pauseMinMs must be <= faultMaxMs");
    require(finalQuietMs >= 0 && finalQuietMs < durationMs, "need 0 <= finalQuietMs < durationMs");
    require(
        composeProbability >= 0 && composeProbability <= 1, "composeProbability must be in [0,1]");
  }

  /**
   * Sensible windows for a run of {@code durationMs}: faults of 5–20 s, quiet periods of 5–15 s,
   * pauses of at least 12 s (above a 10 s session timeout), 20 s of calm at the end, and a kill
   * composed into a quarter of the partitions of runs of 5 minutes or longer.
   */
  public static ScheduleConfig defaults(
      long seed, Set<NemesisFamily> families, long durationMs, List<TopicPartition> partitions) {
    double compose = durationMs >= 300_000 ? 0.25 : 0.0;
    return new ScheduleConfig(
        seed,
        families,
        durationMs,
        5_000,
        20_000,
        5_000,
        15_000,
        12_000,
        Math.min(20_000, durationMs / 4),
        compose,
        partitions);
  }

  /** The same config limited to {@code available} families (e.g. no PARTITION without root). */
  public ScheduleConfig restrictTo(Set<NemesisFamily> available) {
    EnumSet<NemesisFamily> kept = EnumSet.noneOf(NemesisFamily.class);
    for (NemesisFamily f : families) {
      if (available.contains(f)) {
        kept.add(f);
      }
    }
    return new ScheduleConfig(
        seed,
        kept,
        durationMs,
        faultMinMs,
        faultMaxMs,
        quietMinMs,
        quietMaxMs,
        pauseMinMs,
        finalQuietMs,
        composeProbability,
        partitions);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
