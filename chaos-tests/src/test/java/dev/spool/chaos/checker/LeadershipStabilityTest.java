package dev.spool.chaos.checker;

import static dev.spool.chaos.checker.Histories.T0;
import static dev.spool.chaos.checker.Histories.T1;
import static dev.spool.chaos.checker.Histories.history;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.FaultWindow;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** leadership-ping-pong: at most one leader change per partition while a judged fault lasts. */
@Tag("unit")
class LeadershipStabilityTest {
  private static final long MS = 1_000_000L;

  private static FaultWindow window(int id, FaultKind kind, long startMs, long endMs) {
    return new FaultWindow(id, kind, List.of("n1"), startMs * MS, endMs * MS, null);
  }

  /** Leader 1 until 10 ms, then leader 2 (epoch 2) at 11 ms and leader 1 again (epoch 4) at 13. */
  private static Histories pingPong() {
    return history()
        .epoch(1, T0, 1, 1) // 1 ms
        .idleMs(9)
        .epoch(2, T0, 2, 2) // 11 ms
        .epoch(3, T0, -1, 3) // 12 ms: no leader, not a change
        .epoch(3, T0, 1, 4) // 13 ms
        .epoch(1, T1, 3, 1); // 14 ms: the other partition never moves
  }

  @Test
  void shouldReportALeaderMovedAwayAndBackDuringAFlappingLink() {
    CheckResult r =
        new LeadershipStability()
            .check(pingPong().analysis(List.of(window(0, FaultKind.FLAPPING_LINK, 5, 20))));
    assertEquals(Validity.FALSE, r.valid());
    assertEquals(1, r.anomalyCount());
    Anomaly a = r.anomalies().get(0);
    assertEquals(T0, a.partition());
    assertEquals(List.of(1, 2, 1), a.details().get("leaders"));
    assertEquals(List.of(2, 4), a.details().get("epochs"));
  }

  @Test
  void shouldAcceptOneMoveDuringTheFaultAndAMoveBackAfterItsHeal() {
    CheckResult r =
        new LeadershipStability()
            .check(pingPong().analysis(List.of(window(0, FaultKind.INTERMITTENT_PAUSE, 5, 12))));
    assertEquals(Validity.TRUE, r.valid(), () -> r.anomalies().toString());
    assertTrue(r.note().startsWith("1 faults judged, 1 leader changes"), r.note());
  }

  @Test
  void shouldNotJudgeAFaultOverlappingAnotherOrOfAnotherKind() {
    List<FaultWindow> faults =
        List.of(
            window(0, FaultKind.ONE_WAY_LOSS, 5, 20),
            window(1, FaultKind.KILL, 12, 30),
            window(2, FaultKind.ISOLATE_NODE, 40, 50));
    assertEquals(List.of(), LeadershipStability.judged(faults));
    CheckResult r = new LeadershipStability().check(pingPong().analysis(faults));
    assertEquals(Validity.TRUE, r.valid());
  }
}
