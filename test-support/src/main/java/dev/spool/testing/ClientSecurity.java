package dev.spool.testing;

import dev.spool.broker.SecurityConfig;
import dev.spool.config.ConfigDef;
import dev.spool.node.NodeConfig;
import dev.spool.security.SslConfig;
import dev.spool.security.SslContexts;
import io.netty.handler.ssl.JdkSslContext;
import java.util.LinkedHashMap;
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

  /** The client properties for a cluster whose nodes run with {@code nodeProps}; empty if plain. */
  public static Map<String, String> fromNodeConfig(Map<String, String> nodeProps) {
    Map<String, String> client = new LinkedHashMap<>();
    if (!SecurityConfig.isTls(NodeConfig.parse(withRequired(nodeProps)), SecurityConfig.SPOOL)) {
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

  /** A socket factory for raw connections with the TLS settings of {@code clientProps}, or null. */
  public static SSLSocketFactory socketFactory(Map<String, String> clientProps) {
    if (!SslConfig.SSL.equals(clientProps.get("security.protocol"))) {
      return null;
    }
    ConfigDef def = new ConfigDef("client-tls");
    SslConfig keys = SslConfig.define(def, false);
    Map<String, String> ssl = new LinkedHashMap<>(clientProps);
    ssl.remove("security.protocol");
    JdkSslContext ctx = (JdkSslContext) SslContexts.client(keys.read(def.parse(ssl)));
    return ctx.context().getSocketFactory();
  }

  /** Node properties complete enough to parse: only the security keys are read from them. */
  private static Map<String, String> withRequired(Map<String, String> nodeProps) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:1");
    p.putAll(nodeProps);
    return p;
  }
}
