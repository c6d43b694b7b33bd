package dev.spool.broker.request;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import java.util.concurrent.CompletionException;

/** Maps a failed call to the quorum onto the error code an admin answer carries. */
final class AdminForwarding {
  private AdminForwarding() {}

  record Failure(ErrorCode code, String message) {}

  static Failure failure(Throwable err) {
    Throwable c =
        err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
    if (c instanceof SpoolException se) {
      return new Failure(se.errorCode(), "metadata quorum: " + se.getMessage());
    }
    return new Failure(ErrorCode.QUORUM_UNAVAILABLE, "metadata quorum did not answer: " + c);
  }
}
