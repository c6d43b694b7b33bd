package dev.spool.testing;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Key material for TLS tests, made at test time with the JDK's {@code keytool} in a directory the
 * test owns (nothing is committed): a test CA, a node keystore signed by it (EC P-256, valid for
 * 127.0.0.1 and localhost, usable as server and as client certificate), a truststore holding the
 * CA, and a second CA's truststore that trusts none of it. Every store is PKCS12 with one password.
 *
 * <p>Not thread-safe: {@link #create} runs keytool eleven times, in one JVM ({@link KeytoolBatch},
 * a second or two); share one per test class.
 */
public final class TestCertificates {
  /** The password of every store. */
  public static final String PASSWORD = "spool-test-pass";

  /** Eleven keytool commands, a few seconds of CPU between them; far less than a JVM each. */
  private static final Duration KEYTOOL_TIMEOUT = Duration.ofSeconds(60);

  /** The subject alternative names of every certificate made here: loopback. */
  private static final String SAN = "IP:127.0.0.1,DNS:localhost";

  private final Path dir;
  private final List<String> pending = new ArrayList<>();

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  /**
   * The stores {@link #create} makes in {@code dir}, before it has made them: their paths and the
   * configs naming them, for configs written before the certificates exist.
   */
  public static TestCertificates in(Path dir) {
    return new TestCertificates(dir);
  }

  /** Creates the CA, the node keystore and both truststores under {@code dir}. */
  public static TestCertificates create(Path dir) throws IOException {
    return create(dir, List.of());
  }

  /**
   * As {@link #create(Path)}, the node certificate also naming {@code ipAddresses} (nodes that
   * listen elsewhere than on loopback, e.g. in network namespaces: the quorum always checks that a
   * peer's certificate names the host it dialled).
   */
  public static TestCertificates create(Path dir, Collection<String> ipAddresses)
      throws IOException {
    StringBuilder san = new StringBuilder("SAN=" + SAN);
    ipAddresses.forEach(ip -> san.append(",IP:").append(ip));
    TestCertificates c = new TestCertificates(dir);
    c.makeCa("ca", "spool-test-ca");
    c.makeCa("other-ca", "some-other-ca");
    c.trust("ca.pem", "truststore.p12");
    c.trust("other-ca.pem", "other-truststore.p12");
    c.keytool(
        "-genkeypair",
        "-alias",
        "node",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=localhost",
        "-validity",
        "2",
        "-keystore",
        "node.p12");
    c.keytool("-certreq", "-alias", "node", "-keystore", "node.p12", "-file", "node.csr");
    c.keytool(
        "-gencert",
        "-alias",
        "ca",
        "-keystore",
        "ca.p12",
        "-infile",
        "node.csr",
        "-outfile",
        "node.pem",
        "-rfc",
        "-validity",
        "2",
        "-ext",
        san.toString(),
        "-ext",
        "EKU=serverAuth,clientAuth");
    c.trust("ca.pem", "node.p12");
    c.keytool("-importcert", "-alias", "node", "-file", "node.pem", "-keystore", "node.p12");
    c.runKeytool();
    return c;
  }

  /**
   * Makes one more keystore, {@code name}.p12, holding a key pair with subject {@code CN=cn} (valid
   * for 127.0.0.1 and localhost, server and client use, as the node keystore) signed by the test CA
   * when {@code trustedCa}, else by the other CA (which no truststore of this set trusts). Runs
   * keytool once more (a second or so).
   *
   * @return the keystore's path
   */
  public Path keystore(String name, String cn, boolean trustedCa) throws IOException {
    return keystore(name, cn, trustedCa, SAN, null);
  }

  /**
   * As {@link #keystore(String, String, boolean)}, with the certificate's subject alternative names
   * {@code san} (keytool's form, e.g. {@code DNS:elsewhere.example}) and, unless {@code startDate}
   * is null, a validity starting then (keytool's form, e.g. {@code -30d}: a certificate that began
   * 30 days ago and, valid for 2 days, has expired).
   */
  public Path keystore(String name, String cn, boolean trustedCa, String san, String startDate)
      throws IOException {
    String ca = trustedCa ? "ca" : "other-ca";
    String store = keystorePath(name).getFileName().toString();
    keytool(
        "-genkeypair",
        "-alias",
        "node",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=" + cn,
        "-validity",
        "2",
        "-keystore",
        store);
    keytool("-certreq", "-alias", "node", "-keystore", store, "-file", name + ".csr");
    List<String> sign =
        new ArrayList<>(
            List.of(
                "-gencert",
                "-alias",
                "ca",
                "-keystore",
                ca + ".p12",
                "-infile",
                name + ".csr",
                "-outfile",
                name + ".pem",
                "-rfc",
                "-validity",
                "2",
                "-ext",
                "SAN=" + san,
                "-ext",
                "EKU=serverAuth,clientAuth"));
    if (startDate != null) {
      sign.addAll(List.of("-startdate", startDate));
    }
    keytool(sign.toArray(new String[0]));
    trust(ca + ".pem", store);
    keytool("-importcert", "-alias", "node", "-file", name + ".pem", "-keystore", store);
    runKeytool();
    return keystorePath(name);
  }

