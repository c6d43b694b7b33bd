package dev.spool.broker.request;

import dev.spool.broker.replication.ExceptionCodes;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;

/** Maps a failed call to the quorum onto the error code an admin answer carries. */
final class AdminForwarding {
  private AdminForwarding() {}

  record Failure(ErrorCode code, String message) {}

  static Failure failure(Throwable err) {
    Throwable c = ExceptionCodes.unwrap(err);
    return new Failure(
        ExceptionCodes.ofQuorumCall(c),
        c instanceof SpoolException
            ? "metadata quorum: " + c.getMessage()
            : "metadata quorum did not answer: " + c);
  }
}
