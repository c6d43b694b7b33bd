package dev.spool.quorum.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.quorum.controller.BrokerHeartbeatTracker;
import dev.spool.quorum.image.BrokerRegistration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The leadership lease's arithmetic, and that it ends no later than the controller's session. */
@Tag("unit")
class LeadershipLeaseTest {
  private static final long SESSION_MS = 1500;

  @Test
  void shouldRunFromTheSendTimeForTheSessionTimeoutAndEndStrictly() {
    LeadershipLease lease = new LeadershipLease(SESSION_MS);
    assertFalse(lease.isHeld(0), "no lease before the first answer");
    lease.renew(1000, SESSION_MS);
    assertTrue(lease.isHeld(1000));
    assertTrue(lease.isHeld(2499));
    assertFalse(lease.isHeld(2500), "ends at send time + session timeout, not after");
    assertEquals(500, lease.remainingMs(2000));
    assertEquals(0, lease.remainingMs(3000));
  }

  @Test
  void shouldTakeTheShorterOfTheBrokersAndTheControllersTimeout() {
    LeadershipLease lease = new LeadershipLease(SESSION_MS);
    lease.renew(0, 900); // a controller with a shorter session
    assertTrue(lease.isHeld(899));
    assertFalse(lease.isHeld(900));
    LeadershipLease longer = new LeadershipLease(SESSION_MS);
    longer.renew(0, 5000); // a controller with a longer one: the broker's own bound holds
    assertFalse(longer.isHeld(SESSION_MS));
  }

  @Test
  void shouldGrantNothingForAZeroLeaseAndNeverShortenOnALateAnswer() {
    LeadershipLease lease = new LeadershipLease(SESSION_MS);
    lease.renew(100, 0); // a controller that cannot confirm its leadership
    assertFalse(lease.isHeld(100));
    lease.renew(1000, SESSION_MS);
    lease.renew(400, SESSION_MS); // the answer to an older heartbeat arrives late
    assertTrue(lease.isHeld(2000), "the later heartbeat's lease stands");
    lease.renew(1200, 0);
    assertTrue(lease.isHeld(2000), "a non-granting answer does not cut a lease short");
  }

  @Test
  void shouldEndAtOnceWhenRevoked() {
    LeadershipLease lease = new LeadershipLease(SESSION_MS);
    lease.renew(0, SESSION_MS);
    lease.revoke();
    assertFalse(lease.isHeld(1));
    assertEquals(0, lease.remainingMs(1));
    lease.renew(10, SESSION_MS);
    assertTrue(lease.isHeld(11), "a new answer grants a new lease");
  }

  @Test
  void shouldRefuseANonPositiveSessionTimeout() {
    assertThrows(IllegalArgumentException.class, () -> new LeadershipLease(0));
  }

  /**
   * The safety property against the controller's own session tracker, on one monotonic time line:
   * heartbeats sent at random times arrive after random delays (some answered, some lost); at every
   * millisecond where the controller would fence the broker, the broker's lease has ended.
   */
  @Test
  void shouldEndNoLaterThanTheControllerFencesForAnyDelays() {
    Random random = new Random(17);
    BrokerRegistration broker = new BrokerRegistration(1, 5, "x", "h", 9092, "", false, false);
    for (int trial = 0; trial < 200; trial++) {
      LeadershipLease lease = new LeadershipLease(SESSION_MS);
      BrokerHeartbeatTracker tracker = new BrokerHeartbeatTracker(SESSION_MS);
      long now = 0;
      long lastArrival = -1;
      for (int beat = 0; beat < 20; beat++) {
        long sent = now;
        long arrival = sent + random.nextInt(400); // one way, then the controller records it
        boolean answered = random.nextInt(4) != 0; // a lost answer grants nothing
        tracker.heartbeat(1, 5, 10, false, false, List.of(), arrival);
        lastArrival = arrival;
        if (answered) {
          lease.renew(sent, SESSION_MS);
        }
        long next = sent + 250 + random.nextInt(beat % 5 == 4 ? 3000 : 100);
        for (long t = Math.max(arrival, now); t < next; t++) {
          if (tracker.isExpired(broker, t)) {
            assertFalse(
                lease.isHeld(t),
                "trial " + trial + ": fenced at " + t + " (last arrival " + lastArrival + ")");
          }
        }
        now = next;
      }
    }
  }
}
