package dev.spool.chaos.checker;

import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * <b>nonmonotonic-send</b>: a process's later send to a partition landed at or before its earlier
 * one.
 *
 * <p>Jepsen ({@code kafka.clj}, {@code nonmonotonic-send-cases}): per process, over its ok and info
 * sends in order, per key, compare the position of the last value the previous send wrote with the
 * first value of this send; a delta below 1 in the version order is an error. Positions come from
 * the acknowledged offset, or for an info send from where a poll saw its value; if either is
 * unknown the pair is not judged. A process runs one op at a time, so its sends are ordered; a
 * producer that pipelines must be recorded as several processes. Unlike Jepsen's version we do not
 * forget the last send on {@code assign}: consumer assignment has no bearing on producer order
 * (Jepsen reuses its poll bookkeeping there).
 */
public final class NonmonotonicSend implements Checker {
  public static final String NAME = "nonmonotonic-send";

  @Override
  public String name() {
    return NAME;
  }

  private record Sent(Op op, Long offset) {}

  @Override
  public CheckResult check(Analysis a) {
    List<Anomaly> found = new ArrayList<>();
    Map<Long, Map<TopicPartition, Sent>> last = new HashMap<>();
    for (Op op : a.history().ops()) {
      if (op.f() != OpFunction.SEND || !(op.type() == OpType.OK || op.type() == OpType.INFO)) {
        continue;
      }
      VersionOrder vo = a.versionOrder(op.partition());
      Long offset = op.offset();
      if (offset == null && !vo.offsetsOf(op.value()).isEmpty()) {
        offset = vo.offsetsOf(op.value()).get(0);
      }
      Map<TopicPartition, Sent> mine = last.computeIfAbsent(op.process(), p -> new HashMap<>());
      Sent prev = mine.put(op.partition(), new Sent(op, offset));
      if (prev == null || prev.offset() == null || offset == null) {
        continue;
      }
      int delta = vo.indexOf(offset) - vo.indexOf(prev.offset());
      if (delta >= 1) {
        continue;
      }
      found.add(
          Anomaly.of(NAME, op.partition())
              .offsets(List.of(prev.offset(), offset))
              .values(List.of(prev.op().value(), op.value()))
              .ops(List.of(prev.op().index(), op.index()), List.of(prev.op().timeNs(), op.timeNs()))
              .detail("process", op.process())
              .detail("delta", delta)
              .summary(
                  "process "
                      + op.process()
                      + " sent "
                      + op.value()
                      + " (op "
                      + op.index()
                      + ") which landed at "
                      + op.partition()
                      + "@"
                      + offset
                      + ", not after its "
                      + "previous send "
                      + prev.op().value()
                      + " (op "
                      + prev.op().index()
                      + ") at @"
                      + prev.offset()
                      + ", delta "
                      + delta));
    }
    return CheckResult.of(NAME, found, null);
  }
}
