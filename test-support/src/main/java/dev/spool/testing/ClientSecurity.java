package dev.spool.testing;

import dev.spool.config.ConfigDef;
import dev.spool.network.tls.SslConfig;
import dev.spool.network.tls.SslContexts;
import dev.spool.network.tls.SslSettings;
import io.netty.handler.ssl.JdkSslContext;
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
    if (!spoolListenerIsTls(nodeProps.getOrDefault("listener.security.protocol.map", ""))) {
      return client;
    }
    client.put("security.protocol", SslConfig.SSL);
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

  /** A socket factory for raw connections with the TLS settings of {@code clientProps}, or null. */
  public static SSLSocketFactory socketFactory(Map<String, String> clientProps) {
    if (!SslConfig.SSL.equals(clientProps.get("security.protocol"))) {
      return null;
    }
    ConfigDef def = new ConfigDef("client-tls");
    SslConfig keys = SslConfig.define(def, false);
    Map<String, String> ssl = new LinkedHashMap<>(clientProps);
    ssl.remove("security.protocol");
    ssl.put("ssl.engine", SslSettings.JDK); // a javax.net.ssl socket factory is the JDK's engine
    JdkSslContext ctx = (JdkSslContext) SslContexts.client(keys.read(def.parse(ssl)));
    return ctx.context().getSocketFactory();
  }
}
