package dev.spool.broker.log;

/**
 * An idempotent batch whose first sequence does not follow the producer's last one (or is not 0 on
 * a new epoch).
 */
public class OutOfOrderSequenceException extends RuntimeException {
  public OutOfOrderSequenceException(String message) {
    super(message);
  }

  public OutOfOrderSequenceException(String message, Throwable cause) {
    super(message, cause);
  }
}
