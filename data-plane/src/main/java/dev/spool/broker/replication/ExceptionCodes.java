package dev.spool.broker.replication;

import dev.spool.broker.log.InvalidProducerEpochException;
import dev.spool.broker.log.InvalidTimestampException;
import dev.spool.broker.log.LogStorageException;
import dev.spool.broker.log.OffsetOutOfRangeException;
import dev.spool.broker.log.OutOfOrderSequenceException;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.InvalidRecordException;
import dev.spool.record.RecordTooLargeException;
import dev.spool.record.UnsupportedCompressionException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * The one table from the broker's exceptions to the error codes its answers carry: the log's
 * refusals of a batch, storage failures, offsets out of range, and a {@link SpoolException}'s own
 * code. Every place in the broker that answers a failure with a code asks here, so the same failure
 * gets the same code on every path (produce, fetch, ListOffsets, OffsetForLeaderEpoch, ISR changes,
 * admin forwarding). Anything the table does not name is a bug or an unexpected state:
 * UNKNOWN_SERVER_ERROR.
 *
 * <p>Threads: stateless; any thread.
 */
public final class ExceptionCodes {
  private ExceptionCodes() {}

  /** Checked in order (first match wins), so a subclass must come before its superclass. */
  private static final List<Map.Entry<Class<? extends Throwable>, ErrorCode>> TABLE =
      List.of(
          Map.entry(UnsupportedCompressionException.class, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE),
          Map.entry(CorruptRecordException.class, ErrorCode.CORRUPT_MESSAGE),
          Map.entry(RecordTooLargeException.class, ErrorCode.MESSAGE_TOO_LARGE),
          Map.entry(InvalidTimestampException.class, ErrorCode.INVALID_TIMESTAMP),
          Map.entry(InvalidProducerEpochException.class, ErrorCode.INVALID_PRODUCER_EPOCH),
          Map.entry(OutOfOrderSequenceException.class, ErrorCode.OUT_OF_ORDER_SEQUENCE),
          Map.entry(InvalidRecordException.class, ErrorCode.INVALID_RECORD),
          Map.entry(LogStorageException.class, ErrorCode.STORAGE_ERROR),
          Map.entry(OffsetOutOfRangeException.class, ErrorCode.OFFSET_OUT_OF_RANGE));

  /** The code for a failure of this broker's own work (a log operation, a partition task). */
  public static ErrorCode of(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof SpoolException se) {
      return se.errorCode();
    }
    for (Map.Entry<Class<? extends Throwable>, ErrorCode> e : TABLE) {
      if (e.getKey().isInstance(t)) {
        return e.getValue();
      }
    }
    return ErrorCode.UNKNOWN_SERVER_ERROR;
  }

  /**
   * The code for a failed call to the metadata quorum: the quorum's own code when it gave one,
   * QUORUM_UNAVAILABLE when the call failed without an answer (timeout, no leader, connection).
   */
  public static ErrorCode ofQuorumCall(Throwable failure) {
    return unwrap(failure) instanceof SpoolException se
        ? se.errorCode()
        : ErrorCode.QUORUM_UNAVAILABLE;
  }

  /** The failure inside a {@link CompletionException} (what a future's callback receives). */
  public static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }
}
