package dev.spool.broker.log;

/**
 * An idempotent batch from a producer epoch older than the one this partition knows: a fenced
 * (zombie) producer.
 */
public class InvalidProducerEpochException extends RuntimeException {
  public InvalidProducerEpochException(String message) {
    super(message);
  }

  public InvalidProducerEpochException(String message, Throwable cause) {
    super(message, cause);
  }
}
