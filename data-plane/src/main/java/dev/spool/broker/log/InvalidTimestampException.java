package dev.spool.broker.log;

/**
 * A CreateTime record timestamp outside message.timestamp.before.max.ms / after.max.ms of the
 * broker's clock.
 */
public class InvalidTimestampException extends RuntimeException {
  public InvalidTimestampException(String message) {
    super(message);
  }

  public InvalidTimestampException(String message, Throwable cause) {
    super(message, cause);
  }
}
