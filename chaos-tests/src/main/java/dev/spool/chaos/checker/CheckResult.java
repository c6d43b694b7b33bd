package dev.spool.chaos.checker;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * What one checker found.
 *
 * @param checker the checker's name
 * @param valid false if any anomaly was found; unknown if the history could not show one
 * @param anomalyCount how many anomalies were found in total
 * @param anomalies the first {@link #MAX_LISTED} of them (a broken run can produce millions)
 * @param note why the result is unknown, or what was checked
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"checker", "valid", "anomalyCount", "note", "anomalies"})
public record CheckResult(
    String checker, Validity valid, int anomalyCount, List<Anomaly> anomalies, String note) {
  public static final int MAX_LISTED = 100;

  public CheckResult {
    anomalies = List.copyOf(anomalies);
  }

  /** Valid unless {@code found} is non-empty. */
  public static CheckResult of(String checker, List<Anomaly> found, String note) {
    return new CheckResult(
        checker,
        found.isEmpty() ? Validity.TRUE : Validity.FALSE,
        found.size(),
        found.subList(0, Math.min(found.size(), MAX_LISTED)),
        note);
  }

  /** The history held nothing this checker could judge. */
  public static CheckResult unknown(String checker, String why) {
    return new CheckResult(checker, Validity.UNKNOWN, 0, List.of(), why);
  }
}
