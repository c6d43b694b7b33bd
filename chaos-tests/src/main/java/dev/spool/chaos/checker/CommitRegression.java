package dev.spool.chaos.checker;

import dev.spool.chaos.checker.GroupHistory.Committed;
import dev.spool.chaos.checker.GroupHistory.Event;
import dev.spool.chaos.checker.GroupHistory.Reset;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * <b>commit-regression</b>: a partition's acknowledged commits, in the order they were
 * acknowledged, never move backwards except by an explicit reset. A member whose epoch was fenced
 * must not be able to commit an older position over the new owner's, and a coordinator failover
 * must not bring back an older commit as the latest.
 */
public final class CommitRegression implements GroupChecker {
  public static final String NAME = "commit-regression";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(GroupHistory h) {
    Map<TopicPartition, long[]> high = new HashMap<>(); // {offset, event index}
    List<Anomaly> found = new ArrayList<>();
    int commits = 0;
    List<Event> events = h.events();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      if (e instanceof Reset r) {
        high.put(r.partition(), new long[] {r.offset(), i});
      } else if (e instanceof Committed c) {
        commits++;
        long[] prev = high.get(c.partition());
        if (prev != null && c.offset() < prev[0]) {
          found.add(
              Anomaly.of(NAME, c.partition())
                  .offsets(List.of(prev[0], c.offset()))
                  .ops(List.of((int) prev[1], i), List.of())
                  .detail("member", c.member())
                  .summary(
                      "member "
                          + c.member()
                          + " committed "
                          + c.partition()
                          + " at "
                          + c.offset()
                          + " after a commit at "
                          + prev[0]));
        } else {
          high.put(c.partition(), new long[] {c.offset(), i});
        }
      }
    }
    return commits == 0
        ? CheckResult.unknown(NAME, "no acknowledged commit")
        : CheckResult.of(NAME, found, commits + " commits");
  }
}
