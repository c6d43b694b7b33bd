package dev.spool.chaos.checker;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A checker of a {@link GroupHistory}: one anomaly of a consumer group as the reader, one class.
 * Pure, like {@link Checker}: no I/O, no clock, no randomness.
 */
public interface GroupChecker {
  String name();

  CheckResult check(GroupHistory history);

  /** The four checkers of the consumer-group chaos scenario. */
  static List<GroupChecker> all() {
    return List.of(
        new GroupUnconsumed(), new GroupPollSkip(), new CommitRegression(), new HandoverStart());
  }

  /** Runs {@code checkers} over {@code history}: each one's result under its name. */
  static Map<String, CheckResult> checkAll(List<GroupChecker> checkers, GroupHistory history) {
    Map<String, CheckResult> out = new LinkedHashMap<>();
    checkers.forEach(c -> out.put(c.name(), c.check(history)));
    return out;
  }
}
