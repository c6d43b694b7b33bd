package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.spool.network.tls.KeyMaterial;
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
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLSocket;
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
 * A TLS listener's certificate is replaced without a restart: once its keystore file holds a new
 * certificate and the key material is reloaded, new connections see the new certificate while a
 * connection made before keeps being served; a broken file is refused with one ERROR and the
 * certificate loaded before stays.
 */
@Tag("integration")
@Timeout(60)
class TlsReloadTest {
  @TempDir static Path keys;
  private static TestCertificates certs;
  private static Path rotated;
  private static Path outsider;

  @TempDir Path dir;
  private Path live;
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private KeyMaterial material;
  private BrokerServer server;

  @BeforeAll
  static void makeKeys() throws IOException {
    certs = TestCertificates.create(keys);
    rotated = certs.keystore("rotated", "rotated.spool.test", true);
    outsider = certs.keystore("outsider", "outsider", false);
  }

  @BeforeEach
  void start() throws IOException {
    lines.start();
    logger().addAppender(lines);
    live = Files.copy(certs.nodeKeystore(), dir.resolve("live.p12"));
    SslSettings s =
        new SslSettings(
            live.toString(),
            TestCertificates.PASSWORD,
            "",
            "PKCS12",
            certs.truststore().toString(),
            TestCertificates.PASSWORD,
            "PKCS12",
            SslConfig.DEFAULT_PROTOCOLS,
            "https",
            "none");
    material = KeyMaterial.load(s);
    server =
        new BrokerServer(
            new BrokerServer.Settings(
                "127.0.0.1", 0, 1, 1 << 20, 16, 64L << 20, 60_000, 5_000, 100, 100, "[test]"),
            BrokerServerTest.answeringApiVersions());
    server.tls(BrokerServer.SPOOL_LISTENER, SslContexts.server(s, material), "none");
    server.start();
  }

  @AfterEach
  void stop() {
    logger().detachAppender(lines);
    server.close();
    material.close();
  }

  private static Logger logger() {
    return (Logger) LoggerFactory.getLogger(KeyMaterial.class);
  }

  @Test
  void shouldPresentTheNewCertificateToNewConnectionsAndServeTheOldOnes() throws Exception {
    try (RawFrameClient old = connect()) {
      assertServed(old);
      assertEquals(certificate(certs.nodeKeystore()), peerCertificate());

      Files.copy(rotated, live, StandardCopyOption.REPLACE_EXISTING);
      assertTrue(material.reloadIfChanged());

      X509Certificate now = peerCertificate();
      assertEquals(certificate(rotated), now);
      assertEquals("CN=rotated.spool.test", now.getSubjectX500Principal().getName());
      assertServed(old); // established before the reload: still served
      assertFalse(material.reloadIfChanged()); // same content: nothing to do
      assertTrue(
          infos().stream().anyMatch(m -> m.contains("CN=rotated.spool.test")),
          String.valueOf(infos()));
    }
  }

  @Test
  void shouldRefuseABrokenFileWithOneErrorAndKeepTheOldCertificate() throws Exception {
    Files.writeString(live, "not a keystore");
    assertFalse(material.reloadIfChanged());
    assertFalse(material.reloadIfChanged()); // the same broken content: no second line
    assertEquals(1, errors().size(), String.valueOf(errors()));
    assertTrue(errors().get(0).contains("ssl.keystore.location"), errors().get(0));
    assertEquals(certificate(certs.nodeKeystore()), peerCertificate());

    Files.delete(live);
    assertFalse(material.reloadIfChanged());
    assertEquals(2, errors().size(), String.valueOf(errors()));
    assertTrue(errors().get(1).contains("cannot be read"), errors().get(1));
    assertEquals(certificate(certs.nodeKeystore()), peerCertificate());

    Files.copy(rotated, live);
    assertTrue(material.reloadIfChanged()); // a good file afterwards is taken
    assertEquals(certificate(rotated), peerCertificate());
  }

