package dev.spool.quorum.ratis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.spool.broker.SecurityConfig;
import dev.spool.common.HostPort;
import dev.spool.node.NodeConfig;
import dev.spool.quorum.QuorumAdmin;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumTls;
import dev.spool.testing.TestCertificates;
import dev.spool.testing.inprocess.InProcessCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metadata quorum's key material is reloaded without a restart, as the listeners' is: a
 * single-node cluster with {@code CONTROLLER:SSL} and {@code ssl.reload.interval.ms=100} whose
 * truststore file gains a second CA admits, on new connections, a client whose certificate that CA
 * signed and that it refused before; once its keystore file holds a certificate of that second CA,
 * it presents it to new connections (a client trusting only the second CA gets in, one trusting
 * only the first no longer does).
 */
@Tag("integration")
@Timeout(180)
class QuorumTlsReloadTest {
  private static final String CLUSTER_ID = "quorum-tls-reload-test";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private static TestCertificates certs;
  private static Path liveKeystore;
  private static Path liveTruststore;
  private static Path outsider;
  private static Path rotated;
  private static InProcessCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    certs = TestCertificates.create(Files.createDirectories(dir.resolve("keys")));
    outsider = certs.keystore("outsider", "outsider", false);
    rotated = certs.keystore("rotated", "localhost", false);
    liveKeystore = Files.copy(certs.nodeKeystore(), dir.resolve("live-keystore.p12"));
    liveTruststore = Files.copy(certs.truststore(), dir.resolve("live-truststore.p12"));
    InProcessCluster.Builder b =
        InProcessCluster.builder().nodes(1).clusterId(CLUSTER_ID).dir(dir.resolve("cluster"));
    certs.nodeConfig("none", "CONTROLLER").forEach(b::config);
    b.config("ssl.keystore.location", liveKeystore.toString());
    b.config("ssl.truststore.location", liveTruststore.toString());
    b.config("ssl.reload.interval.ms", "100");
    cluster = b.start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void shouldTakeANewTruststoreAndThenANewCertificateOnNewConnections() throws Exception {
    // the outsider's certificate is signed by the other CA; it trusts the node's (first) CA
    QuorumTls outsiderTrustingTheFirstCa = tls(outsider, certs.truststore());
    QuorumTls outsiderTrustingTheOtherCa = tls(outsider, certs.untrustedTruststore());
    assertFalse(admitted(outsiderTrustingTheFirstCa), "admitted before its CA was trusted");

    replace(liveTruststore, Files.readAllBytes(certs.truststoreOfBothCas()));
    Awaitility.await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> admitted(outsiderTrustingTheFirstCa));
    assertFalse(
        admitted(outsiderTrustingTheOtherCa),
        "the node presented a certificate of the other CA before its keystore changed");

    replace(liveKeystore, Files.readAllBytes(rotated));
    Awaitility.await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> admitted(outsiderTrustingTheOtherCa));
    assertFalse(
        admitted(outsiderTrustingTheFirstCa),
        "the node still presented its old certificate to a new connection");
  }

  /** Whether a client on {@code tls} can describe the quorum (a completed mutual handshake). */
  private static boolean admitted(QuorumTls tls) {
    try (QuorumAdmin admin = QuorumAdmin.connect(voters(), 3_000, tls)) {
      return !admin.describe().voters().isEmpty();
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static QuorumTls tls(Path keystore, Path truststore) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("node.id", "9");
    p.put("process.roles", "broker");
    p.put("controller.quorum.voters", cluster.quorumVoters());
    p.put("data.dir", dir.resolve("unused").toString());
    p.putAll(certs.nodeConfig("none", "CONTROLLER"));
    p.put("ssl.keystore.location", keystore.toString());
    p.put("ssl.truststore.location", truststore.toString());
    QuorumTls tls = SecurityConfig.quorumTls(NodeConfig.parse(p));
    assertNotNull(tls);
    return tls;
  }

  /** Puts {@code content} at {@code live} in one step, as an operator rotating a file should. */
  private static void replace(Path live, byte[] content) throws IOException {
    Path tmp = Files.write(live.resolveSibling(live.getFileName() + ".new"), content);
    Files.move(tmp, live, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static Map<Integer, HostPort> voters() {
    return QuorumConfig.parseVoters(cluster.quorumVoters());
  }
}
