package dev.spool.chaos.checker;

import static dev.spool.chaos.checker.Histories.T0;
import static dev.spool.chaos.checker.Histories.history;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.FaultWindow;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class AvailabilityTest {
  private static final long MS = 1_000_000L;

  @Test
  void shouldChargeTheOutageAroundAFaultToThatFault() {
    // acks complete at 2 ms and 4 ms, then nothing for 3 s, then at 3006 ms.
    Histories h =
        history().sendOk(0, T0, 1, 0).sendOk(0, T0, 2, 1).idleMs(3000).sendOk(0, T0, 3, 2);
    FaultWindow kill = new FaultWindow(7, FaultKind.KILL, List.of("n1"), 100 * MS, 2000 * MS, null);
    Availability.Report r = Availability.compute(h.build(), List.of(kill));

    assertEquals(3, r.acknowledgedWrites());
    assertEquals(4 * MS, r.longestGap().startNs());
    assertEquals(3006 * MS, r.longestGap().endNs());
    Availability.WindowAvailability w = r.faults().get(0);
    assertEquals(7, w.faultId());
    assertEquals(0, w.acknowledgedDuring());
    assertEquals(3002 * MS, w.longestGap().durationNs());
    assertEquals(1006 * MS, w.recoveryNs(), "heal at 2000 ms, next ack at 3006 ms");
  }

  @Test
  void shouldLeaveRecoveryEmptyWhenNothingWasAckedAfterHeal() {
    Histories h = history().sendOk(0, T0, 1, 0).idleMs(50);
    FaultWindow f = new FaultWindow(1, FaultKind.PAUSE, List.of("n2"), 10 * MS, 20 * MS, null);
    assertNull(Availability.compute(h.build(), List.of(f)).faults().get(0).recoveryNs());
  }

  @Test
  void shouldBucketThroughputAndLatencyPerSecond() {
    Histories h =
        history()
            .sendOk(0, T0, 1, 0)
            .sendFail(0, T0, 2)
            .idleMs(1000)
            .sendOk(0, T0, 3, 1)
            .poll(1, T0, 0, 1, 1, 3);
    List<Availability.Bucket> s = Availability.compute(h.build(), List.of()).series();
    assertEquals(2, s.size());
    assertEquals(1, s.get(0).sendOk());
    assertEquals(1, s.get(0).sendFail());
    assertEquals(1.0, s.get(0).latencyP50Ms(), "invoke at 1 ms, ok at 2 ms");
    assertEquals(1, s.get(1).sendOk());
    assertEquals(1, s.get(1).pollOk());
    assertEquals(2, s.get(1).valuesRead());
  }

  @Test
  void shouldTakeNearestRankPercentiles() {
    long[] ns = {1 * MS, 2 * MS, 3 * MS, 4 * MS, 100 * MS};
    assertEquals(3.0, Availability.percentileMs(ns, 0.5));
    assertEquals(100.0, Availability.percentileMs(ns, 0.99));
    assertNull(Availability.percentileMs(new long[0], 0.5));
  }
}
