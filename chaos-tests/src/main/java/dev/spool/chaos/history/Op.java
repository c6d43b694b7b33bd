package dev.spool.chaos.history;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One client operation as Jepsen records it: an {@code invoke} followed, for the same process, by
 * exactly one completion ({@code ok}, {@code fail} or {@code info}).
 *
 * <p>JSON layout (one object per line, {@code null} fields left out):
 *
 * <pre>
 * index            int     position among the ops of this history, 0-based, gap-free
 * timeNs           long    monotonic ns since the run started (invoke: before the call; completion: after)
 * process          long    Jepsen's process: one logical client with one producer and one consumer,
 *                          doing one op at a time. After an info it is never used again.
 * worker           int     the workload thread that ran the process (stable across crashes)
 * type             string  invoke | ok | fail | info
 * f                string  send | poll | assign
 * partition        string  send: "topic-3"
 * value            long    send: the unique value written
 * offset           long    send ok: the offset the broker acknowledged
 * reads            object  poll ok: {"topic-3": [[offset, value], ...], ...} in the order returned
 * assignment       array   assign: ["topic-0", "topic-1"]
 * seekToBeginning  bool    assign: the consumer also rewound those partitions
 * error            string  fail / info: the error code or exception that ended the op
 * </pre>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "index",
  "timeNs",
  "process",
  "worker",
  "type",
  "f",
  "partition",
  "value",
  "offset",
  "reads",
  "assignment",
  "seekToBeginning",
  "error"
})
public record Op(
    int index,
    long timeNs,
    long process,
    int worker,
    OpType type,
    OpFunction f,
    TopicPartition partition,
    Long value,
    Long offset,
    Map<TopicPartition, List<OffsetValue>> reads,
    List<TopicPartition> assignment,
    Boolean seekToBeginning,
    String error)
    implements HistoryEntry {

  public Op {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(f, "f");
    if (index < 0) {
      throw new IllegalArgumentException("index must be >= 0: " + index);
    }
    if (f == OpFunction.SEND && (partition == null || value == null)) {
      throw new IllegalArgumentException("a send names its partition and value: " + index);
    }
    if (offset != null && !(f == OpFunction.SEND && type == OpType.OK)) {
      throw new IllegalArgumentException("only an ok send carries an offset: op " + index);
    }
    if (reads != null && !(f == OpFunction.POLL && type == OpType.OK)) {
      throw new IllegalArgumentException("only an ok poll carries reads: op " + index);
    }
    reads = reads == null ? null : Map.copyOf(reads);
    assignment = assignment == null ? null : List.copyOf(assignment);
  }

  public boolean is(OpType t, OpFunction fn) {
    return type == t && f == fn;
  }

  /** A short human-readable form for reports: {@code #12 p3 ok send t-0 v=7 @4}. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append('#').append(index).append(" p").append(process).append(' ').append(type.jsonName());
    sb.append(' ').append(f.jsonName());
    if (partition != null) {
      sb.append(' ').append(partition);
    }
    if (value != null) {
      sb.append(" v=").append(value);
    }
    if (offset != null) {
      sb.append(" @").append(offset);
    }
    if (reads != null) {
      sb.append(' ').append(reads.size()).append(" partition(s)");
    }
    if (assignment != null) {
      sb.append(' ').append(assignment);
    }
    if (Boolean.TRUE.equals(seekToBeginning)) {
      sb.append(" seek-to-beginning");
    }
    if (error != null) {
      sb.append(" (").append(error).append(')');
    }
    return sb.toString();
  }
}
