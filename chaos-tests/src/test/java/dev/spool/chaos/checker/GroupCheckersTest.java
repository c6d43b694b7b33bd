package dev.spool.chaos.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.chaos.checker.GroupHistory.Acked;
import dev.spool.chaos.checker.GroupHistory.Assigned;
import dev.spool.chaos.checker.GroupHistory.CommitStarted;
import dev.spool.chaos.checker.GroupHistory.CommitUnknown;
import dev.spool.chaos.checker.GroupHistory.Committed;
import dev.spool.chaos.checker.GroupHistory.Event;
import dev.spool.chaos.checker.GroupHistory.Lost;
import dev.spool.chaos.checker.GroupHistory.Polled;
import dev.spool.chaos.checker.GroupHistory.Reset;
import dev.spool.chaos.checker.GroupHistory.Revoked;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Each group checker on a clean handover history (valid) and on the same history with its one
 * violation (invalid, and only that checker): the checkers can fail, and each fails for its own
 * anomaly.
 */
@Tag("unit")
class GroupCheckersTest {
  private static final TopicPartition P = new TopicPartition("t", 0);

  /** Offsets 0..5 hold values 100..105. */
  private static List<Event> acked() {
    List<Event> out = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      out.add(new Acked(P, i, 100 + i));
    }
    return out;
  }

  private static Polled poll(String member, long... offsets) {
    List<OffsetValue> r = new ArrayList<>();
    for (long o : offsets) {
      r.add(new OffsetValue(o, 100 + o));
    }
    return new Polled(member, P, r);
  }

  /**
   * a reads 0..2, commits 3 and hands the partition over; b starts at the commit and reads to the
   * end; b is then fenced and a gets it back at b's last commit.
   */
  private static List<Event> handover() {
    List<Event> h = acked();
    h.add(new Assigned("a", Set.of(P)));
    h.add(poll("a", 0, 1));
    h.add(poll("a", 2));
    h.add(new Committed("a", P, 3));
    h.add(new Revoked("a", Set.of(P)));
    h.add(new Assigned("b", Set.of(P)));
    h.add(poll("b", 3, 4));
    h.add(new Committed("b", P, 5));
    h.add(new Lost("b", Set.of(P)));
    h.add(new Assigned("a", Set.of(P)));
    h.add(poll("a", 5));
    h.add(new Committed("a", P, 6));
    return h;
  }

  private static Map<String, Validity> verdicts(List<Event> events) {
    Map<String, CheckResult> results =
        GroupChecker.checkAll(GroupChecker.all(), new GroupHistory(events));
    Map<String, Validity> out = new java.util.LinkedHashMap<>();
    results.forEach((k, v) -> out.put(k, v.valid()));
    return out;
  }

  private static Map<String, Validity> onlyInvalid(String name) {
    Map<String, Validity> out = new java.util.LinkedHashMap<>();
    for (GroupChecker c : GroupChecker.all()) {
      out.put(c.name(), c.name().equals(name) ? Validity.FALSE : Validity.TRUE);
    }
    return out;
  }

  @Test
  void aCleanHandoverHistoryIsValidForEveryChecker() {
    assertEquals(onlyInvalid(""), verdicts(handover()));
  }

  @Test
  void unconsumedCatchesAnAcknowledgedValueNoMemberPolled() {
    List<Event> h = handover();
    h.add(new Acked(P, 6, 106));
    CheckResult r = new GroupUnconsumed().check(new GroupHistory(h));
    assertEquals(Validity.FALSE, r.valid());
    assertEquals(List.of(106L), r.anomalies().get(0).values());
    assertEquals(onlyInvalid(GroupUnconsumed.NAME), verdicts(h));
  }

  @Test
  void pollSkipCatchesAMemberJumpingOverARecordItOwns() {
    List<Event> h = handover();
    // b's second poll starts at 5 while the record at 4 exists (another member read it later).
    int i = h.indexOf(poll("b", 3, 4));
    h.set(i, poll("b", 3));
    h.add(i + 1, poll("b", 5));
    h.add(poll("a", 4));
    CheckResult r = new GroupPollSkip().check(new GroupHistory(h));
    assertEquals(Validity.FALSE, r.valid());
    assertEquals(List.of(3L, 4L, 5L), r.anomalies().get(0).offsets());
    assertEquals(onlyInvalid(GroupPollSkip.NAME), verdicts(h));
  }

  @Test
  void pollSkipForgetsThePositionWhenTheOwnershipEnds() {
    // a reads 0, loses the partition, gets it back and starts at 2: a new ownership, no skip.
    List<Event> h = acked();
    h.add(new Assigned("a", Set.of(P)));
    h.add(poll("a", 0));
    h.add(new Lost("a", Set.of(P)));
    h.add(new Assigned("a", Set.of(P)));
    h.add(poll("a", 2, 3));
    assertEquals(Validity.TRUE, new GroupPollSkip().check(new GroupHistory(h)).valid());
  }

  @Test
  void commitRegressionCatchesAnOlderCommitAcknowledgedLaterButNotAReset() {
    List<Event> h = handover();
    h.add(new Committed("b", P, 4));
    CheckResult r = new CommitRegression().check(new GroupHistory(h));
    assertEquals(Validity.FALSE, r.valid());
    assertEquals(List.of(6L, 4L), r.anomalies().get(0).offsets());
    assertEquals(onlyInvalid(CommitRegression.NAME), verdicts(h));

    List<Event> reset = handover();
    reset.add(new Reset(P, 0));
    reset.add(new Committed("a", P, 2));
    assertEquals(Validity.TRUE, new CommitRegression().check(new GroupHistory(reset)).valid());
  }

  @Test
  void handoverStartCatchesANewOwnerStartingPastTheCommit() {
    List<Event> h = handover();
    // a read 3 too but committed only up to 3; b then starts at 4, past the commit.
    h.set(h.indexOf(poll("a", 2)), poll("a", 2, 3));
    h.set(h.indexOf(poll("b", 3, 4)), poll("b", 4));
    CheckResult r = new HandoverStart().check(new GroupHistory(h));
    assertEquals(Validity.FALSE, r.valid());
    assertEquals(List.of(3L, 4L), r.anomalies().get(0).offsets());
    assertEquals(onlyInvalid(HandoverStart.NAME), verdicts(h));
  }

  @Test
  void handoverStartAllowsStartingBeforeTheCommit() {
    List<Event> h = handover();
    int i = h.indexOf(poll("b", 3, 4));
    h.set(i, poll("b", 1, 2, 3, 4));
    assertEquals(Validity.TRUE, new HandoverStart().check(new GroupHistory(h)).valid());
  }

  @Test
  void handoverStartAcceptsAStartAtACommitWhoseOutcomeWasUnknown() {
    // a read 3 and committed 4, but the commit timed out (it was applied after all); b starts at 4.
    List<Event> h = handover();
    int i = h.indexOf(poll("a", 2));
    h.set(i, poll("a", 2, 3));
    h.add(i + 2, new CommitUnknown("a", P, 4));
    h.set(h.indexOf(poll("b", 3, 4)), poll("b", 4));
    assertEquals(Validity.TRUE, new HandoverStart().check(new GroupHistory(h)).valid());

    // An unknown commit from before the last acknowledged one does not move the bound.
    List<Event> old = handover();
    old.set(old.indexOf(poll("a", 2)), poll("a", 2, 3));
    old.add(old.indexOf(new Committed("a", P, 3)), new CommitUnknown("a", P, 4));
    old.set(old.indexOf(poll("b", 3, 4)), poll("b", 4));
    assertEquals(Validity.FALSE, new HandoverStart().check(new GroupHistory(old)).valid());
  }

  @Test
  void handoverStartAcceptsAStartAtACommitStillInFlightButNotPastIt() {
    // a read 3 and started committing 4 against a frozen coordinator; the next coordinator applied
    // it and b started at 4 before a's commit came back (as unknown, after a refused retry).
    List<Event> h = handover();
    int i = h.indexOf(new Committed("a", P, 3));
    h.add(i + 1, poll("a", 3));
    h.add(i + 2, new CommitStarted("a", P, 4));
    int first = h.indexOf(poll("b", 3, 4));
    h.set(first, poll("b", 4));
    h.add(first + 1, new CommitUnknown("a", P, 4));
    assertEquals(Validity.TRUE, new HandoverStart().check(new GroupHistory(h)).valid());

    // Starting past the in-flight commit still skips a record that exists.
    h.set(first, poll("b", 5));
    CheckResult r = new HandoverStart().check(new GroupHistory(h));
    assertEquals(Validity.FALSE, r.valid());
    assertEquals(List.of(4L, 5L), r.anomalies().get(0).offsets());
  }
}
