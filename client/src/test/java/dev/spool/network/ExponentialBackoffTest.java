package dev.spool.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ExponentialBackoffTest {
  @Test
  void shouldDoubleUpToTheCap() {
    ExponentialBackoff b = new ExponentialBackoff(100, 1000, 0, new Random(1));
    assertEquals(100, b.backoffMs(0));
    assertEquals(200, b.backoffMs(1));
    assertEquals(800, b.backoffMs(3));
    assertEquals(1000, b.backoffMs(4));
    assertEquals(1000, b.backoffMs(1_000));
  }

  @Test
  void shouldSpreadWithinTheJitterAndNeverPassTheCap() {
    ExponentialBackoff b = new ExponentialBackoff(100, 1000, 0.2, new Random(7));
    for (int i = 0; i < 1000; i++) {
      long first = b.backoffMs(0);
      assertTrue(first >= 80 && first <= 120, String.valueOf(first));
      assertTrue(b.backoffMs(10) <= 1000);
    }
  }

  @Test
  void shouldParseBootstrapLists() {
    assertEquals(
        java.util.List.of(new Node(-1, "a", 1), new Node(-2, "::1", 2)),
        Node.parseBootstrap(" a:1 ,[::1]:2,"));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> Node.parseBootstrap("a"));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> Node.parseBootstrap("a:0"));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> Node.parseBootstrap(" , "));
  }
}
