package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.spool.common.Clock;
import dev.spool.common.SpoolException;
import dev.spool.network.NetworkClient;
import dev.spool.network.NetworkConfig;
import dev.spool.network.Node;
import dev.spool.network.tls.SslConfig;
import dev.spool.network.tls.SslContexts;
import dev.spool.network.tls.SslSettings;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.testing.ClientSecurity;
import dev.spool.testing.RawFrameClient;
import dev.spool.testing.TestCertificates;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import javax.net.ssl.SSLSocketFactory;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A TLS listener refuses what cannot speak TLS to it: a plaintext client, a client without a
 * certificate where one is required, a client that does not trust the broker. Each refusal is a
 * closed connection and one log line; nothing is held afterwards and TLS clients are served.
 */
@Tag("integration")
@Timeout(60)
class TlsListenerTest {
  @TempDir static Path keys;
  private static TestCertificates certs;

  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private BrokerServer server;

  @BeforeAll
  static void makeKeys() throws IOException {
    certs = TestCertificates.create(keys);
  }

  @BeforeEach
  void capture() {
    lines.start();
    logger(BrokerServer.class).addAppender(lines);
    logger(ConnectionHandler.class).addAppender(lines);
  }

  @AfterEach
  void stop() {
    logger(BrokerServer.class).detachAppender(lines);
    logger(ConnectionHandler.class).detachAppender(lines);
    if (server != null) {
      server.close();
    }
  }

  private static Logger logger(Class<?> c) {
    return (Logger) LoggerFactory.getLogger(c);
  }

  private static SslSettings serverSettings(String clientAuth) {
    return new SslSettings(
        certs.nodeKeystore().toString(),
        TestCertificates.PASSWORD,
        "",
        "PKCS12",
        certs.truststore().toString(),
        TestCertificates.PASSWORD,
        "PKCS12",
        SslConfig.DEFAULT_PROTOCOLS,
        "https",
        clientAuth);
  }

  private void start(String clientAuth) {
    server =
        new BrokerServer(
            new BrokerServer.Settings(
                "127.0.0.1", 0, 1, 1 << 20, 16, 64L << 20, 60_000, 5_000, 100, 100, "[test]"),
            BrokerServerTest.answeringApiVersions());
    server.tls(
        BrokerServer.SPOOL_LISTENER, SslContexts.server(serverSettings(clientAuth)), clientAuth);
    server.start();
  }

  private InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", server.boundPort());
  }

  private static SSLSocketFactory tls(Path truststore, boolean certificate) {
    return ClientSecurity.socketFactory(certs.clientConfig(truststore, certificate));
  }

  private void assertServedOverTls(boolean certificate) throws IOException {
    try (RawFrameClient c =
        RawFrameClient.connect(
            address(), Duration.ofSeconds(5), tls(certs.truststore(), certificate))) {
      RawFrameClient.Reply r =
          c.request(ApiKey.API_VERSIONS, ApiVersionsRequest.getDefaultInstance());
      assertTrue(r.body(ApiVersionsResponse.parser()).getApiVersionsCount() > 5);
    }
  }

  /** The lines about refused connections; none from the connection handler's bad-frame path. */
  private List<String> refusals() {
    return lines.list.stream()
        .map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.contains("refused a TLS connection") || m.contains("closing connection"))
        .toList();
  }

  private void awaitNothingHeld() {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.connectionCount() == 0 && server.requestMemoryBytes() == 0);
  }

  @Test
  void shouldCloseAPlaintextClientWithOneLineAndKeepServing() throws Exception {
    start("none");
    try (RawFrameClient plain = RawFrameClient.connect(address(), Duration.ofSeconds(5))) {
      plain.send(
          plain.header(ApiKey.API_VERSIONS), ApiVersionsRequest.getDefaultInstance(), new byte[0]);
      assertTrue(plain.closedByPeer(), "a plaintext request on a TLS listener was not closed");
    }
    awaitNothingHeld();
    Awaitility.await().until(() -> !refusals().isEmpty());
    assertEquals(1, refusals().size(), refusals().toString());
    assertTrue(refusals().get(0).contains("not a TLS record"), refusals().get(0));
    assertServedOverTls(false);
    awaitNothingHeld();
  }

  @Test
  void shouldRefuseAClientWithoutCertificateWhenMutualTlsIsRequired() throws Exception {
    start("required");
    assertThrows(
        IOException.class,
        () -> {
          try (RawFrameClient c =
              RawFrameClient.connect(
                  address(), Duration.ofSeconds(5), tls(certs.truststore(), false))) {
            c.request(ApiKey.API_VERSIONS, ApiVersionsRequest.getDefaultInstance());
          }
        });
    Awaitility.await().until(() -> !refusals().isEmpty());
    assertEquals(1, refusals().size(), refusals().toString());
    String line = refusals().get(0);
    assertTrue(
        line.contains("TLS handshake failed (ssl.client.auth=required)")
            && line.toLowerCase().contains("certificate"),
        line);
    awaitNothingHeld();
    assertServedOverTls(true);
  }

  @Test
  void shouldFailAClientThatDoesNotTrustTheBrokerWithAClearError() throws Exception {
    start("none");
    SslSettings untrusting =
        new SslSettings(
            "",
            "",
            "",
            "PKCS12",
            certs.untrustedTruststore().toString(),
            TestCertificates.PASSWORD,
            "PKCS12",
            SslConfig.DEFAULT_PROTOCOLS,
            "https",
            "none");
    try (NetworkClient client =
        new NetworkClient(
            NetworkConfig.defaults("tls-test", "tls-test-io")
                .withTls(SslContexts.client(untrusting)),
            Clock.SYSTEM)) {
      CompletionException e =
          assertThrows(
              CompletionException.class,
              () ->
                  client
                      .send(
                          new Node(1, "127.0.0.1", server.boundPort()),
                          ApiKey.API_VERSIONS,
                          ApiVersionsRequest.getDefaultInstance(),
                          5_000)
                      .join());
      SpoolException cause = (SpoolException) e.getCause();
      assertTrue(
          cause.getMessage().contains("TLS handshake with")
              && cause.getMessage().contains("ssl.truststore"),
          cause.getMessage());
    }
    awaitNothingHeld();
    assertServedOverTls(false);
  }
}
