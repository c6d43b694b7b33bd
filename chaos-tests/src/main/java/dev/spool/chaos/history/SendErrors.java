package dev.spool.chaos.history;

import dev.spool.client.ProduceException;
import dev.spool.common.SpoolException;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * How the workload turns the end of a send into {@code fail} (definitely not written) or {@code
 * info} (maybe written). Getting this wrong in the unsafe direction makes the aborted-read checker
 * cry wolf; getting it wrong in the safe direction only loses checking power, so anything not
 * listed here is indeterminate.
 *
 * <p>A send is a definite failure only if both hold:
 *
 * <ol>
 *   <li>the final answer is a broker error code that the broker returns <em>before</em> appending
 *       anything (the request was refused whole: wrong leader, fenced epoch, ISR too small, a bad
 *       or oversized batch), or a client-side refusal before any byte left the client ({@link
 *       #NOT_SENT}); and
 *   <li>no earlier attempt of the same send may have reached a broker. The producer retries; once
 *       any attempt timed out or lost its connection, an earlier copy may be in some log and a
 *       later definite refusal proves nothing about it.
 * </ol>
 *
 * <p>Everything else is {@code info}: {@code REQUEST_TIMED_OUT}, connection loss, {@code
 * DUPLICATE_SEQUENCE} (the broker says an earlier copy exists, but we were not told its offset),
 * unknown codes, and exceptions. Jepsen's Kafka client draws the same line: only errors that prove
 * the broker rejected the request are {@code :fail}, the rest {@code :info}.
 *
 * <p>{@code NOT_LEADER_OR_FOLLOWER} is <em>not</em> a proof with acks=all: a leader that loses its
 * leadership answers it to the produces that were appended and are waiting for replication (as
 * Kafka does), and such a record may survive on the next leader. The producer retries internally,
 * so in practice the workload asks the client instead ({@link #classify(Throwable)}): its {@link
 * ProduceException} tracks every attempt and says whether any may have been appended.
 */
public final class SendErrors {
  /** Client-side refusal before any byte was sent (buffer full, closed producer, bad record). */
  public static final String NOT_SENT = "NOT_SENT";

  /**
   * Error codes (names of the client's ErrorCode enum) that prove nothing was appended, whatever
   * the acks. NOT_LEADER_OR_FOLLOWER proves it only for acks 0 and 1 (see the class doc).
   */
  public static final Set<String> DEFINITE_BROKER_ERRORS =
      Set.of(
          "FENCED_LEADER_EPOCH",
          "UNKNOWN_TOPIC_OR_PARTITION",
          "NOT_ENOUGH_REPLICAS",
          "CORRUPT_MESSAGE",
          "MESSAGE_TOO_LARGE",
          "INVALID_REQUEST",
          "OUT_OF_ORDER_SEQUENCE");

  private SendErrors() {}

  /**
   * @param finalError the error code name (or {@link #NOT_SENT}) that ended the send
   * @param anEarlierAttemptMayHaveArrived true if any earlier attempt of this send timed out, lost
   *     its connection or otherwise ended without a definite answer
   */
  public static boolean isDefiniteFailure(
      String finalError, boolean anEarlierAttemptMayHaveArrived) {
    if (anEarlierAttemptMayHaveArrived) {
      return false;
    }
    return NOT_SENT.equals(finalError) || DEFINITE_BROKER_ERRORS.contains(finalError);
  }

  /**
   * The completion of a send whose future failed with {@code error}: {@link OpType#FAIL} only for a
   * {@link ProduceException} that says no attempt may have been appended; anything else (another
   * exception, a timeout of our own wait) is {@link OpType#INFO}.
   */
  public static OpType classify(Throwable error) {
    Throwable t = unwrap(error);
    return t instanceof ProduceException pe && !pe.mayHaveBeenAppended()
        ? OpType.FAIL
        : OpType.INFO;
  }

  /**
   * The text recorded as the op's error: the error code name when there is one, else the exception.
   */
  public static String describe(Throwable error) {
    Throwable t = unwrap(error);
    if (t instanceof SpoolException se) {
      return se.errorCode().name();
    }
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  /** The cause behind any {@link ExecutionException} and {@link CompletionException} wrappers. */
  public static Throwable unwrap(Throwable error) {
    Throwable t = error;
    while ((t instanceof ExecutionException || t instanceof CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** {@link OpType#FAIL} or {@link OpType#INFO} for a send that ended with {@code finalError}. */
  public static OpType classify(String finalError, boolean anEarlierAttemptMayHaveArrived) {
    return isDefiniteFailure(finalError, anEarlierAttemptMayHaveArrived)
        ? OpType.FAIL
        : OpType.INFO;
  }
}
