package dev.spool.chaos.checker;

import dev.spool.chaos.checker.GroupHistory.Assigned;
import dev.spool.chaos.checker.GroupHistory.CommitUnknown;
import dev.spool.chaos.checker.GroupHistory.Committed;
import dev.spool.chaos.checker.GroupHistory.Event;
import dev.spool.chaos.checker.GroupHistory.Polled;
import dev.spool.chaos.checker.GroupHistory.Reset;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * <b>handover-start</b>: when a member is given a partition that has a committed offset, its first
 * record of it is at or before that offset: nothing between the last acknowledged commit and where
 * the new owner starts is left unread. (Starting earlier re-reads, which at-least-once allows.)
 * Compared with the commit acknowledged last before the assignment, or a later commit whose outcome
 * is unknown ({@link GroupHistory.CommitUnknown}: it may have been applied, and then the new owner
 * rightly starts there); a start past that counts only if a record is known to exist in between.
 */
public final class HandoverStart implements GroupChecker {
  public static final String NAME = "handover-start";

  /**
   * An ownership waiting for its first record: the furthest commit it may start at (acknowledged,
   * or of unknown outcome after that).
   */
  private record Pending(long committed, int assignedAt) {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CheckResult check(GroupHistory h) {
    Map<TopicPartition, TreeSet<Long>> known = h.knownOffsets();
    Map<TopicPartition, Long> committed = new HashMap<>();
    // The furthest offset a commit since the last acknowledged one may have set.
    Map<TopicPartition, Long> maybeCommitted = new HashMap<>();
    Map<GroupHistory.Ownership, Pending> pending = new HashMap<>();
    List<Anomaly> found = new ArrayList<>();
    int handovers = 0;
    List<Event> events = h.events();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      if (e instanceof Committed c) {
        committed.put(c.partition(), c.offset());
        maybeCommitted.put(c.partition(), c.offset());
      } else if (e instanceof CommitUnknown u) {
        maybeCommitted.merge(u.partition(), u.offset(), Math::max);
      } else if (e instanceof Reset r) {
        committed.put(r.partition(), r.offset());
        maybeCommitted.put(r.partition(), r.offset());
      }
      GroupHistory.ownershipChanges(e).forEach(pending::remove);
      if (e instanceof Assigned a) {
        for (TopicPartition tp : a.partitions()) {
          Long c = committed.get(tp);
          if (c != null) {
            long bound = Math.max(c, maybeCommitted.getOrDefault(tp, c));
            pending.put(new GroupHistory.Ownership(a.member(), tp), new Pending(bound, i));
          }
        }
      } else if (e instanceof Polled p && !p.records().isEmpty()) {
        Pending w = pending.remove(new GroupHistory.Ownership(p.member(), p.partition()));
        if (w == null) {
          continue;
        }
        handovers++;
        long first = p.records().get(0).offset();
        Long skipped = GroupHistory.knownBetween(known.get(p.partition()), w.committed(), first);
        if (skipped != null) {
          found.add(
              Anomaly.of(NAME, p.partition())
                  .offsets(List.of(w.committed(), first))
                  .ops(List.of(w.assignedAt(), i), List.of())
                  .detail("member", p.member())
                  .detail("firstSkipped", skipped)
                  .summary(
                      "member "
                          + p.member()
                          + " was given "
                          + p.partition()
                          + " committed at "
                          + w.committed()
                          + " but started reading at "
                          + first));
        }
      }
    }
    return handovers == 0
        ? CheckResult.unknown(NAME, "no member read a partition it was given with a commit")
        : CheckResult.of(NAME, found, handovers + " handovers");
  }
}
