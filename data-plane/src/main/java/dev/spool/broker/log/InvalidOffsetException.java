package dev.spool.broker.log;

/**
 * A follower append whose first base offset is not the log end offset, or whose batches are not
 * contiguous (a gap or an overlap). The log is unchanged.
 */
public class InvalidOffsetException extends RuntimeException {
  public InvalidOffsetException(String message) {
    super(message);
  }

  public InvalidOffsetException(String message, Throwable cause) {
    super(message, cause);
  }
}
