package dev.spool.chaos.checker;

import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The successive positions of each consumer session in each partition: the input of {@link
 * NonmonotonicPoll} and {@link PollSkip}, which differ only in the sign of the step.
 *
 * <p>A consumer session is Jepsen's process. Following {@code poll-skip+nonmonotonic-cases} in
 * {@code kafka.clj}:
 *
 * <ul>
 *   <li>A step runs from the last offset a process's previous ok poll read in a partition to the
 *       first offset its next ok poll read there ({@code between-polls}); and, inside one poll,
 *       from each record to the next ({@code within-poll}, Jepsen's {@code int-poll-skip} and
 *       {@code int-nonmonotonic-poll}, reported under the same names with a scope).
 *   <li>Polls that fail, are indeterminate or return nothing for a partition do not move the
 *       position.
 *   <li>An ok or info {@code assign} keeps the position only for partitions still assigned. Our
 *       addition: an assign with {@code seekToBeginning} also forgets the position of the
 *       partitions it rewinds, since re-reading them is then what the consumer was told to do.
 *       (Jepsen's final polls crash the client first, which gives a new process and the same
 *       effect.)
 *   <li>After an {@code info} the recorder moves the worker to a new process, so a restarted
 *       consumer starts a new session with no position.
 * </ul>
 *
 * <p>The size of a step is measured in the version order's dense indices (Jepsen's {@code delta}):
 * 1 is the next record anyone knows of; more than 1 skipped records that exist; less than 1 went
 * backwards or read the same offset again.
 */
final class ConsumerSteps {
  static final String BETWEEN_POLLS = "between-polls";
  static final String WITHIN_POLL = "within-poll";

  /** One move of one consumer session in one partition. */
  record Step(
      TopicPartition partition,
      long process,
      Op from,
      Op to,
      long fromOffset,
      long toOffset,
      int delta,
      String scope) {}

  private record Position(Op op, long offset) {}

  private ConsumerSteps() {}

  static List<Step> of(Analysis a) {
    List<Step> steps = new ArrayList<>();
    Map<Long, Map<TopicPartition, Position>> last = new HashMap<>();
    for (Op op : a.history().ops()) {
      Map<TopicPartition, Position> positions =
          last.computeIfAbsent(op.process(), p -> new HashMap<>());
      if (op.f() == OpFunction.ASSIGN && (op.type() == OpType.OK || op.type() == OpType.INFO)) {
        Set<TopicPartition> keep =
            new HashSet<>(op.assignment() == null ? List.of() : op.assignment());
        if (Boolean.TRUE.equals(op.seekToBeginning())) {
          keep.clear();
        }
        positions.keySet().retainAll(keep);
      } else if (op.is(OpType.OK, OpFunction.POLL)) {
        for (Map.Entry<TopicPartition, List<OffsetValue>> e : op.reads().entrySet()) {
          List<OffsetValue> pairs = e.getValue();
          if (pairs.isEmpty()) {
            continue;
          }
          TopicPartition tp = e.getKey();
          VersionOrder vo = a.versionOrder(tp);
          Position prev = positions.get(tp);
          if (prev != null) {
            steps.add(
                step(
                    vo,
                    tp,
                    op.process(),
                    prev.op(),
                    op,
                    prev.offset(),
                    pairs.get(0).offset(),
                    BETWEEN_POLLS));
          }
          for (int i = 1; i < pairs.size(); i++) {
            steps.add(
                step(
                    vo,
                    tp,
                    op.process(),
                    op,
                    op,
                    pairs.get(i - 1).offset(),
                    pairs.get(i).offset(),
                    WITHIN_POLL));
          }
          positions.put(tp, new Position(op, pairs.get(pairs.size() - 1).offset()));
        }
      }
    }
    return steps;
  }

  private static Step step(
      VersionOrder vo,
      TopicPartition tp,
      long process,
      Op from,
      Op to,
      long fromOffset,
      long toOffset,
      String scope) {
    int delta = vo.indexOf(toOffset) - vo.indexOf(fromOffset);
    return new Step(tp, process, from, to, fromOffset, toOffset, delta, scope);
  }
}
