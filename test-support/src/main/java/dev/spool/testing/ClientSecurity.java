package dev.spool.testing;

import dev.spool.config.ConfigDef;
import dev.spool.network.SaslCredentials;
import dev.spool.network.tls.SslConfig;
import dev.spool.network.tls.SslContexts;
import dev.spool.network.tls.SslSettings;
import io.netty.handler.ssl.JdkSslContext;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLSocketFactory;

/**
 * How a test harness's own clients (the shared admin client, the cluster probes) reach brokers
 * whose Spool listener speaks TLS: the client keys ({@code security.protocol=SSL} and the nodes'
 * {@code ssl.*} key and trust material, which also serve as a client certificate where the brokers
 * require one). Stateless.
 */
public final class ClientSecurity {
  private ClientSecurity() {}

  /**
   * The client keys that reach nodes running with {@code nodeProps}: security.protocol=SSL and the
   * nodes' own ssl.* keys (their certificate serves as the harness's client certificate where one
   * is required) when {@code listener.security.protocol.map} makes the Spool listener ({@code
   * SPOOL}) speak TLS; empty otherwise. Read from the keys as an operator would, so the process
   * cluster needs nothing of the node's own config classes.
   */
  public static Map<String, String> forNodes(Map<String, String> nodeProps) {
    Map<String, String> client = new LinkedHashMap<>();
    String map = nodeProps.getOrDefault("listener.security.protocol.map", "");
    String sasl = spoolListenerSasl(map);
    if (sasl != null) {
      // the nodes' own login (sasl.jaas.config, the replica fetcher's) serves the harness too
      client.put("security.protocol", sasl);
      String mechanism = nodeProps.getOrDefault("sasl.mechanism.inter.broker.protocol", "");
      if (mechanism.isEmpty()) { // the node's default: the first SCRAM mechanism enabled
        mechanism =
            Arrays.stream(
                    nodeProps
                        .getOrDefault("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512")
                        .split(","))
                .map(String::trim)
                .filter(m -> m.startsWith("SCRAM-"))
                .findFirst()
                .orElse("PLAIN");
      }
      client.put("sasl.mechanism", mechanism);
      client.put("sasl.jaas.config", nodeProps.getOrDefault("sasl.jaas.config", ""));
    }
    if (!spoolListenerIsTls(map)) {
      return client;
    }
    client.putIfAbsent("security.protocol", SslConfig.SSL);
    nodeProps.forEach(
        (k, v) -> {
          if (k.startsWith("ssl.") && !k.equals("ssl.client.auth")) {
            client.put(k, v);
          }
        });
    return client;
  }

  /** Whether {@code map} (Kafka's {@code NAME:PROTOCOL,...}) maps SPOOL to SSL or SASL_SSL. */
  static boolean spoolListenerIsTls(String map) {
    for (String entry : map.split(",")) {
      String[] kv = entry.trim().split(":", 2);
      if (kv.length == 2 && kv[0].trim().equalsIgnoreCase("SPOOL")) {
        String protocol = kv[1].trim().toUpperCase(Locale.ROOT);
        return protocol.equals(SslConfig.SSL) || protocol.equals("SASL_SSL");
      }
    }
    return false;
  }

  /**
   * The SASL login of {@code clientProps} (security.protocol SASL_*, sasl.mechanism and
   * sasl.jaas.config) for raw connections, or null without SASL.
   */
  public static RawFrameClient.Login login(Map<String, String> clientProps) {
    String protocol = clientProps.getOrDefault("security.protocol", "");
    if (!protocol.startsWith("SASL_")) {
      return null;
    }
    SaslCredentials c =
        SaslCredentials.parse(
            "sasl.mechanism",
            clientProps.getOrDefault("sasl.mechanism", SaslCredentials.DEFAULT_MECHANISM),
            "sasl.jaas.config",
            clientProps.getOrDefault("sasl.jaas.config", ""));
    return new RawFrameClient.Login(c.mechanism(), c.username(), c.password());
  }

  /** SASL_PLAINTEXT or SASL_SSL when {@code map} maps SPOOL to one of them, else null. */
  static String spoolListenerSasl(String map) {
    for (String entry : map.split(",")) {
      String[] kv = entry.trim().split(":", 2);
      if (kv.length == 2 && kv[0].trim().equalsIgnoreCase("SPOOL")) {
        String protocol = kv[1].trim().toUpperCase(Locale.ROOT);
        return protocol.startsWith("SASL_") ? protocol : null;
      }
    }
    return null;
  }

  /** A socket factory for raw connections with the TLS settings of {@code clientProps}, or null. */
  public static SSLSocketFactory socketFactory(Map<String, String> clientProps) {
    String protocol = clientProps.get("security.protocol");
    if (!SslConfig.SSL.equals(protocol) && !"SASL_SSL".equals(protocol)) {
      return null;
    }
    ConfigDef def = new ConfigDef("client-tls");
    SslConfig keys = SslConfig.define(def, false);
    Map<String, String> ssl = new LinkedHashMap<>(clientProps);
    ssl.remove("security.protocol");
    ssl.keySet().removeIf(k -> k.startsWith("sasl."));
    ssl.put("ssl.engine", SslSettings.JDK); // a javax.net.ssl socket factory is the JDK's engine
    JdkSslContext ctx = (JdkSslContext) SslContexts.client(keys.read(def.parse(ssl)));
    return ctx.context().getSocketFactory();
  }
}
