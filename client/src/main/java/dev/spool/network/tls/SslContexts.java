package dev.spool.network.tls;

import dev.spool.config.ConfigException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.NoSuchAlgorithmException;
import java.security.UnrecoverableKeyException;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Builds Netty {@link SslContext}s (the JDK's TLS engine) from {@link SslSettings}. Everything is
 * read and checked here, once, when a listener or client starts: a missing or unreadable file, a
 * wrong password, an unknown store type or protocol throws a {@link ConfigException} that names the
 * key, so a node with bad key material fails at start rather than at its first handshake.
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
    if (s.keystoreLocation().isEmpty()) {
      throw new ConfigException(
          "ssl.keystore.location",
          "must be set: a listener uses SSL (listener.security.protocol.map) and presents the"
              + " certificate in this keystore");
    }
    SslContextBuilder b =
        SslContextBuilder.forServer(keyManagers(s))
            .clientAuth(
                switch (s.clientAuth()) {
                  case "required" -> ClientAuth.REQUIRE;
                  case "requested" -> ClientAuth.OPTIONAL;
                  default -> ClientAuth.NONE;
                });
    return build(b, s);
  }

  /**
   * The context of a client (Spool's client library, the replica fetcher): trusts the truststore
   * (the JDK's default when unset), presents the keystore's certificate when one is set, and checks
   * the server's host name when {@code ssl.endpoint.identification.algorithm} is https.
   */
  public static SslContext client(SslSettings s) {
    SslContextBuilder b =
        SslContextBuilder.forClient()
            .endpointIdentificationAlgorithm(
                s.endpointIdentificationAlgorithm().isEmpty() ? null : "HTTPS");
    if (!s.keystoreLocation().isEmpty()) {
      b.keyManager(keyManagers(s));
    }
    return build(b, s);
  }

  private static SslContext build(SslContextBuilder b, SslSettings s) {
    checkProtocols(s.enabledProtocols());
    TrustManagerFactory tmf = trustManagers(s);
    if (tmf != null) {
      b.trustManager(tmf);
    }
    try {
      return b.sslProvider(SslProvider.JDK).protocols(s.enabledProtocols()).build();
    } catch (SSLException e) {
      throw new ConfigException("ssl.keystore.location", "cannot set up TLS: " + e.getMessage());
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

  /**
   * The key managers of the keystore ({@code ssl.keystore.*}), for transports that take JDK key
   * material rather than a Netty context (the metadata quorum's gRPC); the keystore must be set.
   */
  public static KeyManagerFactory keyManagerFactory(SslSettings s) {
    return keyManagers(s);
  }

  /**
   * The trust managers of the truststore ({@code ssl.truststore.*}), or null when it is unset (the
   * JDK's default trust).
   */
  public static TrustManagerFactory trustManagerFactory(SslSettings s) {
    return trustManagers(s);
  }

  private static KeyManagerFactory keyManagers(SslSettings s) {
    KeyStore ks =
        load("ssl.keystore", s.keystoreLocation(), s.keystorePassword(), s.keystoreType());
    try {
      if (!hasPrivateKey(ks)) {
        throw new ConfigException(
            "ssl.keystore.location", s.keystoreLocation() + " holds no private key entry");
      }
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      String keyPassword = s.keyPassword().isEmpty() ? s.keystorePassword() : s.keyPassword();
      kmf.init(ks, keyPassword.toCharArray());
      return kmf;
    } catch (UnrecoverableKeyException e) {
      throw new ConfigException(
          s.keyPassword().isEmpty() ? "ssl.keystore.password" : "ssl.key.password",
          "does not unlock the private key in "
              + s.keystoreLocation()
              + " (set ssl.key.password when the key has its own password): "
              + e.getMessage());
    } catch (GeneralSecurityException e) {
      throw new ConfigException(
          "ssl.keystore.location", "cannot use " + s.keystoreLocation() + ": " + e.getMessage());
    }
  }

  private static boolean hasPrivateKey(KeyStore ks) throws KeyStoreException {
    for (String alias : Collections.list(ks.aliases())) {
      if (ks.isKeyEntry(alias)) {
        return true;
      }
    }
    return false;
  }

  /** The truststore's trust managers, or null for the JDK's default trust. */
  private static TrustManagerFactory trustManagers(SslSettings s) {
    if (s.truststoreLocation().isEmpty()) {
      return null;
    }
    KeyStore ts =
        load("ssl.truststore", s.truststoreLocation(), s.truststorePassword(), s.truststoreType());
    try {
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ts);
      return tmf;
    } catch (GeneralSecurityException e) {
      throw new ConfigException(
          "ssl.truststore.location",
          "cannot use " + s.truststoreLocation() + ": " + e.getMessage());
    }
  }

  /**
   * Loads a keystore file; {@code prefix} is {@code ssl.keystore} or {@code ssl.truststore}, whose
   * {@code .location}, {@code .password} and {@code .type} keys the errors name.
   */
  private static KeyStore load(String prefix, String location, String password, String type) {
    KeyStore ks;
    try {
      ks = KeyStore.getInstance(type);
    } catch (KeyStoreException e) {
      throw new ConfigException(prefix + ".type", "'" + type + "' is not a KeyStore type");
    }
    Path path = Path.of(location);
    try (InputStream in = Files.newInputStream(path)) {
      ks.load(in, password.isEmpty() ? null : password.toCharArray());
      return ks;
    } catch (IOException e) {
      if (e.getCause() instanceof UnrecoverableKeyException) {
        throw new ConfigException(
            prefix + ".password",
            "does not open " + prefix + ".location (" + location + "): " + e.getMessage());
      }
      throw new ConfigException(
          prefix + ".location", "cannot read " + location + " as a " + type + " keystore: " + e);
    } catch (GeneralSecurityException e) {
      throw new ConfigException(
          prefix + ".location", "cannot read " + location + ": " + e.getMessage());
    }
  }
}
