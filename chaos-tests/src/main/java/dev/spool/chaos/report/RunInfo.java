package dev.spool.chaos.report;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * What identifies a run and how to repeat it.
 *
 * @param runId the run's id (also its folder name)
 * @param seed the seed of the nemesis schedule and the workload
 * @param startedAtMs wall-clock start, ms since the epoch (for people; all other times are
 *     monotonic ns since this start)
 * @param rerunCommand the exact command that replays this run
 * @param cluster a short description, e.g. "3 nodes, combined roles, topic t: 3 partitions, RF 3"
 * @param nemeses the enabled nemesis families, as given on the command line
 * @param notes anything a reader must know first: skipped fault families, a torn history tail
 */
@JsonPropertyOrder({"runId", "seed", "startedAtMs", "rerunCommand", "cluster", "nemeses", "notes"})
public record RunInfo(
    String runId,
    long seed,
    long startedAtMs,
    String rerunCommand,
    String cluster,
    String nemeses,
    List<String> notes) {
  public RunInfo {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(rerunCommand, "rerunCommand");
    notes = notes == null ? List.of() : List.copyOf(notes);
  }
}
