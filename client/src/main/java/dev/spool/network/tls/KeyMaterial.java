package dev.spool.network.tls;

import dev.spool.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key and trust material of one side of TLS ({@code ssl.keystore.*}, {@code ssl.truststore.*}),
 * as managers that can be reloaded while the contexts built on them serve: {@link #reloadIfChanged}
 * reads the keystore and truststore files again and, when a file's content changed, loads it and
 * swaps it in, so handshakes after that use the new certificate or CAs and established connections
 * keep theirs. A changed file that cannot be used (unreadable, not a keystore, wrong password, no
 * key) leaves the material loaded before in place and logs one ERROR naming the key, once per
 * content it refused; a later good version is taken. {@link #watch} checks every interval on a
 * thread of its own.
 *
 * <p>Threads: {@link #reloadIfChanged} is synchronized (the watcher thread, tests); the managers
 * are read by every handshake on any thread.
 */
public final class KeyMaterial implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KeyMaterial.class);

  private final SslSettings settings;
  private final SwappableKeyManager keyManager;
  private final SwappableTrustManager trustManager;
  private String keystoreSeen;
  private String truststoreSeen;
  private ScheduledExecutorService watcher;

  private KeyMaterial(
      SslSettings settings,
      SwappableKeyManager keyManager,
      String keystoreSeen,
      SwappableTrustManager trustManager,
      String truststoreSeen) {
    this.settings = settings;
    this.keyManager = keyManager;
    this.keystoreSeen = keystoreSeen;
    this.trustManager = trustManager;
    this.truststoreSeen = truststoreSeen;
  }

  /**
   * Reads the material {@code s} names; throws a {@link ConfigException} naming the key when a file
   * is missing or unreadable, not a keystore, or a password is wrong.
   */
  public static KeyMaterial load(SslSettings s) {
    if (!s.keystoreLocation().isEmpty() && !s.keystoreKey().isEmpty()) {
      throw new ConfigException(
          "ssl.keystore.key", "is set as well as ssl.keystore.location: give one of them");
    }
    if (!s.truststoreLocation().isEmpty() && !s.truststoreCertificates().isEmpty()) {
      throw new ConfigException(
          "ssl.truststore.certificates",
          "is set as well as ssl.truststore.location: give one of them");
    }
    SwappableKeyManager km = null;
    String kSeen = null;
    if (s.hasKeystore()) {
      byte[] bytes =
          s.keystoreLocation().isEmpty()
              ? null // inline PEM: nothing to watch
              : KeyStores.read("ssl.keystore.location", s.keystoreLocation());
      km = new SwappableKeyManager(KeyStores.keyManager(s, bytes).manager());
      kSeen = bytes == null ? null : digest(bytes);
    }
    SwappableTrustManager tm = null;
    String tSeen = null;
    if (s.hasTruststore()) {
      byte[] bytes =
          s.truststoreLocation().isEmpty()
              ? null
              : KeyStores.read("ssl.truststore.location", s.truststoreLocation());
      tm = new SwappableTrustManager(KeyStores.trustManager(s, bytes));
      tSeen = bytes == null ? null : digest(bytes);
    }
    return new KeyMaterial(s, km, kSeen, tm, tSeen);
  }

  /** The key manager presenting the keystore's certificate, or null when no keystore is set. */
  public X509ExtendedKeyManager keyManager() {
    return keyManager;
  }

  /** The trust manager of the truststore, or null when none is set (the JDK's default trust). */
  public X509ExtendedTrustManager trustManager() {
    return trustManager;
  }

  /**
   * Reads the files again and swaps in what changed and can be used.
   *
   * @return true when a new keystore or truststore was taken
   */
  public synchronized boolean reloadIfChanged() {
    boolean reloaded = false;
    if (keystoreSeen != null) {
      Snapshot now = Snapshot.of(settings.keystoreLocation());
      if (!now.digest().equals(keystoreSeen)) {
        keystoreSeen = now.digest();
        reloaded |=
            now.readable("ssl.keystore.location", settings.keystoreLocation())
                && swapKey(now.bytes());
      }
    }
    if (truststoreSeen != null) {
      Snapshot now = Snapshot.of(settings.truststoreLocation());
      if (!now.digest().equals(truststoreSeen)) {
        truststoreSeen = now.digest();
        reloaded |=
            now.readable("ssl.truststore.location", settings.truststoreLocation())
                && swapTrust(now.bytes());
      }
    }
    return reloaded;
  }

  /**
   * A file's content as read once: its bytes and digest, or null bytes and why it is unreadable.
   */
  private record Snapshot(byte[] bytes, String digest) {
    static Snapshot of(String location) {
      try {
        byte[] b = Files.readAllBytes(Path.of(location));
        return new Snapshot(b, KeyMaterial.digest(b));
      } catch (IOException e) {
        return new Snapshot(null, "unreadable: " + e);
      }
    }

    /** True when it was read; else logs (once per distinct failure, as the caller remembers). */
    boolean readable(String key, String location) {
      if (bytes == null) {
        log.error(
            "{} ({}) cannot be read; keeping the TLS material loaded before: {}",
            key,
            location,
            digest);
      }
      return bytes != null;
    }
  }

  private boolean swapKey(byte[] bytes) {
    try {
      KeyStores.LoadedKey k = KeyStores.keyManager(settings, bytes);
      keyManager.swap(k.manager());
      log.info(
          "TLS keystore {} reloaded: new connections present {}",
          settings.keystoreLocation(),
          k.description());
      return true;
    } catch (ConfigException e) {
      log.error(
          "{} ({}) changed but cannot be used; keeping the key material loaded before: {}",
          e.key(),
          settings.keystoreLocation(),
          e.getMessage());
      return false;
    }
  }

  private boolean swapTrust(byte[] bytes) {
    try {
      trustManager.swap(KeyStores.trustManager(settings, bytes));
      log.info(
          "TLS truststore {} reloaded: new connections check peers against it",
          settings.truststoreLocation());
      return true;
    } catch (ConfigException e) {
      log.error(
          "{} ({}) changed but cannot be used; keeping the trust material loaded before: {}",
          e.key(),
          settings.truststoreLocation(),
          e.getMessage());
      return false;
    }
  }

  /**
   * Checks the files every {@code intervalMs} on a daemon thread named {@code threadName} until
   * {@link #close}; 0 does nothing (the material stays as loaded).
   */
  public synchronized void watch(long intervalMs, String threadName) {
    if (intervalMs <= 0 || watcher != null || (keystoreSeen == null && truststoreSeen == null)) {
      return;
    }
    watcher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    watcher.scheduleWithFixedDelay(
        this::reloadQuietly, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  private void reloadQuietly() {
    try {
      reloadIfChanged();
    } catch (RuntimeException e) {
      log.error("checking the TLS key material for changes failed", e);
    }
  }

  @Override
  public synchronized void close() {
    if (watcher != null) {
      watcher.shutdownNow();
      watcher = null;
    }
  }

  private static String digest(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no SHA-256", e);
    }
  }
}
