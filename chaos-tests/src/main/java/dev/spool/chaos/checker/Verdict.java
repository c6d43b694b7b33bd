package dev.spool.chaos.checker;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of checking one run: {@code verdict.json}.
 *
 * @param valid false if any checker found an anomaly; unknown if none did but some could not judge;
 *     true otherwise (Jepsen's merge of {@code :valid?})
 * @param counts the size of the run
 * @param results per checker, in a fixed order
 * @param availability outage and throughput figures (never affect {@code valid})
 * @param timelines per fault, where its time went ({@link FaultTimelines}; never affect {@code
 *     valid}); empty when the node logs were not read
 */
@JsonPropertyOrder({"valid", "counts", "results", "availability", "timelines"})
public record Verdict(
    Validity valid,
    Counts counts,
    Map<String, CheckResult> results,
    Availability.Report availability,
    List<FaultTimeline> timelines) {
  public Verdict {
    results = new LinkedHashMap<>(results);
    timelines = timelines == null ? List.of() : List.copyOf(timelines);
  }

  public Verdict(
      Validity valid,
      Counts counts,
      Map<String, CheckResult> results,
      Availability.Report availability) {
    this(valid, counts, results, availability, List.of());
  }

  /** This verdict with the fault timelines of the run. */
  public Verdict withTimelines(List<FaultTimeline> faultTimelines) {
    return new Verdict(valid, counts, results, availability, faultTimelines);
  }

  /** Total anomalies across checkers. */
  public int anomalyCount() {
    return results.values().stream().mapToInt(CheckResult::anomalyCount).sum();
  }
}
