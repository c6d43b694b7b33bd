package dev.spool.chaos.history;

import java.util.Set;

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
 *   <li>no earlier attempt of the same send may have reached a broker. The producer retries;
 *       once any attempt timed out or lost its connection, an earlier copy may be in some log and
 *       a later definite refusal proves nothing about it.
 * </ol>
 *
 * <p>Everything else is {@code info}: {@code REQUEST_TIMED_OUT}, connection loss, {@code
 * DUPLICATE_SEQUENCE} (the broker says an earlier copy exists, but we were not told its offset),
 * unknown codes, and exceptions. Jepsen's Kafka client draws the same line: only errors that
 * prove the broker rejected the request are {@code :fail}, the rest {@code :info}.
 */
public final class SendErrors {
  /** Client-side refusal before any byte was sent (buffer full, closed producer, bad record). */
  public static final String NOT_SENT = "NOT_SENT";

  /** Error codes (names of the client's ErrorCode enum) that prove nothing was appended. */
  public static final Set<String> DEFINITE_BROKER_ERRORS =
      Set.of(
          "NOT_LEADER_OR_FOLLOWER",
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
  public static boolean isDefiniteFailure(String finalError, boolean anEarlierAttemptMayHaveArrived) {
    if (anEarlierAttemptMayHaveArrived) {
      return false;
    }
    return NOT_SENT.equals(finalError) || DEFINITE_BROKER_ERRORS.contains(finalError);
  }

  /** {@link OpType#FAIL} or {@link OpType#INFO} for a send that ended with {@code finalError}. */
  public static OpType classify(String finalError, boolean anEarlierAttemptMayHaveArrived) {
    return isDefiniteFailure(finalError, anEarlierAttemptMayHaveArrived) ? OpType.FAIL : OpType.INFO;
  }
}