  /** Where {@link #keystore} puts the keystore {@code name}. */
  public Path keystorePath(String name) {
    return dir.resolve(name + ".p12");
  }

  /** Adds the CA certificate in {@code pem} to {@code store} as a trusted entry. */
  private void trust(String pem, String store) {
    keytool("-importcert", "-noprompt", "-alias", "ca", "-file", pem, "-keystore", store);
  }

  private void makeCa(String name, String cn) {
    keytool(
        "-genkeypair",
        "-alias",
        "ca",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=" + cn,
        "-ext",
        "BC:c=ca:true",
        "-validity",
        "2",
        "-keystore",
        name + ".p12");
    keytool(
        "-exportcert", "-alias", "ca", "-rfc", "-file", name + ".pem", "-keystore", name + ".p12");
  }

  /** The node's keystore: its private key and the CA-signed certificate chain. */
  public Path nodeKeystore() {
    return dir.resolve("node.p12");
  }

  /** A truststore holding the test CA. */
  public Path truststore() {
    return dir.resolve("truststore.p12");
  }

  /** A truststore holding another CA only: it trusts no certificate of this set. */
  public Path untrustedTruststore() {
    return dir.resolve("other-truststore.p12");
  }

  /**
   * A truststore holding both the test CA and the other CA (a rotation's "trust the new CA too"
   * step), made the first time it is asked for (keytool twice).
   */
  public Path truststoreOfBothCas() throws IOException {
    String store = "both-truststore.p12";
    if (!Files.exists(dir.resolve(store))) {
      trust("ca.pem", store);
      keytool(
          "-importcert",
          "-noprompt",
          "-alias",
          "other-ca",
          "-file",
          "other-ca.pem",
          "-keystore",
          store);
      runKeytool();
    }
    return dir.resolve(store);
  }

  /**
   * Node keys that make the named listeners (SPOOL, KAFKA) speak TLS with the node keystore and the
   * test CA's truststore; {@code clientAuth} is none, requested or required.
   */
  public Map<String, String> nodeConfig(String clientAuth, String... tlsListeners) {
    List<String> map = new ArrayList<>();
    for (String l : tlsListeners) {
      map.add(l + ":SSL");
    }
    Map<String, String> p = new LinkedHashMap<>();
    p.put("listener.security.protocol.map", String.join(",", map));
    p.put("ssl.keystore.location", nodeKeystore().toString());
    p.put("ssl.keystore.password", PASSWORD);
    p.put("ssl.keystore.type", "PKCS12");
    p.put("ssl.truststore.location", truststore().toString());
    p.put("ssl.truststore.password", PASSWORD);
    p.put("ssl.truststore.type", "PKCS12");
    p.put("ssl.client.auth", clientAuth);
    return p;
  }

  /**
   * Client keys for TLS that trust {@code truststore}; with {@code certificate} the client also
   * presents the node certificate (for brokers that require one).
   */
  public Map<String, String> clientConfig(Path truststore, boolean certificate) {
    return clientConfig(truststore, certificate ? nodeKeystore() : null);
  }

  /**
   * Client keys for TLS that trust {@code truststore} and present the certificate of {@code
   * keystore} (one of {@link #keystore}'s, say), or none when it is null.
   */
  public Map<String, String> clientConfig(Path truststore, Path keystore) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("security.protocol", "SSL");
    p.put("ssl.truststore.location", truststore.toString());
    p.put("ssl.truststore.password", PASSWORD);
    p.put("ssl.truststore.type", "PKCS12");
    if (keystore != null) {
      p.put("ssl.keystore.location", keystore.toString());
      p.put("ssl.keystore.password", PASSWORD);
      p.put("ssl.keystore.type", "PKCS12");
    }
    return p;
  }

  /** Queues one keytool command; {@link #runKeytool} runs the queue. */
  private void keytool(String... args) {
    List<String> cmd = new ArrayList<>(List.of(args));
    cmd.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD));
    pending.add(String.join("\t", cmd));
  }

  /** Runs the queued keytool commands in {@code dir}, in one JVM ({@link KeytoolBatch}). */
  private void runKeytool() throws IOException {
    String classPath;
    try {
      classPath =
          Path.of(KeytoolBatch.class.getProtectionDomain().getCodeSource().getLocation().toURI())
              .toString();
    } catch (URISyntaxException e) {
      throw new IOException("cannot locate " + KeytoolBatch.class.getName(), e);
    }
    ExternalCommand.Result r =
        ExternalCommand.run(
            dir,
            String.join("\n", pending) + "\n",
            KEYTOOL_TIMEOUT,
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-exports=java.base/" + KeytoolBatch.KEYTOOL_PACKAGE + "=ALL-UNNAMED",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            classPath,
            KeytoolBatch.class.getName());
    pending.clear();
    if (!r.ok()) {
      throw new IOException("keytool failed (exit " + r.exitCode() + "): " + r.output());
    }
  }
}
