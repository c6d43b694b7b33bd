package dev.spool.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.SecurityConfig;
import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import dev.spool.testing.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad TLS settings fail a node before it starts anything, with the message naming the key: a
 * missing or unreadable keystore, a wrong password, a TLS listener without a keystore, a security
 * protocol Spool does not have. Passwords never reach the config line a node logs.
 */
class TlsStartupConfigTest {
  @TempDir static Path dir;
  private static TestCertificates certs;

  @BeforeAll
  static void makeKeys() throws IOException {
    certs = TestCertificates.create(Files.createDirectories(dir.resolve("keys")));
  }

  private static Map<String, String> node(Map<String, String> overrides) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("node.id", "1");
    p.put("process.roles", "broker");
    p.put("controller.quorum.voters", "2@127.0.0.1:1");
    p.put("data.dir", dir.resolve("data").toString());
    p.put("listener", "127.0.0.1:0");
    p.putAll(certs.nodeConfig("required", "SPOOL"));
    p.putAll(overrides);
    return p;
  }

  private static ConfigException refused(Map<String, String> overrides) {
    return assertThrows(
        ConfigException.class,
        () -> NodeConfig.checkEnvironment(NodeConfig.parse(node(overrides))));
  }

  @Test
  void shouldStartWithGoodKeyMaterialAndNeverLogPasswords() {
    Config config = NodeConfig.parse(node(Map.of()));
    NodeConfig.checkEnvironment(config);
    String line = config.toLogString();
    assertFalse(line.contains(TestCertificates.PASSWORD), line);
    assertTrue(line.contains("ssl.keystore.password=[hidden]"), line);
  }

  @Test
  void shouldAcceptSaslOnTheKafkaListenerWithTlsUnderSaslSsl() {
    Config config =
        NodeConfig.parse(
            node(
                Map.of(
                    "kafka.listener", "0.0.0.0:0",
                    "listener.security.protocol.map", "SPOOL:SSL,KAFKA:SASL_SSL",
                    "sasl.enabled.mechanisms", "SCRAM-SHA-512,PLAIN")));
    NodeConfig.checkEnvironment(config);
    assertTrue(SecurityConfig.isSasl(config, SecurityConfig.KAFKA));
    assertTrue(SecurityConfig.isTls(config, SecurityConfig.KAFKA));
    assertFalse(SecurityConfig.isSasl(config, SecurityConfig.SPOOL));
    // every client of a SASL_SSL listener authenticates over TLS: no exposure warning for it
    assertFalse(
        NodeConfig.exposedListeners(config).stream().anyMatch(l -> l.startsWith("kafka.listener")),
        String.valueOf(NodeConfig.exposedListeners(config)));
    Config plain =
        NodeConfig.parse(
            node(
                Map.of(
                    "kafka.listener", "0.0.0.0:0",
                    "listener.security.protocol.map", "SPOOL:SSL,KAFKA:SASL_PLAINTEXT")));
    assertFalse(SecurityConfig.isTls(plain, SecurityConfig.KAFKA));
    assertTrue(
        NodeConfig.exposedListeners(plain).stream().anyMatch(l -> l.startsWith("kafka.listener")),
        String.valueOf(NodeConfig.exposedListeners(plain)));
  }

  @Test
  void shouldAcceptSaslOnSpoolsListenerAndCheckTheReplicaFetchersLoginAtStart() {
    String jaas =
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\""
            + " password=\"broker-secret\";";
    Config config =
        NodeConfig.parse(
            node(
                Map.of(
                    "listener", "0.0.0.0:0",
                    "listener.security.protocol.map", "SPOOL:SASL_SSL",
                    "sasl.jaas.config", jaas)));
    NodeConfig.checkEnvironment(config);
    assertFalse(config.toLogString().contains("broker-secret"), config.toLogString());
    assertTrue(SecurityConfig.isSasl(config, SecurityConfig.SPOOL));
    assertTrue(SecurityConfig.isTls(config, SecurityConfig.SPOOL));
    assertEquals("SCRAM-SHA-256", SecurityConfig.replicationSasl(config).mechanism());
    assertEquals("broker", SecurityConfig.replicationSasl(config).username());
    assertFalse(
        NodeConfig.exposedListeners(config).stream().anyMatch(l -> l.startsWith("listener=")),
        String.valueOf(NodeConfig.exposedListeners(config)));
    Config plain =
        NodeConfig.parse(
            node(
                Map.of(
                    "listener", "0.0.0.0:0",
                    "listener.security.protocol.map", "SPOOL:SASL_PLAINTEXT",
                    "sasl.jaas.config", jaas)));
    assertTrue(
        NodeConfig.exposedListeners(plain).stream().anyMatch(l -> l.startsWith("listener=")),
        String.valueOf(NodeConfig.exposedListeners(plain)));

    ConfigException missing = refused(Map.of("listener.security.protocol.map", "SPOOL:SASL_SSL"));
    assertEquals("sasl.jaas.config", missing.key(), missing.getMessage());
    ConfigException malformed =
        refused(
            Map.of(
                "listener.security.protocol.map",
                "SPOOL:SASL_SSL",
                "sasl.jaas.config",
                jaas.replace(";", "")));
    assertEquals("sasl.jaas.config", malformed.key(), malformed.getMessage());
    assertFalse(malformed.getMessage().contains("broker-secret"), malformed.getMessage());
    ConfigException notEnabled =
        refused(
            Map.of(
                "listener.security.protocol.map", "SPOOL:SASL_SSL",
                "sasl.jaas.config", jaas,
                "sasl.enabled.mechanisms", "SCRAM-SHA-256",
                "sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512"));
    assertEquals("sasl.mechanism.inter.broker.protocol", notEnabled.key(), notEnabled.getMessage());
  }

  @Test
  void shouldNameTheKeystoreLocationWhenTheFileIsMissingOrNotAKeystore() throws IOException {
    ConfigException missing =
        refused(Map.of("ssl.keystore.location", dir.resolve("nope.p12").toString()));
    assertEquals("ssl.keystore.location", missing.key(), missing.getMessage());
    assertTrue(missing.getMessage().contains("nope.p12"), missing.getMessage());

    Path garbage = Files.writeString(dir.resolve("garbage.p12"), "not a keystore");
    ConfigException unreadable = refused(Map.of("ssl.keystore.location", garbage.toString()));
    assertEquals("ssl.keystore.location", unreadable.key(), unreadable.getMessage());
  }

  @Test
  void shouldNameThePasswordThatIsWrong() {
    ConfigException keystore = refused(Map.of("ssl.keystore.password", "wrong"));
    assertEquals("ssl.keystore.password", keystore.key(), keystore.getMessage());
    ConfigException truststore = refused(Map.of("ssl.truststore.password", "wrong"));
    assertEquals("ssl.truststore.password", truststore.key(), truststore.getMessage());
  }

  @Test
  void shouldRefuseATlsListenerWithoutAKeystoreAndUnknownProtocols() {
    ConfigException noKeystore = refused(Map.of("ssl.keystore.location", ""));
    assertEquals("ssl.keystore.location", noKeystore.key(), noKeystore.getMessage());
    assertTrue(noKeystore.getMessage().contains("must be set"), noKeystore.getMessage());

    ConfigException sasl = refused(Map.of("listener.security.protocol.map", "SPOOL:SASL_GSSAPI"));
    assertEquals("listener.security.protocol.map", sasl.key(), sasl.getMessage());
    assertTrue(sasl.getMessage().contains("SASL_GSSAPI"), sasl.getMessage());
    ConfigException mechanism = refused(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-256,GSSAPI"));
    assertEquals("sasl.enabled.mechanisms", mechanism.key(), mechanism.getMessage());
    assertTrue(mechanism.getMessage().contains("GSSAPI"), mechanism.getMessage());
    assertEquals("sasl.enabled.mechanisms", refused(Map.of("sasl.enabled.mechanisms", "")).key());
    ConfigException tls10 = refused(Map.of("ssl.enabled.protocols", "TLSv9"));
    assertEquals("ssl.enabled.protocols", tls10.key(), tls10.getMessage());
  }

  @Test
  void shouldRefuseAMutualTlsQuorumWithoutItsStoresOrWithSasl() {
    ConfigException noTrust =
        refused(
            Map.of(
                "listener.security.protocol.map", "CONTROLLER:SSL",
                "ssl.truststore.location", ""));
    assertEquals("ssl.truststore.location", noTrust.key(), noTrust.getMessage());
    assertTrue(noTrust.getMessage().contains("CONTROLLER:SSL"), noTrust.getMessage());
    ConfigException noKey =
        refused(
            Map.of(
                "listener.security.protocol.map", "CONTROLLER:SSL",
                "ssl.keystore.location", ""));
    assertEquals("ssl.keystore.location", noKey.key(), noKey.getMessage());
    ConfigException password =
        refused(
            Map.of(
                "listener.security.protocol.map", "CONTROLLER:SSL",
                "ssl.keystore.password", "wrong"));
    assertEquals("ssl.keystore.password", password.key(), password.getMessage());
    ConfigException sasl = refused(Map.of("listener.security.protocol.map", "CONTROLLER:SASL_SSL"));
    assertEquals("listener.security.protocol.map", sasl.key(), sasl.getMessage());
    assertTrue(sasl.getMessage().contains("CONTROLLER"), sasl.getMessage());
  }
}
