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
    String clientAuth) {

  public SslSettings {
    enabledProtocols = List.copyOf(enabledProtocols);
  }
}
