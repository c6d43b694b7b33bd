package dev.spool.chaos.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.nemesis.NemesisFamily;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class CapabilitiesTest {
  private static final String ROOT =
      "Name:\tjava\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\n";
  private static final String USER = "Name:\tjava\nCapEff:\t0000000000000000\n";

  @Test
  void shouldAllowPartitionsForRootWithIproute2() {
    Capabilities c = Capabilities.of(ROOT, true);
    assertTrue(c.canPartition());
    assertTrue(c.availableFamilies().contains(NemesisFamily.PARTITION));
  }

  @Test
  void shouldSayLoudlyWhatIsSkippedWithoutRoot() {
    Capabilities c = Capabilities.of(USER, true);
    assertFalse(c.canPartition());
    assertFalse(c.availableFamilies().contains(NemesisFamily.PARTITION));
    assertTrue(
        c.availableFamilies()
            .containsAll(
                List.of(
                    NemesisFamily.KILL,
                    NemesisFamily.PAUSE,
                    NemesisFamily.DISK,
                    NemesisFamily.PROXY)));
    assertTrue(c.report().startsWith("NETWORK FAULTS UNAVAILABLE"), c.report());
    assertTrue(c.report().contains("CAP_SYS_ADMIN"), c.report());
  }

  @Test
  void shouldRequireTheIpTool() {
    Capabilities c = Capabilities.of(ROOT, false);
    assertEquals(List.of("the 'ip' tool (iproute2) is not installed"), c.problems());
  }

  @Test
  void shouldParseNamesFromIpOutput() {
    assertEquals(
        List.of("spoolc-12-n1", "other"),
        NetNamespaces.namespaceNames("spoolc-12-n1 (id: 3)\nother\n"));
    assertEquals(
        List.of("lo", "spc12v1", "spc12b"),
        NetNamespaces.linkNames(
            "1: lo: <LOOPBACK,UP> mtu 65536\n9: spc12v1@if8: <BROADCAST> mtu 1500\n10: spc12b: <BROADCAST> mtu 1500\n"));
  }
}
