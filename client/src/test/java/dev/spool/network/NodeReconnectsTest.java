package dev.spool.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** When the client may connect to a node again, with a 100 ms first backoff and a 1 s cap. */
@Tag("unit")
class NodeReconnectsTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final NodeReconnects reconnects =
      new NodeReconnects(
          new NetworkConfig("t", "t-io", 5, 100, 1000, 100, 1000, 1 << 20, 10), new Random(7));

  /** The wait after a close at time 0, in ms (the jitter is ±20 %). */
  private long waitAfterClose(boolean wasReady) {
    reconnects.closed(1, wasReady, 0);
    return reconnects.delayMs(1, 0);
  }

  @Test
  void shouldDoubleTheWaitWhileConnectionsNeverBecomeReady() {
    long first = waitAfterClose(false);
    long second = waitAfterClose(false);
    long third = waitAfterClose(false);
    assertTrue(first >= 80 && first <= 120, "first " + first);
    assertTrue(second >= 160 && second <= 240, "second " + second);
    assertTrue(third >= 320 && third <= 480, "third " + third);
  }

  @Test
  void shouldStartOverOnceAConnectionBecameReady() {
    waitAfterClose(false);
    waitAfterClose(false);
    reconnects.ready(1);
    assertEquals(0, reconnects.delayMs(1, 0));
    long again = waitAfterClose(false);
    assertTrue(again >= 80 && again <= 120, "again " + again);
  }

  @Test
  void shouldWaitOnlyTheFirstBackoffAfterAReadyConnectionCloses() {
    waitAfterClose(false);
    waitAfterClose(false);
    long afterReady = waitAfterClose(true);
    assertTrue(afterReady >= 80 && afterReady <= 120, "after ready " + afterReady);
  }

  @Test
  void shouldSayWhenTheWaitEnds() {
    assertNull(reconnects.waitingUntilNs(1, 0), "never failed: no wait");
    reconnects.closed(1, false, 0);
    Long until = reconnects.waitingUntilNs(1, 0);
    assertEquals(until, reconnects.waitingUntilNs(1, until - 1));
    assertNull(reconnects.waitingUntilNs(1, until), "the wait is over at its end");
    assertEquals(0, reconnects.delayMs(1, until + 5 * MS));
  }

  @Test
  void shouldRememberWhenEachNodeWasLastTried() {
    assertEquals(Long.MIN_VALUE, reconnects.lastAttemptNs(2));
    reconnects.attempting(2, 42);
    assertEquals(42, reconnects.lastAttemptNs(2));
  }
}
