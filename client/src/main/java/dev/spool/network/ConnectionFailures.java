package dev.spool.network;

import javax.net.ssl.SSLException;

/**
 * How a connection's failure is told to the application: which TLS keys to check when the handshake
 * failed, else the cause's message. Stateless.
 */
final class ConnectionFailures {
  private ConnectionFailures() {}

  /**
   * "{@code what} failed: cause", or, when TLS refused the connection, which keys to check: a
   * failed handshake is a configuration problem, not a broker that is away.
   */
  static String failure(String what, Node node, Throwable t) {
    Throwable tls = t != null && t.getCause() instanceof SSLException ? t.getCause() : t;
    if (tls instanceof SSLException) {
      return "TLS handshake with "
          + node
          + " failed (check ssl.truststore.*, ssl.keystore.* and"
          + " ssl.endpoint.identification.algorithm): "
          + rootCause(tls);
    }
    return what + " failed: " + describe(t);
  }

  /** The innermost cause, named: OpenSSL wraps what the trust manager said in a vague problem. */
  static String rootCause(Throwable t) {
    Throwable root = t;
    for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 10; depth++) {
      root = root.getCause();
    }
    return root == t ? describe(t) : root.getClass().getSimpleName() + ": " + describe(root);
  }

  static String describe(Throwable t) {
    if (t == null) {
      return "unknown cause";
    }
    String m = t.getMessage();
    return m == null ? t.getClass().getSimpleName() : m;
  }
}
