package dev.spool.client.internal;

import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigKey;
import dev.spool.network.NetworkConfig;
import dev.spool.network.SaslCredentials;
import dev.spool.network.tls.SslConfig;
import dev.spool.network.tls.SslSettings;
import java.util.List;

/**
 * The keys every client (producer, consumer, admin) has, with Kafka's names and defaults. Each
 * client's config class defines its own instance on its own {@link ConfigDef} (keys belong to one
 * definition).
 */
public record CommonClientConfig(
    ConfigKey<List<String>> bootstrapServers,
    ConfigKey<String> clientId,
    ConfigKey<Long> requestTimeoutMs,
    ConfigKey<Long> retryBackoffMs,
    ConfigKey<Long> retryBackoffMaxMs,
    ConfigKey<Long> reconnectBackoffMs,
    ConfigKey<Long> reconnectBackoffMaxMs,
    ConfigKey<Long> connectionSetupTimeoutMs,
    ConfigKey<Long> deadConnectionTimeoutMs,
    ConfigKey<Long> metadataMaxAgeMs,
    ConfigKey<String> securityProtocol,
    SslConfig ssl,
    ConfigKey<String> saslMechanism,
    ConfigKey<String> saslJaasConfig) {

  /** SASL over plaintext (Kafka's name). */
  public static final String SASL_PLAINTEXT = "SASL_PLAINTEXT";

  /** SASL over TLS (Kafka's name). */
  public static final String SASL_SSL = "SASL_SSL";

  /** The common values of one parsed client config. */
  public record Values(
      String bootstrapServers,
      String clientId,
      long requestTimeoutMs,
      long retryBackoffMs,
      long retryBackoffMaxMs,
      long reconnectBackoffMs,
      long reconnectBackoffMaxMs,
      long connectionSetupTimeoutMs,
      long deadConnectionTimeoutMs,
      long metadataMaxAgeMs,
      boolean tls,
      SslSettings ssl,
      SaslCredentials sasl) {}

  public Values read(Config config) {
    return new Values(
        String.join(",", config.get(bootstrapServers)),
        config.get(clientId),
        config.get(requestTimeoutMs),
        config.get(retryBackoffMs),
        Math.max(config.get(retryBackoffMs), config.get(retryBackoffMaxMs)),
        config.get(reconnectBackoffMs),
        Math.max(config.get(reconnectBackoffMs), config.get(reconnectBackoffMaxMs)),
        config.get(connectionSetupTimeoutMs),
        config.get(deadConnectionTimeoutMs),
        config.get(metadataMaxAgeMs),
        isTls(config.get(securityProtocol)),
        ssl.read(config),
        sasl(config));
  }

  private static boolean isTls(String protocol) {
    return protocol.equals(SslConfig.SSL) || protocol.equals(SASL_SSL);
  }

  /** The SASL login of SASL_PLAINTEXT and SASL_SSL; null otherwise. */
  private SaslCredentials sasl(Config config) {
    String protocol = config.get(securityProtocol);
    if (!protocol.equals(SASL_PLAINTEXT) && !protocol.equals(SASL_SSL)) {
      return null;
    }
    return SaslCredentials.parse(
        saslMechanism.name(),
        config.get(saslMechanism),
        saslJaasConfig.name(),
        config.get(saslJaasConfig));
  }

  public static CommonClientConfig define(ConfigDef def, long requestTimeoutDefaultMs) {
    return new CommonClientConfig(
        def.listKey(
            "bootstrap.servers",
            null,
            v -> v.isEmpty() ? "must name at least one host:port" : null,
            "Comma-separated host:port list of brokers to learn the cluster from (any subset works)."),
        def.stringKey(
            "client.id",
            "",
            null,
            "A name sent with every request, to find this client in broker logs."),
        def.longKey(
            "request.timeout.ms",
            requestTimeoutDefaultMs,
            ConfigKey.atLeast(1L),
            "How long to wait for the answer to one request before failing it (and the connection)."),
        def.longKey(
            "retry.backoff.ms",
            100L,
            ConfigKey.atLeast(0L),
            "First wait before retrying a failed request; doubles per attempt, with ±20% jitter."),
        def.longKey(
            "retry.backoff.max.ms",
            1000L,
            ConfigKey.atLeast(0L),
            "Cap of the exponential retry wait."),
        def.longKey(
            "reconnect.backoff.ms",
            NetworkConfig.DEFAULT_RECONNECT_BACKOFF_MS,
            ConfigKey.atLeast(0L),
            "First wait before reconnecting to a broker after a connection failure; doubles per failure."),
        def.longKey(
            "reconnect.backoff.max.ms",
            NetworkConfig.DEFAULT_RECONNECT_BACKOFF_MAX_MS,
            ConfigKey.atLeast(0L),
            "Cap of the exponential reconnect wait."),
        def.longKey(
            "socket.connection.setup.timeout.ms",
            NetworkConfig.DEFAULT_CONNECT_TIMEOUT_MS,
            ConfigKey.atLeast(1L),
            "How long a TCP connect plus the ApiVersions handshake may take."),
        def.longKey(
            "socket.dead.connection.timeout.ms",
            NetworkConfig.DEFAULT_DEAD_CONNECTION_TIMEOUT_MS,
            ConfigKey.between(0L, (long) Integer.MAX_VALUE),
            "A connection to a broker that stops acknowledging (sent data, or keepalive probes"
                + " while an answer is awaited) for this long is closed by the kernel, and its"
                + " requests fail over at once instead of at request.timeout.ms: a broker cut off by"
                + " the network. A slow or paused broker still acknowledges. 0 keeps the OS"
                + " defaults (minutes)."),
        def.longKey(
            "metadata.max.age.ms",
            300_000L,
            ConfigKey.atLeast(0L),
            "Refresh cluster metadata at least this often even without errors."),
        def.stringKey(
            "security.protocol",
            SslConfig.PLAINTEXT,
            ConfigKey.oneOf(SslConfig.PLAINTEXT, SslConfig.SSL, SASL_PLAINTEXT, SASL_SSL),
            "PLAINTEXT; SSL: TLS to every broker, with the ssl.* keys (the brokers' listener must"
                + " be SSL too); SASL_SSL and SASL_PLAINTEXT: a SASL login (sasl.mechanism,"
                + " sasl.jaas.config) on every connection, over TLS or not."),
        SslConfig.define(def, false),
        def.stringKey(
            "sasl.mechanism",
            SaslCredentials.DEFAULT_MECHANISM,
            ConfigKey.oneOf(SaslCredentials.MECHANISMS.toArray(new String[0])),
            "With SASL_*: SCRAM-SHA-512 (the default; Kafka's is GSSAPI, which Spool does not"
                + " have), SCRAM-SHA-256 or PLAIN (the password travels in clear: SASL_SSL only)."),
        def.passwordKey(
            "sasl.jaas.config",
            "With SASL_*: Kafka's JAAS line, org.apache.kafka.common.security.scram.ScramLoginModule"
                + " (PlainLoginModule for PLAIN) required username=\"alice\""
                + " password=\"...\";"));
  }
}
