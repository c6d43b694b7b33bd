package dev.spool.chaos.checker;

import dev.spool.chaos.checker.GroupHistory.Event;
import dev.spool.chaos.checker.GroupHistory.Polled;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * <b>group-poll-skip</b>: while a member owns a partition, its consecutive records of it (inside
 * one poll and from one poll to the next) never jump over an offset that holds a record. An
 * ownership starts at {@code onPartitionsAssigned} and ends at a revocation or a loss; the next one
 * may start anywhere (that is {@link HandoverStart}'s concern). Going backwards is allowed: a group
 * reads at least once.
 */
public final class GroupPollSkip implements GroupChecker {
  public static final String NAME = "group-poll-skip";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(GroupHistory h) {
    Map<TopicPartition, TreeSet<Long>> known = h.knownOffsets();
    Map<GroupHistory.Ownership, long[]> last = new HashMap<>(); // {offset, event index}
    List<Anomaly> found = new ArrayList<>();
    int steps = 0;
    List<Event> events = h.events();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      GroupHistory.ownershipChanges(e).forEach(last::remove);
      if (e instanceof Polled p) {
        GroupHistory.Ownership key = new GroupHistory.Ownership(p.member(), p.partition());
        for (OffsetValue r : p.records()) {
          long[] prev = last.get(key);
          if (prev != null) {
            steps++;
            Long skipped =
                GroupHistory.knownBetween(known.get(p.partition()), prev[0] + 1, r.offset());
            if (skipped != null) {
              found.add(
                  Anomaly.of(NAME, p.partition())
                      .offsets(List.of(prev[0], skipped, r.offset()))
                      .ops(List.of((int) prev[1], i), List.of())
                      .detail("member", p.member())
                      .summary(
                          "member "
                              + p.member()
                              + " read "
                              + p.partition()
                              + " at "
                              + prev[0]
                              + " then at "
                              + r.offset()
                              + ", skipping the record at "
                              + skipped));
            }
          }
          last.put(key, new long[] {r.offset(), i});
        }
      }
    }
    return steps == 0
        ? CheckResult.unknown(NAME, "no member read a partition twice")
        : CheckResult.of(NAME, found, steps + " steps");
  }
}
