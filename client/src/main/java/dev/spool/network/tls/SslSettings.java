package dev.spool.network.tls;

import java.util.List;

/**
 * The TLS settings of one side of a connection, as read from the {@code ssl.*} keys. Empty strings
 * mean "not set". Immutable.
 *
 * @param keystoreLocation file with this side's private key and certificate chain
 * @param keystorePassword password of the keystore file
 * @param keyPassword password of the private key; empty means the keystore's
 * @param keystoreType KeyStore type (JKS, PKCS12)
 * @param truststoreLocation file with the certificates this side trusts; empty means the JDK's
 *     default trust store
 * @param truststorePassword password of the truststore file (may be empty)
 * @param truststoreType KeyStore type of the truststore
 * @param enabledProtocols TLS versions offered, e.g. TLSv1.3, TLSv1.2
 * @param endpointIdentificationAlgorithm "https" to verify that the server's certificate names the
 *     host connected to (clients), "" to skip it
 * @param clientAuth none, requested or required (servers: whether clients present a certificate)
 * @param keystoreKey an inline PEM PKCS#8 private key ({@code ssl.keystore.key}, type PEM), or ""
 * @param keystoreCertificateChain the inline PEM certificate chain of {@code keystoreKey}, or ""
 * @param truststoreCertificates inline PEM CA certificates ({@code ssl.truststore.certificates}),
 *     or ""
 * @param cipherSuites the cipher suites offered ({@code ssl.cipher.suites}); empty: the engine's
 *     defaults
 * @param engine the TLS engine ({@code ssl.engine}): {@value #OPENSSL} (when it loads, else the
 *     JDK's) or {@value #JDK}
 */
public record SslSettings(
    String keystoreLocation,
    String keystorePassword,
    String keyPassword,
    String keystoreType,
    String truststoreLocation,
    String truststorePassword,
    String truststoreType,
    List<String> enabledProtocols,
    String endpointIdentificationAlgorithm,
    String clientAuth,
    String keystoreKey,
    String keystoreCertificateChain,
    String truststoreCertificates,
    List<String> cipherSuites,
    String engine) {

  /** {@code ssl.engine}: Netty's OpenSSL (BoringSSL) engine, the JDK's where it does not load. */
  public static final String OPENSSL = "openssl";

  /** {@code ssl.engine}: the JDK's {@code SSLEngine}. */
  public static final String JDK = "jdk";

  public SslSettings {
    enabledProtocols = List.copyOf(enabledProtocols);
    cipherSuites = List.copyOf(cipherSuites);
  }

  /**
   * Settings with key and trust material in files only (no inline PEM), the engines' default cipher
   * suites and the default engine.
   */
  public SslSettings(
      String keystoreLocation,
      String keystorePassword,
      String keyPassword,
      String keystoreType,
      String truststoreLocation,
      String truststorePassword,
      String truststoreType,
      List<String> enabledProtocols,
      String endpointIdentificationAlgorithm,
      String clientAuth) {
    this(
        keystoreLocation,
        keystorePassword,
        keyPassword,
        keystoreType,
        truststoreLocation,
        truststorePassword,
        truststoreType,
        enabledProtocols,
        endpointIdentificationAlgorithm,
        clientAuth,
        "",
        "",
        "",
        List.of(),
        OPENSSL);
  }

  /** True when a private key is configured: a keystore file or an inline PEM key. */
  public boolean hasKeystore() {
    return !keystoreLocation.isEmpty() || !keystoreKey.isEmpty();
  }

  /** True when trusted CAs are configured: a truststore file or inline PEM certificates. */
  public boolean hasTruststore() {
    return !truststoreLocation.isEmpty() || !truststoreCertificates.isEmpty();
  }
}
