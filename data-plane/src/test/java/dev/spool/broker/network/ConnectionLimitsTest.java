package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConnectionLimitsTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private static InetAddress ip(String a) throws Exception {
    return InetAddress.getByName(a);
  }

  @Test
  void shouldUseAnAddressOverrideInsteadOfThePerIpLimit() throws Exception {
    ConnectionLimits l =
        new ConnectionLimits(
            100, 3, Map.of(ip("127.0.0.2"), 1, ip("127.0.0.3"), 0), Integer.MAX_VALUE, now::get);
    assertNull(l.admit(ip("127.0.0.2")));
    String refusal = l.admit(ip("127.0.0.2"));
    assertEquals("max.connections.per.ip.overrides (1) reached for 127.0.0.2", refusal);
    assertEquals(
        "max.connections.per.ip.overrides (0) reached for 127.0.0.3", l.admit(ip("127.0.0.3")));
    for (int i = 0; i < 3; i++) {
      assertNull(l.admit(ip("127.0.0.1")));
    }
    assertEquals("max.connections.per.ip (3) reached for 127.0.0.1", l.admit(ip("127.0.0.1")));
    assertEquals(4, l.connections()); // refusals count nothing
    l.release(ip("127.0.0.2"));
    assertNull(l.admit(ip("127.0.0.2")));
  }

  @Test
  void shouldLetABurstOfTheRateThroughThenAskForOneIntervalPerConnection() {
    ConnectionLimits l = new ConnectionLimits(100, 100, Map.of(), 10, now::get);
    assertTrue(l.limitsCreationRate());
    for (int i = 0; i < 10; i++) {
      assertEquals(0, l.recordCreation(), "connection " + i + " of the burst");
    }
    assertEquals(TimeUnit.MILLISECONDS.toNanos(100), l.recordCreation());
    assertEquals(TimeUnit.MILLISECONDS.toNanos(200), l.recordCreation());
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(150));
    assertEquals(TimeUnit.MILLISECONDS.toNanos(50), l.creationDelayNanos());
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(50));
    assertEquals(0, l.creationDelayNanos());
    // A long quiet spell refills the bucket to one second's worth, not more.
    now.addAndGet(TimeUnit.HOURS.toNanos(5));
    for (int i = 0; i < 10; i++) {
      assertEquals(0, l.recordCreation());
    }
    assertEquals(TimeUnit.MILLISECONDS.toNanos(100), l.recordCreation());
  }

  @Test
  void shouldNeverDelayWithoutACreationRate() {
    ConnectionLimits l = new ConnectionLimits(100, 100, Map.of(), Integer.MAX_VALUE, now::get);
    for (int i = 0; i < 1_000; i++) {
      assertEquals(0, l.recordCreation());
    }
    assertEquals(0, l.creationDelayNanos());
  }
}
