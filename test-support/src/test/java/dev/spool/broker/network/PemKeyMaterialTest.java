package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigException;
import dev.spool.network.tls.KeyMaterial;
import dev.spool.network.tls.SslConfig;
import dev.spool.network.tls.SslContexts;
import dev.spool.network.tls.SslSettings;
import dev.spool.testing.ClientSecurity;
import dev.spool.testing.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * PEM key material with Kafka's semantics ({@code ssl.keystore.type=PEM}, {@code
 * ssl.truststore.type=PEM}, the inline {@code ssl.keystore.key}, {@code
 * ssl.keystore.certificate.chain} and {@code ssl.truststore.certificates}): a listener presents a
 * PEM key and chain (plain or encrypted PKCS#8 with {@code ssl.key.password}), a client trusts PEM
 * CAs; bad PEM fails with the key named. The PEM files are written in the test from the keytool
 * material, with the JDK only. Also {@code ssl.cipher.suites}: a listener offers only those.
 */
@Tag("integration")
@Timeout(60)
class PemKeyMaterialTest {
  private static final String KEY_PASSWORD = "pem-key-pass";

  @TempDir static Path dir;
  private static TestCertificates certs;
  private static String keyPem;
  private static String encryptedKeyPem;
  private static String chainPem;
  private static String caPem;
  private static X509Certificate nodeCertificate;

  private BrokerServer server;
  private KeyMaterial material;

  @BeforeAll
  static void makeKeys() throws Exception {
    certs = TestCertificates.create(Files.createDirectories(dir.resolve("keys")));
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(certs.nodeKeystore())) {
      ks.load(in, TestCertificates.PASSWORD.toCharArray());
    }
    PrivateKey key = (PrivateKey) ks.getKey("node", TestCertificates.PASSWORD.toCharArray());
    keyPem = pem("PRIVATE KEY", key.getEncoded());
    encryptedKeyPem = pem("ENCRYPTED PRIVATE KEY", encrypt(key.getEncoded(), KEY_PASSWORD));
    StringBuilder chain = new StringBuilder();
    for (Certificate c : ks.getCertificateChain("node")) {
      chain.append(pem("CERTIFICATE", c.getEncoded()));
    }
    chainPem = chain.toString();
    nodeCertificate = (X509Certificate) ks.getCertificate("node");
    caPem = Files.readString(certs.truststore().getParent().resolve("ca.pem"));
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (material != null) {
      material.close();
    }
  }

  @Test
  void shouldServeAPemKeyFileToAClientTrustingPemCas() throws IOException {
    Path keystore = Files.writeString(dir.resolve("node.pem"), keyPem + chainPem);
    start(server(Map.of("ssl.keystore.location", keystore.toString())));
    assertEquals(nodeCertificate, peerCertificate());
  }

  @Test
  void shouldUnlockAnEncryptedPkcs8KeyWithTheKeyPassword() throws IOException {
    Path keystore = Files.writeString(dir.resolve("enc.pem"), encryptedKeyPem + chainPem);
    Map<String, String> good =
        Map.of("ssl.keystore.location", keystore.toString(), "ssl.key.password", KEY_PASSWORD);
    start(server(good));
    assertEquals(nodeCertificate, peerCertificate());

    ConfigException wrong =
        assertThrows(
            ConfigException.class,
            () ->
                KeyMaterial.load(
                    server(
                        Map.of(
                            "ssl.keystore.location",
                            keystore.toString(),
                            "ssl.key.password",
                            "wrong"))));
    assertEquals("ssl.key.password", wrong.key(), wrong.getMessage());
    ConfigException none =
        assertThrows(
            ConfigException.class,
            () -> KeyMaterial.load(server(Map.of("ssl.keystore.location", keystore.toString()))));
    assertEquals("ssl.key.password", none.key(), none.getMessage());
    assertTrue(none.getMessage().contains("encrypted"), none.getMessage());
  }

  @Test
  void shouldTakeInlinePemKeysAndCertificates() throws IOException {
    Map<String, String> inline = new LinkedHashMap<>();
    inline.put("ssl.keystore.key", encryptedKeyPem);
    inline.put("ssl.keystore.certificate.chain", chainPem);
    inline.put("ssl.key.password", KEY_PASSWORD);
    inline.put("ssl.truststore.certificates", caPem);
    inline.put("ssl.truststore.location", "");
    start(server(inline));
    assertEquals(nodeCertificate, peerCertificate());
  }

  @Test
  void shouldNameTheKeyOfBadPem() throws IOException {
    Path noKey = Files.writeString(dir.resolve("chain-only.pem"), chainPem);
    ConfigException missing =
        assertThrows(
            ConfigException.class,
            () -> KeyMaterial.load(server(Map.of("ssl.keystore.location", noKey.toString()))));
    assertEquals("ssl.keystore.location", missing.key(), missing.getMessage());
    assertTrue(missing.getMessage().contains("PKCS#8"), missing.getMessage());

    Path noCerts = Files.writeString(dir.resolve("no-ca.pem"), "nothing here");
    ConfigException trust =
        assertThrows(
            ConfigException.class,
            () -> KeyMaterial.load(server(Map.of("ssl.truststore.location", noCerts.toString()))));
    assertEquals("ssl.truststore.location", trust.key(), trust.getMessage());

    Map<String, String> notPem = new LinkedHashMap<>();
    notPem.put("ssl.keystore.location", "");
    notPem.put("ssl.keystore.type", "PKCS12");
    notPem.put("ssl.keystore.key", keyPem);
    notPem.put("ssl.keystore.certificate.chain", chainPem);
    ConfigException type =
        assertThrows(ConfigException.class, () -> KeyMaterial.load(server(notPem)));
    assertEquals("ssl.keystore.type", type.key(), type.getMessage());

    Map<String, String> both = new LinkedHashMap<>(notPem);
    both.put("ssl.keystore.location", noKey.toString());
    both.put("ssl.keystore.type", "PEM");
    ConfigException twice =
        assertThrows(ConfigException.class, () -> KeyMaterial.load(server(both)));
    assertEquals("ssl.keystore.key", twice.key(), twice.getMessage());
  }

  @Test
  void shouldOfferOnlyTheConfiguredCipherSuites() throws IOException {
    Path keystore = Files.writeString(dir.resolve("suites.pem"), keyPem + chainPem);
    String suite = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
    start(
        server(
            Map.of(
                "ssl.keystore.location",
                keystore.toString(),
                "ssl.enabled.protocols",
                "TLSv1.2",
                "ssl.cipher.suites",
                suite)));
    Map<String, String> client = new LinkedHashMap<>();
    client.put("security.protocol", "SSL");
    client.put("ssl.truststore.type", "PEM");
    client.put(
        "ssl.truststore.location", certs.truststore().getParent().resolve("ca.pem").toString());
    try (SSLSocket s =
        (SSLSocket)
            ClientSecurity.socketFactory(client).createSocket("127.0.0.1", server.boundPort())) {
      s.startHandshake();
      assertEquals(suite, s.getSession().getCipherSuite());
    }

    SslSettings unknown =
        server(
            Map.of(
                "ssl.keystore.location",
                keystore.toString(),
                "ssl.cipher.suites",
                "TLS_NO_SUCH_SUITE"));
    ConfigException bad =
        assertThrows(
            ConfigException.class, () -> SslContexts.server(unknown, KeyMaterial.load(unknown)));
    assertEquals("ssl.cipher.suites", bad.key(), bad.getMessage());
    assertTrue(bad.getMessage().contains("TLS_NO_SUCH_SUITE"), bad.getMessage());
  }

  /** Server settings: PEM stores (the CA file as truststore) with {@code overrides}. */
  private static SslSettings server(Map<String, String> overrides) {
    ConfigDef def = new ConfigDef("pem-test");
    SslConfig keys = SslConfig.define(def, true);
    Map<String, String> p = new LinkedHashMap<>();
    p.put("ssl.keystore.type", "PEM");
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.location", certs.truststore().getParent().resolve("ca.pem").toString());
    p.putAll(overrides);
    return keys.read(def.parse(p));
  }

  private void start(SslSettings s) {
    material = KeyMaterial.load(s);
    server =
        new BrokerServer(
            new BrokerServer.Settings(
                "127.0.0.1", 0, 1, 1 << 20, 16, 64L << 20, 60_000, 5_000, 100, 100, "[test]"),
            BrokerServerTest.answeringApiVersions());
    server.tls(BrokerServer.SPOOL_LISTENER, SslContexts.server(s, material), "none");
    server.start();
  }

  /** The certificate a client trusting the CA in PEM (ssl.truststore.type=PEM) is shown. */
  private X509Certificate peerCertificate() throws IOException {
    Map<String, String> client = new LinkedHashMap<>();
    client.put("security.protocol", "SSL");
    client.put("ssl.truststore.type", "PEM");
    client.put(
        "ssl.truststore.location", certs.truststore().getParent().resolve("ca.pem").toString());
    try (SSLSocket s =
        (SSLSocket)
            ClientSecurity.socketFactory(client).createSocket("127.0.0.1", server.boundPort())) {
      s.startHandshake();
      return (X509Certificate) s.getSession().getPeerCertificates()[0];
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  /** PKCS#8 encryption as openssl pkcs8 -topk8 -v2 aes-256-cbc does (PBES2, PBKDF2-SHA256). */
  private static byte[] encrypt(byte[] pkcs8, String password)
      throws GeneralSecurityException, IOException {
    String algorithm = "PBEWithHmacSHA256AndAES_256";
    byte[] salt = new byte[16];
    byte[] iv = new byte[16];
    SecureRandom random = new SecureRandom();
    random.nextBytes(salt);
    random.nextBytes(iv);
    Cipher cipher = Cipher.getInstance(algorithm);
    cipher.init(
        Cipher.ENCRYPT_MODE,
        SecretKeyFactory.getInstance(algorithm)
            .generateSecret(new PBEKeySpec(password.toCharArray())),
        new PBEParameterSpec(salt, 10_000, new IvParameterSpec(iv)));
    byte[] encrypted = cipher.doFinal(pkcs8);
    // Under the scheme's name (PBES2), as openssl writes it: JDK 17 has no object id for the
    // cipher's own name.
    AlgorithmParameters pbes2 = AlgorithmParameters.getInstance("PBES2");
    pbes2.init(cipher.getParameters().getEncoded());
    return new EncryptedPrivateKeyInfo(pbes2, encrypted).getEncoded();
  }
}
