package dev.spool.chaos.checker;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.spool.common.TopicPartition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One instance of an anomaly, with what a person needs to find it in the history: the partition,
 * the offsets and values involved, the indices of the ops that show it, and their times.
 *
 * @param kind the checker's name (Jepsen's anomaly name), e.g. {@code lost-write}
 * @param summary one sentence a person can read in the report
 * @param partition the partition it concerns, or {@code null}
 * @param offsets the offsets involved, in the order the summary names them
 * @param values the values involved
 * @param ops indices of the ops that show it (writer first, then readers)
 * @param timesNs times of those ops, ns since run start
 * @param details anything else specific to the anomaly (nodes, batches, deltas)
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({
  "kind",
  "summary",
  "partition",
  "offsets",
  "values",
  "ops",
  "timesNs",
  "details"
})
public record Anomaly(
    String kind,
    String summary,
    TopicPartition partition,
    List<Long> offsets,
    List<Long> values,
    List<Integer> ops,
    List<Long> timesNs,
    Map<String, Object> details) {
  public Anomaly {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(summary, "summary");
    offsets = offsets == null ? List.of() : List.copyOf(offsets);
    values = values == null ? List.of() : List.copyOf(values);
    ops = ops == null ? List.of() : List.copyOf(ops);
    timesNs = timesNs == null ? List.of() : List.copyOf(timesNs);
    details = details == null ? Map.of() : new LinkedHashMap<>(details);
  }

  /** A fluent start, because most anomalies fill only some fields. */
  public static Builder of(String kind, TopicPartition partition) {
    return new Builder(kind, partition);
  }

  /** Builds an {@link Anomaly}; not thread-safe. */
  public static final class Builder {
    private final String kind;
    private final TopicPartition partition;
    private List<Long> offsets = List.of();
    private List<Long> values = List.of();
    private List<Integer> ops = List.of();
    private List<Long> timesNs = List.of();
    private final Map<String, Object> details = new LinkedHashMap<>();

    private Builder(String kind, TopicPartition partition) {
      this.kind = kind;
      this.partition = partition;
    }

    public Builder offsets(List<Long> o) {
      this.offsets = o;
      return this;
    }

    public Builder values(List<Long> v) {
      this.values = v;
      return this;
    }

    public Builder ops(List<Integer> indices, List<Long> times) {
      this.ops = indices;
      this.timesNs = times;
      return this;
    }

    public Builder detail(String key, Object value) {
      if (value != null) {
        details.put(key, value);
      }
      return this;
    }

    public Anomaly summary(String summary) {
      return new Anomaly(kind, summary, partition, offsets, values, ops, timesNs, details);
    }
  }
}
