package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("unit")
class ReplicationThrottleTest {
  @Test
  void readsPlainBytesAndBinaryUnits() {
    assertEquals(0, ReplicationThrottle.parseBytesPerSec("0"));
    assertEquals(1000, ReplicationThrottle.parseBytesPerSec("1000"));
    assertEquals(1000, ReplicationThrottle.parseBytesPerSec("1000B/s"));
    assertEquals(10 * 1024, ReplicationThrottle.parseBytesPerSec("10KB/s"));
    assertEquals(50L * 1024 * 1024, ReplicationThrottle.parseBytesPerSec("50MB/s"));
    assertEquals(50L * 1024 * 1024, ReplicationThrottle.parseBytesPerSec(" 50 mb/s "));
    assertEquals(2L << 30, ReplicationThrottle.parseBytesPerSec("2GB/s"));
    assertEquals(
        Long.MAX_VALUE, ReplicationThrottle.parseBytesPerSec(String.valueOf(Long.MAX_VALUE)));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "-5",
        "1.5MB/s",
        "50MB",
        "50 MB/sec",
        "50TB/s",
        "MB/s",
        "fast",
        "5e6",
        "99999999999999999999",
        "9223372036854775807KB/s"
      })
  void refusesAnythingElseNamingTheAcceptedForms(String text) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> ReplicationThrottle.parseBytesPerSec(text));
    assertTrue(e.getMessage().startsWith("--throttle"), e.getMessage());
  }

  @Test
  void formatsWithTheLargestUnitThatDividesTheRate() {
    assertEquals("50MB/s", ReplicationThrottle.format(50L * 1024 * 1024));
    assertEquals("1536B/s", ReplicationThrottle.format(1536));
    assertEquals("3KB/s", ReplicationThrottle.format(3072));
    assertEquals("0B/s", ReplicationThrottle.format(0));
    assertEquals("4096GB/s", ReplicationThrottle.format(4096L << 30));
  }
}
