package dev.spool.broker.network;

import com.google.protobuf.MessageLite;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.ProduceResponse;
import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * What a handler answers: a protobuf body plus record data parts written after it, in order. A part
 * is a Netty {@code ByteBuf} or {@code FileRegion}; ownership of every part passes to the
 * connection, which writes or releases it. A request-level error has no body; {@link #none()} is
 * the answer to a request that gets no response (produce with acks=0).
 */
public final class BrokerResponse implements WireProtocol.Answer {
  private static final BrokerResponse NONE =
      new BrokerResponse(null, List.of(), 0, ErrorCode.NONE, "", false, 0, 0);
  private static final BrokerResponse CLOSE =
      new BrokerResponse(null, List.of(), 0, ErrorCode.NONE, "", true, 0, 0);

  private final MessageLite body;
  private final List<Object> recordParts;
  private final long recordBytes;
  private final ErrorCode requestError;
  private final String requestErrorMessage;
  private final boolean closeAfterSend;
  private final long throttleMs;

  /** With {@link #closeAfterSend}: how long the answer and the close wait (a failed login). */
  private final long closeDelayMs;

  private BrokerResponse(
      MessageLite body,
      List<Object> recordParts,
      long recordBytes,
      ErrorCode requestError,
      String requestErrorMessage,
      boolean closeAfterSend,
      long throttleMs,
      long closeDelayMs) {
    this.throttleMs = throttleMs;
    this.closeDelayMs = closeDelayMs;
    this.body = body;
    this.recordParts = recordParts;
    this.recordBytes = recordBytes;
    this.requestError = requestError;
    this.requestErrorMessage = requestErrorMessage;
    this.closeAfterSend = closeAfterSend;
  }

  public static BrokerResponse of(MessageLite body) {
    return new BrokerResponse(body, List.of(), 0, ErrorCode.NONE, "", false, 0, 0);
  }

  /** A body followed by record data parts totalling {@code recordBytes}. */
  public static BrokerResponse withRecords(
      MessageLite body, List<Object> recordParts, long recordBytes) {
    return new BrokerResponse(
        body, List.copyOf(recordParts), recordBytes, ErrorCode.NONE, "", false, 0, 0);
  }

  /** A request-level error (empty body); {@code close} closes the connection after sending it. */
  public static BrokerResponse requestError(ErrorCode code, String message, boolean close) {
    return new BrokerResponse(null, List.of(), 0, code, message, close, 0, 0);
  }

  public static BrokerResponse none() {
    return NONE;
  }

  /** Nothing is answered and the connection closes (a request before SASL authentication). */
  public static BrokerResponse closeWithoutAnswer() {
    return CLOSE;
  }

  /**
   * {@code body}, after which the connection closes; answer and close wait {@code delayMs} (a
   * failed SASL login: {@code connection.failed.authentication.delay.ms}), 0: at once.
   */
  public static BrokerResponse closing(MessageLite body, long delayMs) {
    return new BrokerResponse(
        body, List.of(), 0, ErrorCode.NONE, "", true, 0, Math.max(0, delayMs));
  }

  @Override
  public long closeDelayMs() {
    return closeDelayMs;
  }

  /**
   * This answer throttled for {@code ms} (docs/security.md#quotas): a produce or fetch body says so
   * in its throttle_time_ms, and the connection stops reading as long. An answer that is not sent
   * (acks=0) still mutes the connection.
   */
  public BrokerResponse throttled(long ms) {
    if (ms <= 0) {
      return this;
    }
    int field = (int) Math.min(Integer.MAX_VALUE, ms);
    MessageLite b = body;
    if (b instanceof ProduceResponse p) {
      b = p.toBuilder().setThrottleTimeMs(field).build();
    } else if (b instanceof FetchResponse f) {
      b = f.toBuilder().setThrottleTimeMs(field).build();
    }
    return new BrokerResponse(
        b,
        recordParts,
        recordBytes,
        requestError,
        requestErrorMessage,
        closeAfterSend,
        ms,
        closeDelayMs);
  }

  @Override
  public long throttleMs() {
    return throttleMs;
  }

  /** No body and no error: {@link #none()}, or it throttled. */
  @Override
  public boolean isNone() {
    return body == null && requestError == ErrorCode.NONE;
  }

  public MessageLite body() {
    return body;
  }

  public List<Object> recordParts() {
    return recordParts;
  }

  public long recordBytes() {
    return recordBytes;
  }

  public ErrorCode requestError() {
    return requestError;
  }

  public String requestErrorMessage() {
    return requestErrorMessage;
  }

  @Override
  public boolean closeAfterSend() {
    return closeAfterSend;
  }

  /** Releases the record parts when the response will not be written (connection gone). */
  @Override
  public void release() {
    for (Object part : recordParts) {
      ReferenceCountUtil.safeRelease(part);
    }
  }
}
