package dev.spool.chaos.checker;

import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * <b>unseen</b>: at the end of the history, acknowledged sends that no ok poll ever read.
 *
 * <p>Jepsen ({@code kafka.clj}, {@code unseen}): the last point of the unseen series, per key the
 * values "successfully acknowledged, but not polled by any client"; a non-empty one is an error. A
 * run must end with final polls that read every partition from the beginning until they have caught
 * up (Jepsen's {@code final-polls}); otherwise this reports writes the workload simply never went
 * back for. One anomaly per partition, listing up to {@link #MAX_VALUES} values.
 */
public final class Unseen implements Checker {
  public static final String NAME = "unseen";
  public static final int MAX_VALUES = 64;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    Map<TopicPartition, List<Op>> unseen = new TreeMap<>();
    boolean anyAck = false;
    for (Op op : a.history().ops()) {
      if (op.is(OpType.OK, OpFunction.SEND)) {
        anyAck = true;
        Set<Long> read = a.okReads(op.partition());
        if (!read.contains(op.value())) {
          unseen.computeIfAbsent(op.partition(), tp -> new ArrayList<>()).add(op);
        }
      }
    }
    if (!anyAck) {
      return CheckResult.unknown(NAME, "no send was acknowledged");
    }
    List<Anomaly> found = new ArrayList<>();
    for (Map.Entry<TopicPartition, List<Op>> e : unseen.entrySet()) {
      List<Op> ops = e.getValue();
      ops.sort((x, y) -> Long.compare(x.offset(), y.offset()));
      List<Op> shown = ops.subList(0, Math.min(ops.size(), MAX_VALUES));
      found.add(
          Anomaly.of(NAME, e.getKey())
              .offsets(shown.stream().map(Op::offset).toList())
              .values(shown.stream().map(Op::value).toList())
              .ops(shown.stream().map(Op::index).toList(), shown.stream().map(Op::timeNs).toList())
              .detail("count", ops.size())
              .summary(
                  ops.size()
                      + " acknowledged value(s) in "
                      + e.getKey()
                      + " were never read by any consumer, first at offset "
                      + ops.get(0).offset()));
    }
    return CheckResult.of(NAME, found, null);
  }
}
