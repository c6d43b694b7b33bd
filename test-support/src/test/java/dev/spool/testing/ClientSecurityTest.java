package dev.spool.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The harness's own clients speak TLS exactly when the nodes' Spool listener does. */
@Tag("unit")
class ClientSecurityTest {
  @Test
  void shouldReadWhetherTheSpoolListenerSpeaksTlsFromTheProtocolMap() {
    assertTrue(ClientSecurity.spoolListenerIsTls("SPOOL:SSL,CONTROLLER:SSL"));
    assertTrue(ClientSecurity.spoolListenerIsTls(" kafka:PLAINTEXT , spool:ssl "));
    assertTrue(ClientSecurity.spoolListenerIsTls("SPOOL:SASL_SSL"));
    assertFalse(ClientSecurity.spoolListenerIsTls("SPOOL:PLAINTEXT,KAFKA:SSL"));
    assertFalse(ClientSecurity.spoolListenerIsTls("CONTROLLER:SSL"));
    assertFalse(ClientSecurity.spoolListenerIsTls(""));
  }

  @Test
  void shouldGiveTheNodesTlsKeysButNotTheirClientAuthToTheHarness() {
    Map<String, String> client =
        ClientSecurity.forNodes(
            Map.of(
                "listener.security.protocol.map", "SPOOL:SSL",
                "ssl.keystore.location", "/k.p12",
                "ssl.client.auth", "required",
                "authorizer.class.name", "x"));
    assertEquals(Map.of("security.protocol", "SSL", "ssl.keystore.location", "/k.p12"), client);
    assertEquals(Map.of(), ClientSecurity.forNodes(Map.of("ssl.keystore.location", "/k.p12")));
  }
}
