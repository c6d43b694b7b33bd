package dev.spool.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.HostPort;
import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class QuorumConfigTest {
  private static final String VOTERS = "1@host-a:9093,2@host-b:9093,3@[::1]:9095";

  @Test
  void shouldParseVotersAndFillDefaults() {
    Config c = QuorumConfig.parse(Map.of("controller.quorum.voters", VOTERS));
    assertEquals(250, c.get(QuorumConfig.HEARTBEAT_INTERVAL_MS));
    assertEquals(1500, c.get(QuorumConfig.SESSION_TIMEOUT_MS));
    Map<Integer, HostPort> v = QuorumConfig.parseVoters(VOTERS);
    assertEquals(new HostPort("host-b", 9093), v.get(2));
    assertEquals(new HostPort("::1", 9095), v.get(3));
    assertEquals("[::1]:9095", v.get(3).toString());
  }

  @Test
  void shouldRejectMalformedVoters() {
    for (String bad : new String[] {"", "1@h", "x@h:1", "1@h:1,1@h:2", "h:1"}) {
      assertThrows(
          ConfigException.class,
          () -> QuorumConfig.parse(Map.of("controller.quorum.voters", bad)),
          bad);
    }
  }

  @Test
  void shouldRejectASessionTimeoutNotAboveTwoHeartbeats() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                QuorumConfig.parse(
                    Map.of(
                        "controller.quorum.voters",
                        VOTERS,
                        "broker.session.timeout.ms",
                        "500",
                        "broker.heartbeat.interval.ms",
                        "250")));
    assertTrue(e.getMessage().contains("broker.session.timeout.ms"), e.getMessage());
  }

  @Test
  void shouldRejectUnknownKeysAndInvertedElectionTimeouts() {
    assertThrows(
        ConfigException.class,
        () ->
            QuorumConfig.parse(
                Map.of("controller.quorum.voters", VOTERS, "broker.sesion.timeout.ms", "5000")));
    assertThrows(
        ConfigException.class,
        () ->
            QuorumConfig.parse(
                Map.of(
                    "controller.quorum.voters",
                    VOTERS,
                    "controller.quorum.election.timeout.min.ms",
                    "900",
                    "controller.quorum.election.timeout.max.ms",
                    "800")));
  }

  @Test
  void shouldRequireAStorageDirOnAControllerAndItsIdAmongTheVoters() {
    Config c = QuorumConfig.parse(Map.of("controller.quorum.voters", VOTERS));
    assertThrows(ConfigException.class, () -> QuorumSettings.of(1, "c", c));
    Config withDir =
        QuorumConfig.parse(
            Map.of("controller.quorum.voters", VOTERS, "metadata.log.dir", "/tmp/x"));
    assertThrows(ConfigException.class, () -> QuorumSettings.of(7, "c", withDir));
    assertEquals(new HostPort("host-a", 9093), QuorumSettings.of(1, "c", withDir).advertised());
  }
}
