package dev.spool.network.tls;

import dev.spool.config.ConfigException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.slf4j.LoggerFactory;

/**
 * Builds Netty {@link SslContext}s from {@link SslSettings} and their {@link KeyMaterial}, on the
 * engine of {@code ssl.engine}: Netty's OpenSSL (BoringSSL, netty-tcnative) engine by default, the
 * JDK's where OpenSSL does not load (one WARN line per process) or where {@code ssl.engine=jdk}.
 * Both engines take the key and trust managers of the material at every handshake (OpenSSL without
 * caching them), so a reload reaches new connections on either. Everything is read and checked when
 * a listener or client starts (and again by a reload of the material): a missing or unreadable
 * file, a wrong password, an unknown store type or protocol throws a {@link ConfigException} that
 * names the key, so a node with bad key material fails at start rather than at its first handshake.
 *
 * <p>Stateless; the contexts it builds are thread-safe and shared by every connection.
 */
public final class SslContexts {
  private SslContexts() {}

  /**
   * The context of a TLS listener: presents the keystore's certificate, asks for client
   * certificates as {@code ssl.client.auth} says and checks them against the truststore.
   */
  public static SslContext server(SslSettings s) {
    return server(s, KeyMaterial.load(s));
  }

  /**
   * As {@link #server(SslSettings)}, on {@code material}: a reload of it ({@link
   * KeyMaterial#reloadIfChanged}) reaches the handshakes of this context.
   */
  public static SslContext server(SslSettings s, KeyMaterial material) {
    if (!s.hasKeystore()) {
      throw new ConfigException(
          "ssl.keystore.location",
          "must be set: a listener uses SSL (listener.security.protocol.map) and presents the"
              + " certificate in this keystore");
    }
    SslContextBuilder b =
        SslContextBuilder.forServer(material.keyManager())
            .clientAuth(
                switch (s.clientAuth()) {
                  case "required" -> ClientAuth.REQUIRE;
                  case "requested" -> ClientAuth.OPTIONAL;
                  default -> ClientAuth.NONE;
                });
    return build(b, s, material);
  }

  /**
   * The context of a client (Spool's client library, the replica fetcher): trusts the truststore
   * (the JDK's default when unset), presents the keystore's certificate when one is set, and checks
   * the server's host name when {@code ssl.endpoint.identification.algorithm} is https.
   */
  public static SslContext client(SslSettings s) {
    return client(s, KeyMaterial.load(s));
  }

  /** As {@link #client(SslSettings)}, on {@code material} (reloadable). */
  public static SslContext client(SslSettings s, KeyMaterial material) {
    SslContextBuilder b =
        SslContextBuilder.forClient()
            .endpointIdentificationAlgorithm(
                s.endpointIdentificationAlgorithm().isEmpty() ? null : "HTTPS");
    if (material.keyManager() != null) {
      b.keyManager(material.keyManager());
    }
    return build(b, s, material);
  }

  private static SslContext build(SslContextBuilder b, SslSettings s, KeyMaterial material) {
    checkProtocols(s.enabledProtocols());
    SslProvider provider = provider(s.engine());
    if (material.trustManager() != null) {
      b.trustManager(material.trustManager());
    }
    if (!s.cipherSuites().isEmpty()) {
      checkCipherSuites(s.cipherSuites(), provider);
      b.ciphers(s.cipherSuites());
    }
    try {
      return b.sslProvider(provider).protocols(s.enabledProtocols()).build();
    } catch (SSLException e) {
      throw new ConfigException("ssl.keystore.location", "cannot set up TLS: " + e.getMessage());
    }
  }

  /**
   * The engine {@code ssl.engine} asks for: OpenSSL when it asks for it and it loads here, else the
   * JDK's.
   */
  static SslProvider provider(String engine) {
    if (!engine.equals(SslSettings.OPENSSL)) {
      return SslProvider.JDK;
    }
    return OpenSslEngine.AVAILABLE ? SslProvider.OPENSSL : SslProvider.JDK;
  }

  /** Which engine {@code ssl.engine} gives on this machine, for log lines and the docs' tables. */
  public static String engineName(String engine) {
    return provider(engine) == SslProvider.OPENSSL
        ? "OpenSSL (" + OpenSsl.versionString() + ")"
        : "the JDK's (" + System.getProperty("java.vendor") + " " + Runtime.version() + ")";
  }

  /** Whether OpenSSL loads, found once per process, with one WARN line when it does not. */
  private static final class OpenSslEngine {
    static final boolean AVAILABLE = check();

    private static boolean check() {
      if (OpenSsl.isAvailable()) {
        return true;
      }
      LoggerFactory.getLogger(SslContexts.class)
          .warn(
              "ssl.engine=openssl: the OpenSSL engine does not load on this machine ({}); TLS"
                  + " uses the JDK's engine",
              String.valueOf(OpenSsl.unavailabilityCause()));
      return false;
    }
  }

  private static void checkCipherSuites(List<String> suites, SslProvider provider) {
    if (provider == SslProvider.OPENSSL) {
      for (String c : suites) {
        if (!OpenSsl.isCipherSuiteAvailable(c)) {
          throw new ConfigException(
              "ssl.cipher.suites",
              "'"
                  + c
                  + "' is not a cipher suite the OpenSSL engine supports (JDK names, e.g."
                  + " TLS_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384; ssl.engine=jdk"
                  + " for the JDK's)");
        }
      }
      return;
    }
    List<String> supported;
    try {
      supported =
          Arrays.asList(SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no TLS implementation", e);
    }
    for (String c : suites) {
      if (!supported.contains(c)) {
        throw new ConfigException(
            "ssl.cipher.suites",
            "'"
                + c
                + "' is not a cipher suite this JDK supports (JDK names, e.g."
                + " TLS_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384)");
      }
    }
  }

  /**
   * Throws a {@link ConfigException} naming {@code ssl.enabled.protocols} when it names a protocol
   * this JDK lacks.
   */
  public static void checkProtocols(List<String> protocols) {
    List<String> supported;
    try {
      supported = Arrays.asList(SSLContext.getDefault().getSupportedSSLParameters().getProtocols());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no TLS implementation", e);
    }
    for (String p : protocols) {
      if (!supported.contains(p)) {
        throw new ConfigException(
            "ssl.enabled.protocols",
            "'" + p + "' is not a protocol this JDK supports " + supported);
      }
    }
  }
}
