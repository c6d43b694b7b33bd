package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The broker's one table from exceptions to error codes. */
@Tag("unit")
class ExceptionCodesTest {

  @Test
  void shouldGiveEachRefusalOfTheLogItsCode() {
    assertEquals(
        ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
        ExceptionCodes.of(new UnsupportedCompressionException(6, 0)));
    assertEquals(ErrorCode.CORRUPT_MESSAGE, ExceptionCodes.of(new CorruptRecordException("x", 0)));
    assertEquals(
        ErrorCode.MESSAGE_TOO_LARGE, ExceptionCodes.of(new RecordTooLargeException("x", 2, 1)));
    assertEquals(
        ErrorCode.INVALID_TIMESTAMP, ExceptionCodes.of(new InvalidTimestampException("x")));
    assertEquals(
        ErrorCode.INVALID_PRODUCER_EPOCH,
        ExceptionCodes.of(new InvalidProducerEpochException("x")));
    assertEquals(
        ErrorCode.OUT_OF_ORDER_SEQUENCE, ExceptionCodes.of(new OutOfOrderSequenceException("x")));
    assertEquals(ErrorCode.INVALID_RECORD, ExceptionCodes.of(new InvalidRecordException("x")));
    assertEquals(ErrorCode.STORAGE_ERROR, ExceptionCodes.of(new LogStorageException("x")));
    assertEquals(
        ErrorCode.OFFSET_OUT_OF_RANGE, ExceptionCodes.of(new OffsetOutOfRangeException("x")));
  }

  @Test
  void shouldKeepASpoolExceptionsOwnCodeAndLookInsideCompletionExceptions() {
    assertEquals(
        ErrorCode.NOT_CONTROLLER,
        ExceptionCodes.of(new SpoolException(ErrorCode.NOT_CONTROLLER, "x")));
    assertEquals(
        ErrorCode.STORAGE_ERROR,
        ExceptionCodes.of(new CompletionException(new LogStorageException("disk"))));
  }

  @Test
  void shouldCallAnythingElseAnUnknownServerError() {
    assertEquals(
        ErrorCode.UNKNOWN_SERVER_ERROR, ExceptionCodes.of(new IllegalStateException("closed")));
    assertEquals(ErrorCode.UNKNOWN_SERVER_ERROR, ExceptionCodes.of(new NullPointerException()));
  }

  @Test
  void shouldCallAQuorumCallWithoutAnAnswerQuorumUnavailable() {
    assertEquals(
        ErrorCode.QUORUM_UNAVAILABLE,
        ExceptionCodes.ofQuorumCall(new CompletionException(new TimeoutException())));
    assertEquals(
        ErrorCode.STALE_BROKER_EPOCH,
        ExceptionCodes.ofQuorumCall(
            new CompletionException(new SpoolException(ErrorCode.STALE_BROKER_EPOCH, "x"))));
  }
}
