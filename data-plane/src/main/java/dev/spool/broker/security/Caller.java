package dev.spool.broker.security;

import dev.spool.common.AclBinding;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Who sent a request, as the authorizer sees it (docs/security.md#acls): the principal ({@code
 * User:ANONYMOUS} when the connection did not authenticate, {@code User:<SASL user>} after SASL,
 * {@code User:<certificate subject>} with mutual TLS) and the address it came from.
 *
 * @param principal {@code Type:name}
 * @param host the client's IP address as text, "" when unknown
 * @param connection the connection's id, for audit lines
 */
public record Caller(String principal, String host, String connection) {

  /** A caller from {@code remote} with {@code principal} (null: anonymous). */
  public static Caller of(String principal, SocketAddress remote) {
    String host = "";
    if (remote instanceof InetSocketAddress a && a.getAddress() != null) {
      host = a.getAddress().getHostAddress();
    }
    return new Caller(
        principal == null ? AclBinding.ANONYMOUS : principal, host, String.valueOf(remote));
  }

  @Override
  public String toString() {
    return principal + " from " + (host.isEmpty() ? "?" : host);
  }
}
