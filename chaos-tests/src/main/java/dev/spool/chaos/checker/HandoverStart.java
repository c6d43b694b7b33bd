package dev.spool.chaos.checker;

import dev.spool.chaos.checker.GroupHistory.Assigned;
import dev.spool.chaos.checker.GroupHistory.CommitStarted;
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
 *
 * <p>The new owner reads the committed offset somewhere between its assignment and its first
 * record, and a commit takes effect somewhere between its start and its outcome. So any commit
 * acknowledged, of unknown outcome, or started and still without an outcome by that first record
 * may be the one it saw: the bound is the furthest of them (for example, the previous owner's last
 * commit timed out against a frozen coordinator, was applied by the next one, and its outcome was
 * recorded only after the new owner had started there).
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
    // Commits started and without an outcome yet, per member and partition.
    Map<GroupHistory.Ownership, Long> inFlight = new HashMap<>();
    Map<GroupHistory.Ownership, Pending> pending = new HashMap<>();
    List<Anomaly> found = new ArrayList<>();
    int handovers = 0;
    List<Event> events = h.events();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      if (e instanceof CommitStarted s) {
        inFlight.put(new GroupHistory.Ownership(s.member(), s.partition()), s.offset());
      } else if (e instanceof Committed c) {
        inFlight.remove(new GroupHistory.Ownership(c.member(), c.partition()));
        committed.put(c.partition(), c.offset());
        maybeCommitted.put(c.partition(), c.offset());
      } else if (e instanceof CommitUnknown u) {
        inFlight.remove(new GroupHistory.Ownership(u.member(), u.partition()));
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
        long bound = furthest(w.committed(), p.partition(), committed, maybeCommitted, inFlight);
        Long skipped = GroupHistory.knownBetween(known.get(p.partition()), bound, first);
        if (skipped != null) {
          found.add(
              Anomaly.of(NAME, p.partition())
                  .offsets(List.of(bound, first))
                  .ops(List.of(w.assignedAt(), i), List.of())
                  .detail("member", p.member())
                  .detail("firstSkipped", skipped)
                  .summary(
                      "member "
                          + p.member()
                          + " was given "
                          + p.partition()
                          + " committed at "
                          + bound
                          + " but started reading at "
                          + first));
        }
      }
    }
    return handovers == 0
        ? CheckResult.unknown(NAME, "no member read a partition it was given with a commit")
        : CheckResult.of(NAME, found, handovers + " handovers");
  }

  /**
   * The furthest commit the new owner may have read at its first record: the one bound at its
   * assignment, or any acknowledged, unknown or in-flight commit of the partition since.
   */
  private static long furthest(
      long atAssignment,
      TopicPartition tp,
      Map<TopicPartition, Long> committed,
      Map<TopicPartition, Long> maybeCommitted,
      Map<GroupHistory.Ownership, Long> inFlight) {
    long bound = Math.max(atAssignment, committed.getOrDefault(tp, atAssignment));
    bound = Math.max(bound, maybeCommitted.getOrDefault(tp, bound));
    for (Map.Entry<GroupHistory.Ownership, Long> f : inFlight.entrySet()) {
      if (f.getKey().partition().equals(tp)) {
        bound = Math.max(bound, f.getValue());
      }
    }
    return bound;
  }
}
