package dev.spool.quorum.ratis;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.quorum.message.ControllerReply;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.GroupMismatchException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.StateMachineException;

/**
 * Carries an {@link ErrorCode} through Ratis' exception channel. A request refused before it is
 * logged becomes a {@link StateMachineException} whose message starts with {@code "SPOOL:<code>:"};
 * the client turns it back into a {@link SpoolException}. Every other failure of the Ratis client
 * maps to a code here too.
 */
final class Replies {
  private static final String PREFIX = "SPOOL:";

  private Replies() {}

  static StateMachineException refusal(ErrorCode code, String message) {
    return new StateMachineException(PREFIX + code.name() + ":" + message);
  }

  /**
   * The {@link ControllerReply} of a Ratis reply; a failed Ratis reply or a request-level error
   * code becomes a {@link SpoolException}.
   */
  static ControllerReply controllerReply(RaftClientReply r) {
    if (!r.isSuccess()) {
      throw toSpoolException(r.getException());
    }
    ControllerReply reply;
    try {
      reply = ControllerReply.parseFrom(r.getMessage().getContent().asReadOnlyByteBuffer());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new SpoolException(ErrorCode.UNKNOWN_SERVER_ERROR, "unreadable controller reply", e);
    }
    if (reply.getErrorCode() != ErrorCode.NONE) {
      throw new SpoolException(reply.getErrorCode(), reply.getErrorMessage());
    }
    return reply;
  }

  /** The SpoolException for any failure of a Ratis client call. */
  static SpoolException toSpoolException(Throwable t) {
    Throwable e = unwrap(t);
    if (e instanceof SpoolException se) {
      return se;
    }
    if (e instanceof StateMachineException sme) {
      String m = findPrefixed(sme);
      if (m != null) {
        int colon = m.indexOf(':', PREFIX.length());
        if (colon > 0) {
          try {
            ErrorCode code = ErrorCode.valueOf(m.substring(PREFIX.length(), colon));
            return new SpoolException(code, m.substring(colon + 1));
          } catch (IllegalArgumentException ignored) {
            // fall through: an unknown code from a newer controller
          }
        }
      }
      return new SpoolException(ErrorCode.UNKNOWN_SERVER_ERROR, sme.getMessage(), sme);
    }
    if (e instanceof TimeoutException) {
      return new SpoolException(
          ErrorCode.QUORUM_UNAVAILABLE, "the metadata quorum did not answer in time", e);
    }
    if (e instanceof NotLeaderException) {
      return new SpoolException(ErrorCode.NOT_CONTROLLER, e.getMessage(), e);
    }
    if (e instanceof GroupMismatchException) {
      return new SpoolException(
          ErrorCode.INVALID_REQUEST,
          "the quorum belongs to another cluster id: " + e.getMessage(),
          e);
    }
    if (e instanceof AlreadyClosedException) {
      return new SpoolException(ErrorCode.QUORUM_UNAVAILABLE, e.getMessage(), e);
    }
    return new SpoolException(ErrorCode.QUORUM_UNAVAILABLE, String.valueOf(e), e);
  }

  private static String findPrefixed(Throwable t) {
    for (Throwable x = t; x != null; x = x.getCause()) {
      String m = x.getMessage();
      if (m != null) {
        int i = m.indexOf(PREFIX);
        if (i >= 0) {
          return m.substring(i);
        }
      }
    }
    return null;
  }

  static Throwable unwrap(Throwable t) {
    Throwable e = t;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
