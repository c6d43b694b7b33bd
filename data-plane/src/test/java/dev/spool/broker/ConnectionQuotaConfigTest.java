package dev.spool.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import java.net.InetAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The connection quota keys: {@code max.connections.per.ip.overrides} and the creation rate. */
class ConnectionQuotaConfigTest {

  private static Config parse(String key, String value) {
    return BrokerConfig.parse(Map.of("node.id", "1", key, value));
  }

  @Test
  void shouldResolveOverridesGivenAsAddressesAndNames() throws Exception {
    Config c = parse("max.connections.per.ip.overrides", "127.0.0.5:0, localhost:7,[::1]:3,::2:4");
    Map<InetAddress, Integer> o =
        Broker.perIpOverrides(c.get(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES));
    assertEquals(0, o.get(InetAddress.getByName("127.0.0.5")));
    assertEquals(7, o.get(InetAddress.getByName("127.0.0.1")));
    assertEquals(4, o.get(InetAddress.getByName("::2")));
  }

  @Test
  void shouldRefuseMalformedOverridesNamingTheKeyAndTheEntry() {
    for (String bad : new String[] {"10.0.0.1", "10.0.0.1:", ":5", "10.0.0.1:-1", "h:many"}) {
      ConfigException e =
          assertThrows(ConfigException.class, () -> parse("max.connections.per.ip.overrides", bad));
      assertTrue(
          e.getMessage().contains("max.connections.per.ip.overrides")
              && e.getMessage().contains("host:count"),
          e.getMessage());
    }
  }

  @Test
  void shouldRefuseACreationRateBelowOne() {
    ConfigException e =
        assertThrows(ConfigException.class, () -> parse("max.connection.creation.rate", "0"));
    assertTrue(e.getMessage().contains("max.connection.creation.rate"), e.getMessage());
    assertEquals(
        Integer.MAX_VALUE,
        BrokerConfig.parse(Map.of("node.id", "1")).get(BrokerConfig.MAX_CONNECTION_CREATION_RATE));
  }
}
