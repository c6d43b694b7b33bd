package dev.spool.broker;

import dev.spool.broker.network.SslPrincipalMapper;
import dev.spool.broker.security.AuthorizerConfig;
import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigException;
import dev.spool.config.ConfigKey;
import dev.spool.network.SaslCredentials;
import dev.spool.network.tls.KeyMaterial;
import dev.spool.network.tls.SslConfig;
import dev.spool.network.tls.SslContexts;
import dev.spool.network.tls.SslSettings;
import dev.spool.quorum.QuorumAdmission;
import dev.spool.quorum.QuorumTls;
import io.netty.handler.ssl.SslContext;
import java.util.List;
import java.util.Locale;
import java.util.Set;

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

  /**
   * The metadata quorum's gRPC transport in {@code listener.security.protocol.map} (Kafka's name
   * for the controller listener): PLAINTEXT or SSL, always mutual.
   */
  public static final String CONTROLLER = "CONTROLLER";

  public static final ConfigKey<List<String>> LISTENER_SECURITY_PROTOCOL_MAP =
      DEF.listKey(
          "listener.security.protocol.map",
          List.of(SPOOL + ":" + SslConfig.PLAINTEXT, KAFKA + ":" + SslConfig.PLAINTEXT),
          SecurityConfig::validMap,
          "Security protocol of each listener, NAME:PROTOCOL: SPOOL (listener, also used for"
              + " replication) and KAFKA (kafka.listener) PLAINTEXT, SSL,"
              + " SASL_PLAINTEXT or SASL_SSL (SSL with the ssl.* keys, SASL with"
              + " sasl.enabled.mechanisms), CONTROLLER (the metadata quorum's port and every"
              + " node's and tool's connection to it) PLAINTEXT or SSL, always mutual TLS; a"
              + " listener not named is PLAINTEXT.");

  /** SASL over a plaintext connection (Kafka's name). */
  public static final String SASL_PLAINTEXT = "SASL_PLAINTEXT";

  /** SASL over TLS (Kafka's name). */
  public static final String SASL_SSL = "SASL_SSL";

  /** The SASL mechanisms the Kafka listener can offer. */
  public static final List<String> SASL_MECHANISMS =
      List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN");

  public static final ConfigKey<List<String>> SASL_ENABLED_MECHANISMS =
      DEF.listKey(
          "sasl.enabled.mechanisms",
          List.of("SCRAM-SHA-256", "SCRAM-SHA-512"),
          SecurityConfig::validMechanisms,
          "SASL mechanisms a SASL_PLAINTEXT or SASL_SSL listener offers: SCRAM-SHA-256,"
              + " SCRAM-SHA-512 and PLAIN (checked against the user's SCRAM credential; send it"
              + " over SASL_SSL only); credentials are managed with 'spool user'.");

  /** Kafka's default for {@link #SASL_SERVER_MAX_RECEIVE_SIZE}: 512 KiB. */
  public static final int DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE = 512 * 1024;

  public static final ConfigKey<Integer> SASL_SERVER_MAX_RECEIVE_SIZE =
      DEF.intKey(
          "sasl.server.max.receive.size",
          DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE,
          v -> v < 64 ? "must be at least 64 bytes" : null,
          "On a SASL listener, the largest frame taken from a connection that has not"
              + " authenticated yet; a larger one closes the connection before it is buffered.");

  public static final ConfigKey<Long> CONNECTION_FAILED_AUTHENTICATION_DELAY_MS =
      DEF.longKey(
          "connection.failed.authentication.delay.ms",
          100L,
          v -> v < 0 ? "must not be negative" : null,
          "On a SASL listener, how long the answer to a failed authentication and the close of"
              + " its connection wait, so a guessed password costs time (0: no wait).");

  public static final ConfigKey<String> SASL_MECHANISM_INTER_BROKER_PROTOCOL =
      DEF.stringKey(
          "sasl.mechanism.inter.broker.protocol",
          "",
          v ->
              v.isEmpty() || SASL_MECHANISMS.contains(v)
                  ? null
                  : "must be one of " + SASL_MECHANISMS,
          "With SPOOL:SASL_*, the mechanism a broker's replica fetcher logs in to its peers with;"
              + " empty (the default): the first SCRAM mechanism of sasl.enabled.mechanisms (Kafka's"
              + " default, GSSAPI, is not offered by Spool).");

  public static final ConfigKey<String> SASL_JAAS_CONFIG =
      DEF.passwordKey(
          "sasl.jaas.config",
          "With SPOOL:SASL_*, the credentials a broker's replica fetcher logs in to its peers with,"
              + " in Kafka's JAAS syntax: org.apache.kafka.common.security.scram.ScramLoginModule"
              + " required username=\"broker\" password=\"...\"; (the user needs CLUSTER_ACTION:"
              + " list it in super.users).");

  public static final SslConfig SSL = SslConfig.define(DEF, true);

  public static final ConfigKey<Long> SSL_RELOAD_INTERVAL_MS =
      DEF.longKey(
          "ssl.reload.interval.ms",
          10_000L,
          v -> v < 0 || (v > 0 && v < 100) ? "must be 0 (off) or at least 100" : null,
          "How often a node checks its ssl.keystore.location and ssl.truststore.location files"
              + " for new content; a changed file that loads is used by new TLS connections of"
              + " the listeners, of replication and of the metadata quorum (established ones keep"
              + " theirs), one that does"
              + " not is refused with one ERROR and the old material stays. 0: never.");

  public static final ConfigKey<String> SSL_PRINCIPAL_MAPPING_RULES =
      DEF.stringKey(
          "ssl.principal.mapping.rules",
          SslPrincipalMapper.DEFAULT_RULES,
          SecurityConfig::validMappingRules,
          "How a mutual-TLS client's principal is named from its certificate's subject (RFC 2253),"
              + " Kafka's rules, comma-separated, the first that applies wins: DEFAULT (the"
              + " subject as it is) or RULE:pattern/replacement/ with an optional L or U"
              + " (e.g. RULE:^CN=(.*?),OU=.*$/$1/L); a client no rule applies to is refused.");

  /**
   * The TLS contexts of a node: one per TLS listener (null when it is plaintext) and the replica
   * fetcher's client context (null when the Spool listener is plaintext), all on one {@code
   * material} (null when nothing speaks TLS), which the broker watches for new key material ({@link
   * #SSL_RELOAD_INTERVAL_MS}) and closes.
   */
  public record Contexts(
      SslContext spool,
      SslContext kafka,
      SslContext replication,
      String clientAuth,
      SslPrincipalMapper principalMapper,
      KeyMaterial material) {

    /**
     * Starts checking the key material's files every {@code ssl.reload.interval.ms} of {@code c}
     * (0: never) on a thread named {@code threadName}; returns the material to close, or null when
     * nothing speaks TLS.
     */
    public KeyMaterial watch(Config c, String threadName) {
      if (material != null) {
        material.watch(c.get(SSL_RELOAD_INTERVAL_MS), threadName);
      }
      return material;
    }
  }

  /** True when {@code listener} (SPOOL or KAFKA) speaks SSL (SSL or SASL_SSL). */
  public static boolean isTls(Config c, String listener) {
    String p = protocol(c, listener);
    return p.equals(SslConfig.SSL) || p.equals(SASL_SSL);
  }

  /** True when {@code listener} authenticates clients with SASL (SASL_PLAINTEXT or SASL_SSL). */
  public static boolean isSasl(Config c, String listener) {
    String p = protocol(c, listener);
    return p.equals(SASL_PLAINTEXT) || p.equals(SASL_SSL);
  }

  /** The listener's protocol, upper case; PLAINTEXT when the map does not name it. */
  public static String protocol(Config c, String listener) {
    for (String entry : c.get(LISTENER_SECURITY_PROTOCOL_MAP)) {
      int colon = entry.indexOf(':');
      if (entry.substring(0, colon).trim().equalsIgnoreCase(listener)) {
        return entry.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
      }
    }
    return SslConfig.PLAINTEXT;
  }

  /**
   * The login of the replica fetcher when the Spool listener is SASL_PLAINTEXT or SASL_SSL (the
   * peers' listeners, since every node uses the same map), else null: {@link #SASL_JAAS_CONFIG}
   * with {@link #SASL_MECHANISM_INTER_BROKER_PROTOCOL}. Throws a {@link ConfigException} naming the
   * key when the JAAS text is missing or malformed, or the mechanism is not enabled.
   */
  public static SaslCredentials replicationSasl(Config c) {
    if (!isSasl(c, SPOOL)) {
      return null;
    }
    List<String> enabled = c.get(SASL_ENABLED_MECHANISMS).stream().map(String::trim).toList();
    String mechanism = c.get(SASL_MECHANISM_INTER_BROKER_PROTOCOL);
    if (mechanism.isEmpty()) {
      mechanism =
          enabled.stream().filter(m -> m.startsWith("SCRAM-")).findFirst().orElse(enabled.get(0));
    } else if (!enabled.contains(mechanism)) {
      throw new ConfigException(
          SASL_MECHANISM_INTER_BROKER_PROTOCOL.name(),
          mechanism
              + " is not in sasl.enabled.mechanisms "
              + enabled
              + ": the peers' Spool listeners would refuse the replica fetcher's login");
    }
    if (c.get(SASL_JAAS_CONFIG).isBlank()) {
      throw new ConfigException(
          SASL_JAAS_CONFIG.name(),
          "must be set: listener.security.protocol.map has SPOOL:"
              + protocol(c, SPOOL)
              + ", and the replica fetcher logs in to the peers' Spool listeners with it ("
              + SaslCredentials.SCRAM_LOGIN_MODULE
              + " required username=\"...\" password=\"...\";)");
    }
    return SaslCredentials.parse(
        SASL_MECHANISM_INTER_BROKER_PROTOCOL.name(),
        mechanism,
        SASL_JAAS_CONFIG.name(),
        c.get(SASL_JAAS_CONFIG));
  }

  private static String validMappingRules(String rules) {
    try {
      SslPrincipalMapper.parse(rules);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private static String validMechanisms(List<String> mechanisms) {
    if (mechanisms.isEmpty()) {
      return "is empty (mechanisms: " + String.join(", ", SASL_MECHANISMS) + ")";
    }
    for (String m : mechanisms) {
      if (!SASL_MECHANISMS.contains(m.trim())) {
        return "has '"
            + m
            + "', not a mechanism Spool offers ("
            + String.join(", ", SASL_MECHANISMS)
            + ")";
      }
    }
    return null;
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
    KeyMaterial material = spool || kafka ? KeyMaterial.load(s) : null;
    SslContext server = material != null ? SslContexts.server(s, material) : null;
    return new Contexts(
        spool ? server : null,
        kafka ? server : null,
        spool ? SslContexts.client(s, material) : null,
        s.clientAuth(),
        SslPrincipalMapper.parse(c.get(SSL_PRINCIPAL_MAPPING_RULES)),
        material);
  }

  /**
   * The metadata quorum's mutual TLS material when {@code listener.security.protocol.map} has
   * {@code CONTROLLER:SSL}, else null (plaintext). Every node of the cluster (controllers, brokers)
   * and the {@code spool quorum} tool use it on every connection to the quorum. Both stores must be
   * set: the quorum trusts only the CAs of {@code ssl.truststore.location}, never the JDK's default
   * ones (a certificate from any public CA would otherwise be a member). Throws a {@link
   * ConfigException} naming the key when the material cannot be used.
   */
  public static QuorumTls quorumTls(Config c) {
    QuorumKeys k = quorumKeys(c);
    return k == null ? null : k.tls();
  }

  /**
   * The quorum's TLS material of a node ({@link #quorumTls}) with the key material behind it, or
   * null (plaintext). A node watches it ({@link QuorumKeys#watch}) as it watches its listeners'
   * material: the Raft server, its peers' connections and the node's quorum clients ask its
   * managers at every handshake, so a reload reaches every new quorum connection (gRPC keeps an
   * established channel; docs/security.md#tls-on-the-quorum).
   *
   * @param tls what Ratis is given
   * @param material the reloadable managers behind {@code tls}
   */
  public record QuorumKeys(QuorumTls tls, KeyMaterial material) implements AutoCloseable {
    /**
     * Starts checking the files every {@code ssl.reload.interval.ms} of {@code c} (0: never) on a
     * thread named {@code threadName}, until {@link #close}.
     */
    public QuorumKeys watch(Config c, String threadName) {
      material.watch(c.get(SSL_RELOAD_INTERVAL_MS), threadName);
      return this;
    }

    @Override
    public void close() {
      material.close();
    }
  }

  /**
   * Who a controller of node config {@code c} serves on the quorum's port: with an authorizer
   * ({@code authorizer.class.name}), only peers whose certificate subject names, through {@code
   * ssl.principal.mapping.rules}, a principal of {@code super.users} (the brokers and controllers;
   * a user's certificate signed by the same CA may not write metadata past the brokers' ACL checks,
   * vote or reconfigure the quorum); without one, every peer that completes the mutual handshake.
   */
  public static QuorumAdmission quorumAdmission(Config c) {
    if (c.get(AuthorizerConfig.AUTHORIZER_CLASS_NAME).isEmpty()) {
      return QuorumAdmission.EVERY_MEMBER;
    }
    Set<String> superUsers = AuthorizerConfig.superUsers(c.get(AuthorizerConfig.SUPER_USERS));
    SslPrincipalMapper mapper = SslPrincipalMapper.parse(c.get(SSL_PRINCIPAL_MAPPING_RULES));
    return subject -> {
      String name = mapper.name(subject);
      if (name == null) {
        return "no rule of ssl.principal.mapping.rules names the subject '" + subject + "'";
      }
      String principal = "User:" + name;
      return superUsers.contains(principal)
          ? null
          : principal + " (subject '" + subject + "') is not in super.users";
    };
  }

  /** As {@link #quorumTls}, with its key material; null under {@code CONTROLLER:PLAINTEXT}. */
  public static QuorumKeys quorumKeys(Config c) {
    if (!protocol(c, CONTROLLER).equals(SslConfig.SSL)) {
      return null;
    }
    SslSettings s = SSL.read(c);
    if (!s.hasKeystore()) {
      throw new ConfigException(
          "ssl.keystore.location",
          "must be set: the metadata quorum uses SSL (listener.security.protocol.map has"
              + " CONTROLLER:SSL), always mutual, and every node presents the certificate in this"
              + " keystore");
    }
    if (!s.hasTruststore()) {
      throw new ConfigException(
          "ssl.truststore.location",
          "must be set: the metadata quorum uses SSL (listener.security.protocol.map has"
              + " CONTROLLER:SSL) and accepts only certificates signed by the CAs in this"
              + " truststore, not by the JDK's default ones");
    }
    SslContexts.checkProtocols(s.enabledProtocols());
    KeyMaterial m = KeyMaterial.load(s);
    return new QuorumKeys(new QuorumTls(m.keyManager(), m.trustManager(), s.enabledProtocols()), m);
  }

  private static String validMap(List<String> entries) {
    for (String e : entries) {
      int colon = e.indexOf(':');
      if (colon < 0) {
        return "has '" + e + "', not NAME:PROTOCOL";
      }
      String name = e.substring(0, colon).trim().toUpperCase(Locale.ROOT);
      String protocol = e.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
      if (!name.equals(SPOOL) && !name.equals(KAFKA) && !name.equals(CONTROLLER)) {
        return "names listener '" + name + "' (listeners: SPOOL, KAFKA, CONTROLLER)";
      }
      boolean sasl = protocol.equals(SASL_PLAINTEXT) || protocol.equals(SASL_SSL);
      if (sasl && name.equals(CONTROLLER)) {
        return "asks for "
            + protocol
            + " on "
            + name
            + ": the metadata quorum authenticates with mutual TLS only (CONTROLLER: PLAINTEXT,"
            + " SSL)";
      }
      if (!sasl && !protocol.equals(SslConfig.PLAINTEXT) && !protocol.equals(SslConfig.SSL)) {
        return "has protocol '"
            + protocol
            + "' for "
            + name
            + " (protocols: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)";
      }
    }
    return null;
  }
}
