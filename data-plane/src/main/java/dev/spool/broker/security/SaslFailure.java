package dev.spool.broker.security;

/**
 * Authentication failed: a wrong password, an unknown user or a malformed exchange. The message is
 * what the client is told (the same words for an unknown user and a wrong password, so an answer
 * does not tell which user names exist); {@link #detail} is for the broker's own log line.
 */
public final class SaslFailure extends Exception {
  private static final long serialVersionUID = 1L;

  private final String detail;

  public SaslFailure(String message, String detail) {
    super(message);
    this.detail = detail;
  }

  /** What went wrong, for the broker's log (may name the user; never a password). */
  public String detail() {
    return detail;
  }
}
