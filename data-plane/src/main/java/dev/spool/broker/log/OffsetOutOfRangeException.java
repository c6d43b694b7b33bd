package dev.spool.broker.log;

/** A read or lookup of an offset outside [log start offset, log end offset]. */
public class OffsetOutOfRangeException extends RuntimeException {
  public OffsetOutOfRangeException(String message) {
    super(message);
  }

  public OffsetOutOfRangeException(String message, Throwable cause) {
    super(message, cause);
  }
}
