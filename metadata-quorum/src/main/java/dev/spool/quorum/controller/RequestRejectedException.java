package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;

/**
 * A request refused before anything is logged (malformed, oversize, not for this controller). The
 * Ratis layer turns it into a failed reply carrying {@link #errorCode()}.
 */
public final class RequestRejectedException extends Exception {
  private final ErrorCode errorCode;

  public RequestRejectedException(ErrorCode errorCode, String message) {
    super(message);
    this.errorCode = errorCode;
  }

  public ErrorCode errorCode() {
    return errorCode;
  }
}
