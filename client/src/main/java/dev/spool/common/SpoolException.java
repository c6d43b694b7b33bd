package dev.spool.common;

/**
 * An error with a protocol {@link ErrorCode}: what every Spool API reports. {@link #retriable()}
 * and {@link #refreshesMetadata()} tell whether retrying (after refreshing metadata) can help.
 */
public class SpoolException extends RuntimeException {
  private final ErrorCode errorCode;

  public SpoolException(ErrorCode errorCode, String message) {
    super(errorCode.name() + (message == null || message.isEmpty() ? "" : ": " + message));
    this.errorCode = errorCode;
  }

  public SpoolException(ErrorCode errorCode, String message, Throwable cause) {
    this(errorCode, message);
    initCause(cause);
  }

  /** A copy of {@code original} (same code and message) with {@code original} as its cause. */
  protected SpoolException(SpoolException original) {
    super(original.getMessage(), original);
    this.errorCode = original.errorCode;
  }

  public ErrorCode errorCode() {
    return errorCode;
  }

  public boolean retriable() {
    return Errors.retriable(errorCode);
  }

  public boolean refreshesMetadata() {
    return Errors.refreshesMetadata(errorCode);
  }
}
