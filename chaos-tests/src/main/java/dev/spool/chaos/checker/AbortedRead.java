package dev.spool.chaos.checker;

import dev.spool.chaos.history.OffsetValue;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * <b>aborted-read</b> (Jepsen's {@code G1a}): a consumer read a value whose send failed definitely.
 *
 * <p>Jepsen ({@code kafka.clj}, {@code g1a-cases}): "aborted reads, where a known-failed write is
 * nonetheless visible to a committed read": an ok poll returned a value whose writer completed
 * {@code fail}. A value whose send was {@code info} may legitimately be read or not; only {@code
 * fail} sends count here, which is why {@link dev.spool.chaos.history.SendErrors} keeps {@code
 * fail} for errors that prove nothing was appended.
 */
public final class AbortedRead implements Checker {
  public static final String NAME = "aborted-read";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    List<Anomaly> found = new ArrayList<>();
    for (Op reader : a.history().ops()) {
      if (!reader.is(OpType.OK, OpFunction.POLL)) {
        continue;
      }
      for (Map.Entry<TopicPartition, List<OffsetValue>> e : reader.reads().entrySet()) {
        for (OffsetValue ov : e.getValue()) {
          Op writer = a.writerOf(e.getKey(), ov.value());
          if (writer == null || writer.type() != OpType.FAIL) {
            continue;
          }
          found.add(
              Anomaly.of(NAME, e.getKey())
                  .offsets(List.of(ov.offset()))
                  .values(List.of(ov.value()))
                  .ops(
                      List.of(writer.index(), reader.index()),
                      List.of(writer.timeNs(), reader.timeNs()))
                  .detail("writerError", writer.error())
                  .summary(
                      "value "
                          + ov.value()
                          + " was read at "
                          + e.getKey()
                          + "@"
                          + ov.offset()
                          + " by op "
                          + reader.index()
                          + " (process "
                          + reader.process()
                          + ") but its send, op "
                          + writer.index()
                          + ", failed definitely with "
                          + writer.error()));
        }
      }
    }
    return CheckResult.of(NAME, found, null);
  }
}
