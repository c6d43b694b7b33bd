package dev.spool.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The one host:port parser, as bootstrap lists, listeners and voters use it. */
@Tag("unit")
class HostPortTest {
  @Test
  void shouldParseNamesIpv4AndBracketedIpv6() {
    assertEquals(new HostPort("broker-1", 9092), HostPort.parse("broker-1:9092"));
    assertEquals(new HostPort("127.0.0.1", 0), HostPort.parse("127.0.0.1:0"));
    assertEquals(new HostPort("::1", 9093), HostPort.parse("[::1]:9093"));
  }

  @Test
  void shouldPrintWhatItParses() {
    for (String s : new String[] {"broker-1:9092", "[fe80::1]:65535", "0.0.0.0:0"}) {
      assertEquals(s, HostPort.parse(s).toString());
    }
  }

  @Test
  void shouldSayWhatIsWrongWithABadAddress() {
    assertEquals("is not host:port", HostPort.problem("broker-1"));
    assertEquals("is not host:port", HostPort.problem(":9092"));
    assertEquals("is not host:port", HostPort.problem("broker-1:"));
    assertEquals("has a port that is not a number", HostPort.problem("broker-1:http"));
    assertEquals("has a port outside 0..65535", HostPort.problem("broker-1:65536"));
    assertEquals("has an empty host", HostPort.problem("[]:9092"));
    assertEquals(
        "is an IPv6 address without brackets ([addr]:port)", HostPort.problem("fe80::1:9092"));
    assertNull(HostPort.problem("[fe80::1]:9092"));
  }

  @Test
  void shouldRefuseABadAddressQuotingIt() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse("::1:9092"));
    assertTrue(e.getMessage().startsWith("'::1:9092' is an IPv6 address"), e.getMessage());
  }
}
