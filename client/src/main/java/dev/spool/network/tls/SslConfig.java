package dev.spool.network.tls;

import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigKey;
import java.util.List;

/**
 * The {@code ssl.*} keys with Kafka's names and defaults, defined on a client's or the node's
 * {@link ConfigDef} (keys belong to one definition, so each defines its own instance). Servers have
 * {@code ssl.client.auth} as well; clients have none.
 */
public record SslConfig(
    ConfigKey<String> keystoreLocation,
    ConfigKey<String> keystorePassword,
    ConfigKey<String> keyPassword,
    ConfigKey<String> keystoreType,
    ConfigKey<String> truststoreLocation,
    ConfigKey<String> truststorePassword,
    ConfigKey<String> truststoreType,
    ConfigKey<List<String>> enabledProtocols,
    ConfigKey<String> endpointIdentificationAlgorithm,
    ConfigKey<String> clientAuth,
    ConfigKey<String> keystoreKey,
    ConfigKey<String> keystoreCertificateChain,
    ConfigKey<String> truststoreCertificates,
    ConfigKey<List<String>> cipherSuites,
    ConfigKey<String> engine) {

  /** Plaintext, as Kafka's {@code security.protocol}. */
  public static final String PLAINTEXT = "PLAINTEXT";

  /** TLS, as Kafka's {@code security.protocol}. */
  public static final String SSL = "SSL";

  /** The protocols Kafka enables by default. */
  public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

  /** Defines the keys on {@code def}; {@code server} adds {@code ssl.client.auth}. */
  public static SslConfig define(ConfigDef def, boolean server) {
    return new SslConfig(
        def.stringKey(
            "ssl.keystore.location",
            "",
            null,
            server
                ? "Keystore with the private key and certificate chain a TLS listener presents (and the"
                    + " replica fetcher, when a peer asks for a client certificate)."
                : "Keystore with this client's private key and certificate, for brokers that ask for"
                    + " one (ssl.client.auth); empty: no client certificate."),
        def.passwordKey("ssl.keystore.password", "Password of ssl.keystore.location."),
        def.passwordKey(
            "ssl.key.password",
            "Password of the private key in the keystore; empty: ssl.keystore.password."),
        def.stringKey(
            "ssl.keystore.type",
            "JKS",
            ConfigKey.nonEmpty(),
            "KeyStore type of ssl.keystore.location (JKS, PKCS12, or PEM: a PKCS#8 private key,"
                + " encrypted with ssl.key.password or not, and its certificate chain)."),
        def.stringKey(
            "ssl.truststore.location",
            "",
            null,
            "Keystore with the certificates trusted to sign the peer's; empty: the JDK's default"
                + " trust store."),
        def.passwordKey(
            "ssl.truststore.password", "Password of ssl.truststore.location (may be empty)."),
        def.stringKey(
            "ssl.truststore.type",
            "JKS",
            ConfigKey.nonEmpty(),
            "KeyStore type of ssl.truststore.location (JKS, PKCS12, or PEM: CA certificates)."),
        def.listKey(
            "ssl.enabled.protocols",
            DEFAULT_PROTOCOLS,
            v -> v.isEmpty() ? "must name at least one protocol" : null,
            "TLS versions offered on TLS connections."),
        def.stringKey(
            "ssl.endpoint.identification.algorithm",
            "https",
            v ->
                v.isEmpty() || v.equalsIgnoreCase("https")
                    ? null
                    : "must be https (verify the server's host name) or empty (do not)",
            server
                ? "https: the replica fetcher checks that a leader's certificate names the host it"
                    + " connects to; empty: it does not."
                : "https: check that the broker's certificate names the host connected to; empty:"
                    + " do not (the certificate is still checked against the trust store)."),
        server
            ? def.stringKey(
                "ssl.client.auth",
                "none",
                ConfigKey.oneOf("none", "requested", "required"),
                "Whether TLS listeners ask clients for a certificate: none, requested (checked when"
                    + " given) or required (mutual TLS: a client without one is refused).")
            : null,
        def.passwordKey(
            "ssl.keystore.key",
            "Inline PEM PKCS#8 private key (ssl.keystore.type=PEM), instead of"
                + " ssl.keystore.location; encrypted with ssl.key.password or not."),
        def.stringKey(
            "ssl.keystore.certificate.chain",
            "",
            null,
            "Inline PEM certificate chain of ssl.keystore.key."),
        def.stringKey(
            "ssl.truststore.certificates",
            "",
            null,
            "Inline PEM CA certificates (ssl.truststore.type=PEM), instead of"
                + " ssl.truststore.location."),
        def.listKey(
            "ssl.cipher.suites",
            List.of(),
            null,
            "Cipher suites offered on TLS connections, by their JDK (IANA) names; empty: the"
                + " engine's defaults."),
        def.stringKey(
            "ssl.engine",
            SslSettings.OPENSSL,
            ConfigKey.oneOf(SslSettings.OPENSSL, SslSettings.JDK),
            "The TLS engine: openssl (Netty's BoringSSL engine; where it does not load, the JDK's,"
                + " with one WARN line) or jdk (the JDK's SSLEngine)."));
  }

  /** The settings {@code config} holds for these keys. */
  public SslSettings read(Config config) {
    return new SslSettings(
        config.get(keystoreLocation),
        config.get(keystorePassword),
        config.get(keyPassword),
        config.get(keystoreType),
        config.get(truststoreLocation),
        config.get(truststorePassword),
        config.get(truststoreType),
        config.get(enabledProtocols),
        config.get(endpointIdentificationAlgorithm),
        clientAuth == null ? "none" : config.get(clientAuth),
        config.get(keystoreKey),
        config.get(keystoreCertificateChain),
        config.get(truststoreCertificates),
        config.get(cipherSuites),
        config.get(engine));
  }
}
