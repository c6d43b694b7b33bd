package dev.spool.broker.log;

/**
 * A partition that could not be opened at startup (unreadable directory, invalid files that
 * recovery cannot repair). Other partitions open regardless.
 */
public class LogRecoveryException extends RuntimeException {
  public LogRecoveryException(String message) {
    super(message);
  }

  public LogRecoveryException(String message, Throwable cause) {
    super(message, cause);
  }
}
