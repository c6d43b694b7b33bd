package dev.spool.chaos.checker;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The outcome of checking one run: {@code verdict.json}.
 *
 * @param valid false if any checker found an anomaly; unknown if none did but some could not judge;
 *     true otherwise (Jepsen's merge of {@code :valid?})
 * @param counts the size of the run
 * @param results per checker, in a fixed order
 * @param availability outage and throughput figures (never affect {@code valid})
 */
@JsonPropertyOrder({"valid", "counts", "results", "availability"})
public record Verdict(
    Validity valid,
    Counts counts,
    Map<String, CheckResult> results,
    Availability.Report availability) {
  public Verdict {
    results = new LinkedHashMap<>(results);
  }

  /** Total anomalies across checkers. */
  public int anomalyCount() {
    return results.values().stream().mapToInt(CheckResult::anomalyCount).sum();
  }
}
