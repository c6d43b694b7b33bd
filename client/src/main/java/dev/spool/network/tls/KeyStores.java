package dev.spool.network.tls;

import dev.spool.config.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Collections;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Reads key and trust material from the bytes of a keystore or truststore file ({@code
 * ssl.keystore.*}, {@code ssl.truststore.*}) into the JDK's managers. Every failure is a {@link
 * ConfigException} naming the key to fix. Stateless.
 */
final class KeyStores {
  private KeyStores() {}

  /** A key manager and what it presents, for log lines. */
  record LoadedKey(X509ExtendedKeyManager manager, String description) {}

  /** The bytes of {@code location}; a missing or unreadable file names {@code key}. */
  static byte[] read(String key, String location) {
    try {
      return Files.readAllBytes(Path.of(location));
    } catch (IOException e) {
      throw new ConfigException(key, "cannot read " + location + ": " + e);
    }
  }

  /** True for {@code ssl.*.type=PEM}. */
  static boolean isPem(String type) {
    return type.equalsIgnoreCase("PEM");
  }

  /**
   * The key manager of the keystore whose file holds {@code bytes}, or of the inline PEM key and
   * chain ({@code ssl.keystore.key}, {@code ssl.keystore.certificate.chain}) when {@code bytes} is
   * null.
   */
  static LoadedKey keyManager(SslSettings s, byte[] bytes) {
    KeyStore ks;
    char[] password;
    if (bytes == null) {
      if (!isPem(s.keystoreType())) {
        throw new ConfigException(
            "ssl.keystore.type", "must be PEM when ssl.keystore.key is set (Kafka's rule)");
      }
      ks =
          Pem.keyStore(
              s.keystoreKey(),
              s.keystoreCertificateChain(),
              s.keyPassword(),
              "ssl.keystore.key",
              "ssl.keystore.key / ssl.keystore.certificate.chain");
      password = Pem.IN_MEMORY_PASSWORD;
    } else if (isPem(s.keystoreType())) {
      String text = Pem.text(bytes);
      ks = Pem.keyStore(text, text, s.keyPassword(), "ssl.keystore.location", s.keystoreLocation());
      password = Pem.IN_MEMORY_PASSWORD;
    } else {
      ks =
          load("ssl.keystore", s.keystoreLocation(), bytes, s.keystorePassword(), s.keystoreType());
      password = (s.keyPassword().isEmpty() ? s.keystorePassword() : s.keyPassword()).toCharArray();
    }
    try {
      String alias = firstKeyAlias(ks);
      if (alias == null) {
        throw new ConfigException(
            "ssl.keystore.location", s.keystoreLocation() + " holds no private key entry");
      }
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, password);
      return new LoadedKey(extended(kmf.getKeyManagers()), describe(ks.getCertificate(alias)));
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

  /**
   * The trust manager of the truststore whose file holds {@code bytes}, or of the inline PEM
   * certificates ({@code ssl.truststore.certificates}) when {@code bytes} is null.
   */
  static X509ExtendedTrustManager trustManager(SslSettings s, byte[] bytes) {
    KeyStore ts;
    if (bytes == null) {
      if (!isPem(s.truststoreType())) {
        throw new ConfigException(
            "ssl.truststore.type",
            "must be PEM when ssl.truststore.certificates is set (Kafka's rule)");
      }
      ts =
          Pem.trustStore(
              s.truststoreCertificates(),
              "ssl.truststore.certificates",
              "ssl.truststore.certificates");
    } else if (isPem(s.truststoreType())) {
      ts = Pem.trustStore(Pem.text(bytes), "ssl.truststore.location", s.truststoreLocation());
    } else {
      ts =
          load(
              "ssl.truststore",
              s.truststoreLocation(),
              bytes,
              s.truststorePassword(),
              s.truststoreType());
    }
    try {
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ts);
      for (TrustManager m : tmf.getTrustManagers()) {
        if (m instanceof X509ExtendedTrustManager x) {
          return x;
        }
      }
      throw new ConfigException(
          "ssl.truststore.type",
          "the JDK made no X.509 trust manager of " + s.truststoreLocation());
    } catch (GeneralSecurityException e) {
      throw new ConfigException(
          "ssl.truststore.location",
          "cannot use " + s.truststoreLocation() + ": " + e.getMessage());
    }
  }

  private static X509ExtendedKeyManager extended(KeyManager[] managers) {
    for (KeyManager m : managers) {
      if (m instanceof X509ExtendedKeyManager x) {
        return x;
      }
    }
    throw new ConfigException("ssl.keystore.type", "the JDK made no X.509 key manager of it");
  }

  private static String firstKeyAlias(KeyStore ks) throws KeyStoreException {
    for (String alias : Collections.list(ks.aliases())) {
      if (ks.isKeyEntry(alias)) {
        return alias;
      }
    }
    return null;
  }

  /** "subject CN=..., serial 1a2b" of a certificate, for log lines. */
  static String describe(Certificate c) {
    if (c instanceof X509Certificate x) {
      BigInteger serial = x.getSerialNumber();
      return "subject " + x.getSubjectX500Principal().getName() + ", serial " + serial.toString(16);
    }
    return String.valueOf(c == null ? null : c.getType());
  }

  /**
   * Loads a keystore from its file's bytes; {@code prefix} is {@code ssl.keystore} or {@code
   * ssl.truststore}, whose {@code .location}, {@code .password} and {@code .type} keys the errors
   * name.
   */
  private static KeyStore load(
      String prefix, String location, byte[] bytes, String password, String type) {
    KeyStore ks;
    try {
      ks = KeyStore.getInstance(type);
    } catch (KeyStoreException e) {
      throw new ConfigException(prefix + ".type", "'" + type + "' is not a KeyStore type");
    }
    try {
      ks.load(new ByteArrayInputStream(bytes), password.isEmpty() ? null : password.toCharArray());
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
