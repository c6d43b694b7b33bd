package dev.spool.quorum;

/**
 * Who may make calls on the metadata quorum's port once its mutual TLS handshake has completed: the
 * handshake proves a certificate signed by a CA of the truststore, which may also sign users'
 * client certificates; with an authorizer, only the cluster's own principals (super users) may
 * write metadata, vote, replicate the metadata log or make Ratis admin calls
 * (docs/security.md#tls-on-the-quorum). Implementations are pure and thread-safe.
 */
@FunctionalInterface
public interface QuorumAdmission {
  /** Every peer the handshake admitted (no authorizer). */
  QuorumAdmission EVERY_MEMBER = subject -> null;

  /**
   * Null when the peer whose certificate has {@code subject} (RFC 2253) may make calls, else why
   * not (one phrase naming its principal, for the refusal and the log line).
   */
  String refusal(String subject);
}