  @Test
  void shouldNoticeTheNewFileOnItsOwn() throws IOException {
    material.watch(100, "tls-reload-test");
    Files.copy(rotated, live, StandardCopyOption.REPLACE_EXISTING);
    X509Certificate expected = certificate(rotated);
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> expected.equals(peerCertificate()));
  }

  /**
   * A CA added to the truststore of a listener that requires client certificates admits the clients
   * it signed on new connections, with the listeners' default engine (OpenSSL), which reads a
   * context's CA names once: the listener names none, so the client presents its certificate and
   * the reloaded truststore accepts it.
   */
  @Test
  void shouldAdmitAClientOfANewlyTrustedCaWithoutARestart() throws Exception {
    Path trust = Files.copy(certs.truststore(), dir.resolve("live-trust.p12"));
    SslSettings s =
        new SslSettings(
            certs.nodeKeystore().toString(),
            TestCertificates.PASSWORD,
            "",
            "PKCS12",
            trust.toString(),
            TestCertificates.PASSWORD,
            "PKCS12",
            SslConfig.DEFAULT_PROTOCOLS,
            "https",
            "required");
    try (KeyMaterial m = KeyMaterial.load(s);
        BrokerServer required =
            new BrokerServer(
                new BrokerServer.Settings(
                    "127.0.0.1", 0, 1, 1 << 20, 16, 64L << 20, 60_000, 5_000, 100, 100, "[test]"),
                BrokerServerTest.answeringApiVersions())) {
      required.tls(BrokerServer.SPOOL_LISTENER, SslContexts.server(s, m), "required");
      required.start();
      SSLSocketFactory outsiderSockets =
          ClientSecurity.socketFactory(certs.clientConfig(certs.truststore(), outsider));
      InetSocketAddress at = new InetSocketAddress("127.0.0.1", required.boundPort());
      assertThrows(IOException.class, () -> served(at, outsiderSockets));

      Files.copy(certs.truststoreOfBothCas(), trust, StandardCopyOption.REPLACE_EXISTING);
      assertTrue(m.reloadIfChanged());
      served(at, outsiderSockets);
    }
  }

  private static void served(InetSocketAddress at, SSLSocketFactory sockets) throws IOException {
    try (RawFrameClient c = RawFrameClient.connect(at, Duration.ofSeconds(5), sockets)) {
      assertServed(c);
    }
  }

  private RawFrameClient connect() throws IOException {
    return RawFrameClient.connect(
        new InetSocketAddress("127.0.0.1", server.boundPort()),
        Duration.ofSeconds(5),
        ClientSecurity.socketFactory(certs.clientConfig(certs.truststore(), false)));
  }

  private static void assertServed(RawFrameClient c) throws IOException {
    RawFrameClient.Reply r =
        c.request(ApiKey.API_VERSIONS, ApiVersionsRequest.getDefaultInstance());
    assertTrue(r.body(ApiVersionsResponse.parser()).getApiVersionsCount() > 5);
  }

  /** The certificate a new connection is shown (a new client context: no session to resume). */
  private X509Certificate peerCertificate() throws IOException {
    try (SSLSocket s =
        (SSLSocket)
            ClientSecurity.socketFactory(certs.clientConfig(certs.truststore(), false))
                .createSocket("127.0.0.1", server.boundPort())) {
      s.startHandshake();
      return (X509Certificate) s.getSession().getPeerCertificates()[0];
    }
  }

  private static X509Certificate certificate(Path keystore) throws IOException {
    try (InputStream in = Files.newInputStream(keystore)) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, TestCertificates.PASSWORD.toCharArray());
      return (X509Certificate) ks.getCertificate("node");
    } catch (GeneralSecurityException e) {
      throw new IOException(e);
    }
  }

  private List<String> errors() {
    return lines.list.stream()
        .filter(e -> e.getLevel() == Level.ERROR)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  private List<String> infos() {
    return lines.list.stream()
        .filter(e -> e.getLevel() == Level.INFO)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }
}
