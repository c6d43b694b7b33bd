package dev.spool.broker;

import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigException;
import dev.spool.config.ConfigKey;
import dev.spool.network.tls.SslConfig;
import dev.spool.network.tls.SslContexts;
import dev.spool.network.tls.SslSettings;
import io.netty.handler.ssl.SslContext;
import java.util.List;
import java.util.Locale;

/**
 * The node's TLS keys, Kafka's names: {@code listener.security.protocol.map} says which listener
 * speaks SSL, the {@code ssl.*} keys say with what key and trust material. Replication between
 * brokers goes to the peers' Spool listeners, so it uses TLS when the Spool listener does: the
 * replica fetcher then presents the node's keystore (for peers that require client certificates),
 * trusts the node's truststore and checks host names as {@code
 * ssl.endpoint.identification.algorithm} says.
 */
public final class SecurityConfig {
  private SecurityConfig() {}

  public static final ConfigDef DEF = new ConfigDef("node");

  /** The Spool listener's name in {@code listener.security.protocol.map}. */
  public static final String SPOOL = "SPOOL";

  /** The Kafka listener's name in {@code listener.security.protocol.map}. */
  public static final String KAFKA = "KAFKA";

  public static final ConfigKey<List<String>> LISTENER_SECURITY_PROTOCOL_MAP =
      DEF.listKey(
          "listener.security.protocol.map",
          List.of(SPOOL + ":" + SslConfig.PLAINTEXT, KAFKA + ":" + SslConfig.PLAINTEXT),
          SecurityConfig::validMap,
          "Security protocol of each listener, NAME:PROTOCOL: SPOOL (listener, also used for"
              + " replication) and KAFKA (kafka.listener), each PLAINTEXT or SSL (with the ssl.*"
              + " keys); a listener not named is PLAINTEXT.");

  public static final SslConfig SSL = SslConfig.define(DEF, true);

  /**
   * The TLS contexts of a node: one per TLS listener (null when it is plaintext) and the replica
   * fetcher's client context (null when the Spool listener is plaintext).
   */
  public record Contexts(
      SslContext spool, SslContext kafka, SslContext replication, String clientAuth) {}

  /** True when {@code listener} (SPOOL or KAFKA) speaks SSL. */
  public static boolean isTls(Config c, String listener) {
    for (String entry : c.get(LISTENER_SECURITY_PROTOCOL_MAP)) {
      int colon = entry.indexOf(':');
      if (entry.substring(0, colon).trim().equalsIgnoreCase(listener)) {
        return entry.substring(colon + 1).trim().equalsIgnoreCase(SslConfig.SSL);
      }
    }
    return false;
  }

  /**
   * Reads the key and trust material of every TLS listener and of the replica fetcher; throws a
   * {@link ConfigException} naming the key when a file is missing or unreadable or a password is
   * wrong, so a node fails at start rather than at its first handshake.
   */
  public static Contexts contexts(Config c) {
    SslSettings s = SSL.read(c);
    boolean spool = isTls(c, SPOOL);
    boolean kafka = isTls(c, KAFKA) && !c.get(BrokerConfig.KAFKA_LISTENER).isEmpty();
    SslContext server = spool || kafka ? SslContexts.server(s) : null;
    return new Contexts(
        spool ? server : null,
        kafka ? server : null,
        spool ? SslContexts.client(s) : null,
        s.clientAuth());
  }

  private static String validMap(List<String> entries) {
    for (String e : entries) {
      int colon = e.indexOf(':');
      if (colon < 0) {
        return "has '" + e + "', not NAME:PROTOCOL";
      }
      String name = e.substring(0, colon).trim().toUpperCase(Locale.ROOT);
      String protocol = e.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
      if (!name.equals(SPOOL) && !name.equals(KAFKA)) {
        return "names listener '" + name + "' (listeners: SPOOL, KAFKA)";
      }
      if (protocol.startsWith("SASL")) {
        return "asks for "
            + protocol
            + " on "
            + name
            + ": SASL is not supported yet (PLAINTEXT, SSL)";
      }
      if (!protocol.equals(SslConfig.PLAINTEXT) && !protocol.equals(SslConfig.SSL)) {
        return "has protocol '" + protocol + "' for " + name + " (protocols: PLAINTEXT, SSL)";
      }
    }
    return null;
  }
}
