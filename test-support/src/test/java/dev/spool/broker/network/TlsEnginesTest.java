package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.spool.common.Clock;
import dev.spool.common.SpoolException;
import dev.spool.config.ConfigException;
import dev.spool.network.ClientResponse;
import dev.spool.network.NetworkClient;
import dev.spool.network.NetworkConfig;
import dev.spool.network.Node;
import dev.spool.network.tls.SslConfig;
import dev.spool.network.tls.SslContexts;
import dev.spool.network.tls.SslSettings;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.testing.TestCertificates;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * Both TLS engines ({@code ssl.engine}: Netty's OpenSSL, the default, and the JDK's), each against
 * the other, in every role: a trusted peer is served; a server certificate that has expired or does
 * not name the host connected to is refused by the client (and the host check is what refuses the
 * second: without it the same certificate is served); a client certificate that has expired is
 * refused by a server that requires one, with one line.
 */
@Tag("integration")
@Timeout(120)
class TlsEnginesTest {
  @TempDir static Path keys;
  private static TestCertificates certs;
  private static Path expired;
  private static Path elsewhere;

  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private BrokerServer server;

  @BeforeAll
  static void makeKeys() throws IOException {
    certs = TestCertificates.create(keys);
    expired = certs.keystore("expired", "localhost", true, "IP:127.0.0.1,DNS:localhost", "-30d");
    elsewhere = certs.keystore("elsewhere", "elsewhere", true, "DNS:elsewhere.example", null);
  }

  @BeforeEach
  void capture() {
    lines.start();
    ((Logger) LoggerFactory.getLogger(BrokerServer.class)).addAppender(lines);
  }

  @AfterEach
  void stop() {
    ((Logger) LoggerFactory.getLogger(BrokerServer.class)).detachAppender(lines);
    if (server != null) {
      server.close();
    }
  }

  private static SslSettings settings(
      String engine, Path keystore, String clientAuth, String endpointIdentification) {
    return new SslSettings(
        keystore == null ? "" : keystore.toString(),
        keystore == null ? "" : TestCertificates.PASSWORD,
        "",
        "PKCS12",
        certs.truststore().toString(),
        TestCertificates.PASSWORD,
        "PKCS12",
        SslConfig.DEFAULT_PROTOCOLS,
        endpointIdentification,
        clientAuth,
        "",
        "",
        "",
        List.of(),
        engine);
  }

  private void start(String engine, Path keystore, String clientAuth) {
    server =
        new BrokerServer(
            new BrokerServer.Settings(
                "127.0.0.1", 0, 1, 1 << 20, 16, 64L << 20, 60_000, 5_000, 100, 100, "[test]"),
            BrokerServerTest.answeringApiVersions());
    server.tls(
        BrokerServer.SPOOL_LISTENER,
        SslContexts.server(settings(engine, keystore, clientAuth, "https")),
        clientAuth);
    server.start();
  }

  /** An ApiVersions call over TLS with {@code client}; its answer, or the failure's cause. */
  private Object call(SslContext client) {
    try (NetworkClient c =
        new NetworkClient(
            NetworkConfig.defaults("tls-engines", "tls-engines-io").withTls(client),
            Clock.SYSTEM)) {
      return c.send(
              new Node(1, "127.0.0.1", server.boundPort()),
              ApiKey.API_VERSIONS,
              ApiVersionsRequest.getDefaultInstance(),
              5_000)
          .thenApply(r -> (Object) r)
          .exceptionally(e -> e instanceof CompletionException ? e.getCause() : e)
          .join();
    }
  }

  private void assertServed(SslContext client) {
    Object answer = call(client);
    assertInstanceOf(ClientResponse.class, answer, String.valueOf(answer));
  }

  /** The client refuses the server, with a message that says why (as the trust manager put it). */
  private void assertRefusedByTheClient(SslContext client, String why) {
    Object answer = call(client);
    SpoolException e = assertInstanceOf(SpoolException.class, answer, String.valueOf(answer));
    assertTrue(
        e.getMessage().contains("TLS handshake with") && e.getMessage().contains(why),
        e.getMessage());
  }

