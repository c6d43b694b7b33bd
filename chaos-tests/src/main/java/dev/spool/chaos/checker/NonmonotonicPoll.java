package dev.spool.chaos.checker;

import java.util.ArrayList;
import java.util.List;

/**
 * <b>nonmonotonic-poll</b>: a consumer session's next read in a partition is at or before where it
 * had already read.
 *
 * <p>Jepsen ({@code kafka.clj}, {@code poll-skip+nonmonotonic-cases}, {@code :nonmonotonic}):
 * "cases where a process started polling at or before a previous operation last left off"; in a
 * partition a consumer's offsets must go up by exactly one known record each time, without a new
 * assignment or seek in between (see {@link ConsumerSteps} for sessions and resets). Also inside
 * one poll (Jepsen's {@code int-nonmonotonic-poll}), reported with {@code scope=within-poll}.
 */
public final class NonmonotonicPoll implements Checker {
  public static final String NAME = "nonmonotonic-poll";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(Analysis a) {
    List<Anomaly> found = new ArrayList<>();
    for (ConsumerSteps.Step s : ConsumerSteps.of(a)) {
      if (s.delta() >= 1) {
        continue;
      }
      found.add(
          Anomaly.of(NAME, s.partition())
              .offsets(List.of(s.fromOffset(), s.toOffset()))
              .values(List.of(valueAt(a, s, s.fromOffset()), valueAt(a, s, s.toOffset())))
              .ops(
                  List.of(s.from().index(), s.to().index()),
                  List.of(s.from().timeNs(), s.to().timeNs()))
              .detail("process", s.process())
              .detail("delta", s.delta())
              .detail("scope", s.scope())
              .summary(
                  "process "
                      + s.process()
                      + " read "
                      + s.partition()
                      + "@"
                      + s.toOffset()
                      + " (op "
                      + s.to().index()
                      + ") after it had read offset "
                      + s.fromOffset()
                      + " (op "
                      + s.from().index()
                      + "), delta "
                      + s.delta()
                      + ", "
                      + s.scope()));
    }
    return CheckResult.of(NAME, found, null);
  }

  static long valueAt(Analysis a, ConsumerSteps.Step s, long offset) {
    return a.versionOrder(s.partition()).claimsAt(offset).keySet().iterator().next();
  }
}
