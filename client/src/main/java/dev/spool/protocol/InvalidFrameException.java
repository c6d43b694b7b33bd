package dev.spool.protocol;

/**
 * A frame that cannot be parsed: negative or oversize length, inconsistent section lengths, an
 * unparsable header. The connection it came on is closed (one log line); no log is touched.
 */
public final class InvalidFrameException extends RuntimeException {
  public InvalidFrameException(String message) {
    super(message);
  }

  public InvalidFrameException(String message, Throwable cause) {
    super(message, cause);
  }
}