  @Test
  void openSslLoadsHereAndIsTheDefaultEngine() {
    assertTrue(OpenSsl.isAvailable(), "OpenSSL does not load: " + OpenSsl.unavailabilityCause());
    SslSettings defaults = settings(SslSettings.OPENSSL, certs.nodeKeystore(), "none", "https");
    assertInstanceOf(ReferenceCountedOpenSslContext.class, SslContexts.server(defaults));
    assertInstanceOf(ReferenceCountedOpenSslContext.class, SslContexts.client(defaults));
    SslSettings jdk = settings(SslSettings.JDK, certs.nodeKeystore(), "none", "https");
    assertInstanceOf(JdkSslContext.class, SslContexts.server(jdk));
    assertTrue(SslContexts.engineName("openssl").startsWith("OpenSSL ("));
  }

  @Test
  void aCipherSuiteTheEngineLacksIsRefusedNamingTheKey() {
    SslSettings s = settings(SslSettings.OPENSSL, certs.nodeKeystore(), "none", "https");
    SslSettings bogus =
        new SslSettings(
            s.keystoreLocation(),
            s.keystorePassword(),
            "",
            "PKCS12",
            s.truststoreLocation(),
            s.truststorePassword(),
            "PKCS12",
            s.enabledProtocols(),
            "https",
            "none",
            "",
            "",
            "",
            List.of("TLS_NOT_A_SUITE"),
            SslSettings.OPENSSL);
    ConfigException e = assertThrows(ConfigException.class, () -> SslContexts.server(bogus));
    assertTrue(e.getMessage().contains("ssl.cipher.suites"), e.getMessage());
  }

  @ParameterizedTest(name = "server {0}, client {1}")
  @CsvSource({"openssl,openssl", "openssl,jdk", "jdk,openssl", "jdk,jdk"})
  void mutualTlsIsServedAcrossEngines(String serverEngine, String clientEngine) {
    start(serverEngine, certs.nodeKeystore(), "required");
    assertServed(SslContexts.client(settings(clientEngine, certs.nodeKeystore(), "none", "https")));
  }

  @ParameterizedTest(name = "server {0}, client {1}")
  @CsvSource({"openssl,openssl", "openssl,jdk", "jdk,openssl", "jdk,jdk"})
  void theClientRefusesAnExpiredServerCertificate(String serverEngine, String clientEngine) {
    start(serverEngine, expired, "none");
    assertRefusedByTheClient(
        SslContexts.client(settings(clientEngine, null, "none", "https")),
        "CertificateExpiredException");
  }

  @ParameterizedTest(name = "server {0}, client {1}")
  @CsvSource({"openssl,openssl", "openssl,jdk", "jdk,openssl", "jdk,jdk"})
  void theClientRefusesACertificateForAnotherHost(String serverEngine, String clientEngine) {
    start(serverEngine, elsewhere, "none");
    assertRefusedByTheClient(
        SslContexts.client(settings(clientEngine, null, "none", "https")),
        "No subject alternative names matching IP address 127.0.0.1");
    // The same certificate without the host check: it was the host name that was refused.
    assertServed(SslContexts.client(settings(clientEngine, null, "none", "")));
  }

  @ParameterizedTest(name = "server {0}, client {1}")
  @CsvSource({"openssl,openssl", "openssl,jdk", "jdk,openssl", "jdk,jdk"})
  void aServerRequiringCertificatesRefusesAnExpiredOne(String serverEngine, String clientEngine) {
    start(serverEngine, certs.nodeKeystore(), "required");
    Object answer = call(SslContexts.client(settings(clientEngine, expired, "none", "https")));
    assertInstanceOf(Exception.class, answer, String.valueOf(answer));
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> refusals().size() == 1 && server.connectionCount() == 0);
    assertTrue(refusals().get(0).contains("ssl.client.auth=required"), refusals().toString());
    assertServed(SslContexts.client(settings(clientEngine, certs.nodeKeystore(), "none", "https")));
    assertEquals(1, refusals().size(), refusals().toString());
  }

  private List<String> refusals() {
    return lines.list.stream()
        .map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.contains("TLS handshake failed"))
        .toList();
  }
}
