package dev.spool.testing;

import dev.spool.config.ConfigDef;
import dev.spool.network.tls.SslConfig;
import dev.spool.network.tls.SslContexts;
import dev.spool.network.tls.SslSettings;
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
