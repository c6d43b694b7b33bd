package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Which leaders a follower's heartbeat reports unreachable, checked every 250 ms as heartbeats. */
@Tag("unit")
class UnreachableLeadersTest {
  private static final long SILENT_MS = 2_000;

  @Test
  void shouldReportALeaderWhoseFetchesWentUnansweredForTheSilentTime() {
    UnreachableLeaders u = new UnreachableLeaders(SILENT_MS);
    for (long t = 0; t <= 1_000 + SILENT_MS; t += 250) {
      assertEquals(List.of(), u.check(Map.of(2, 1_000L, 3, -1L), t), "at " + t);
    }
    assertEquals(List.of(2), u.check(Map.of(2, 1_000L, 3, -1L), 1_000 + SILENT_MS + 1));
    assertEquals(List.of(2, 4), u.check(Map.of(4, 0L, 2, 1_000L, 3, -1L), 1_000 + SILENT_MS + 2));
    assertEquals(List.of(), u.check(Map.of(2, -1L, 3, -1L), 1_000 + SILENT_MS + 3), "answered");
  }

  @Test
  void shouldCountAgainAfterThisBrokerStoodStill() {
    UnreachableLeaders u = new UnreachableLeaders(SILENT_MS);
    u.check(Map.of(2, 0L), 0);
    u.check(Map.of(2, 0L), 250);
    // paused for 5 s: the leader's answers of that time are still unread in the socket
    assertEquals(List.of(), u.check(Map.of(2, 0L), 5_250));
    for (long t = 5_500; t <= 5_250 + SILENT_MS; t += 250) {
      assertEquals(List.of(), u.check(Map.of(2, 0L), t), "at " + t);
    }
    assertEquals(List.of(2), u.check(Map.of(2, 0L), 5_250 + SILENT_MS + 250));
  }

  /**
   * A link to the leader cut and healed every other second: the fetch caught in a cut is answered
   * after the heal, when TCP retransmits it (here 400 ms later); the wait never reaches the
   * silence.
   */
  @Test
  void shouldNotReportALeaderBehindALinkThatFlapsEverySecond() {
    UnreachableLeaders u = new UnreachableLeaders(SILENT_MS);
    for (long t = 0; t <= 30_000; t += 250) {
      long second = t / 1_000;
      boolean cut = second % 2 == 1;
      boolean retransmitting = !cut && second > 0 && t % 1_000 < 400;
      long waitingSince = cut ? second * 1_000 : retransmitting ? (second - 1) * 1_000 : -1L;
      assertEquals(List.of(), u.check(Map.of(2, waitingSince), t), "at " + t);
    }
  }
}
