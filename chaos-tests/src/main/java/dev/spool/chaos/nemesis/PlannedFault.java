package dev.spool.chaos.nemesis;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One time-boxed fault of a {@link Schedule}: start at {@code startMs} after the run starts, heal
 * {@code durationMs} later.
 *
 * @param id position in the schedule, 0-based, in start order
 * @param parentId for a fault composed inside another one (a kill during a partition), the outer
 *     fault's id; {@code null} for the faults of the main sequence
 * @param params kind-specific numbers, units in the key: {@code latencyMs}, {@code bytesPerSecond}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"id", "parentId", "kind", "target", "startMs", "durationMs", "params"})
public record PlannedFault(
    int id,
    Integer parentId,
    FaultKind kind,
    Target target,
    long startMs,
    long durationMs,
    Map<String, Long> params) {
  public PlannedFault {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(target, "target");
    if (startMs < 0 || durationMs <= 0) {
      throw new IllegalArgumentException(
          "bad window " + startMs + "+" + durationMs + " for fault " + id);
    }
    params = params == null ? Map.of() : new TreeMap<>(params);
  }

  public long endMs() {
    return startMs + durationMs;
  }

  public long param(String key, long defaultValue) {
    return params.getOrDefault(key, defaultValue);
  }

  @Override
  public String toString() {
    return String.format(
        "#%d %s %s at %d ms for %d ms%s%s",
        id,
        kind,
        target,
        startMs,
        durationMs,
        params.isEmpty() ? "" : " " + params,
        parentId == null ? "" : " (inside #" + parentId + ")");
  }
}
