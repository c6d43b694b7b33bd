package dev.spool.broker.security;

/**
 * The server side of one SASL exchange: tokens in, tokens out, until {@link #isComplete}. One
 * instance per authentication attempt.
 *
 * <p>Threads: owned by one connection's event loop.
 */
public interface SaslServer {
  /** The next challenge for the client's {@code response}; throws when authentication fails. */
  byte[] evaluate(byte[] response) throws SaslFailure;

  /** True once the client is authenticated. */
  boolean isComplete();

  /** The authenticated user name; only when {@link #isComplete}. */
  String user();
}
