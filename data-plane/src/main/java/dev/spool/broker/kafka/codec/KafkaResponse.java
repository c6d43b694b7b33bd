package dev.spool.broker.kafka.codec;

import dev.spool.broker.network.WireProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * One answer on the Kafka listener: the response body at the request's version, the response header
 * version that goes with it, and the file regions it owns (a fetch's record data). {@link #encode}
 * lays it out as Kafka does:
 *
 * <pre>
 *   int32  size            bytes after this field
 *   header                 correlation_id int32 (+ tagged fields from header version 1)
 *   body                   the API's response at the request's version; records fields are
 *                          written as their length prefix, then the bytes (a file region)
 * </pre>
 *
 * ApiVersions answers always use header version 0, whatever the body version, so every client can
 * read a downgrade. An answer may also be "none" (Produce with acks=0: Kafka's clients expect no
 * response at all) or close the connection after it is written.
 *
 * <p>Threads: built on any thread; encoded and written on the connection's event loop.
 */
public final class KafkaResponse implements WireProtocol.Answer {
  private static final KafkaResponse NONE =
      new KafkaResponse(0, null, (short) 0, (short) 0, List.of(), false);

  private long throttleMs;

  private final int correlationId;
  private final ApiMessage body;
  private final short version;
  private final short headerVersion;
  private final List<RegionRecords> regions;
  private final boolean closeAfterSend;
  private final long closeDelayMs;

  /** The request-level error this answer carries, for the error metrics; null when none. */
  private final String error;

  KafkaResponse(
      int correlationId,
      ApiMessage body,
      short version,
      short headerVersion,
      List<RegionRecords> regions,
      boolean closeAfterSend) {
    this(correlationId, body, version, headerVersion, regions, closeAfterSend, null, 0);
  }

  private KafkaResponse(
      int correlationId,
      ApiMessage body,
      short version,
      short headerVersion,
      List<RegionRecords> regions,
      boolean closeAfterSend,
      String error,
      long closeDelayMs) {
    this.error = error;
    this.closeDelayMs = closeDelayMs;
    this.correlationId = correlationId;
    this.body = body;
    this.version = version;
    this.headerVersion = headerVersion;
    this.regions = regions;
    this.closeAfterSend = closeAfterSend;
  }

  /** No response is sent for this request. */
  public static KafkaResponse none() {
    return NONE;
  }

  /** Closes the connection without answering (Produce with acks=0 that failed, as Kafka does). */
  public static KafkaResponse closeWithoutAnswer() {
    return new KafkaResponse(0, null, (short) 0, (short) 0, List.of(), true);
  }

  /** This answer, after which the connection closes (a failed SASL exchange). */
  KafkaResponse closing() {
    return new KafkaResponse(
        correlationId, body, version, headerVersion, regions, true, error, closeDelayMs);
  }

  /**
   * This answer, written and followed by the close only after {@code delayMs} (a failed SASL
   * authentication: {@code connection.failed.authentication.delay.ms}).
   */
  public KafkaResponse closingAfter(long delayMs) {
    return new KafkaResponse(
        correlationId, body, version, headerVersion, regions, true, error, delayMs);
  }

  /** This answer marked as a request-level {@code error} answer (counted in the error metrics). */
  KafkaResponse withError(String error) {
    return new KafkaResponse(
        correlationId, body, version, headerVersion, regions, closeAfterSend, error, closeDelayMs);
  }

  /**
   * Each response body class's {@code setThrottleTimeMs(int)}, or null when it has none (Kafka's
   * generated messages have no common interface for it); looked up once per class.
   */
  private static final ClassValue<MethodHandle> THROTTLE_SETTER =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
          try {
            return MethodHandles.publicLookup()
                .findVirtual(type, "setThrottleTimeMs", MethodType.methodType(type, int.class));
          } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
          }
        }
      };

  /**
   * This answer throttled for {@code ms} (docs/security.md#quotas): a body with a throttleTimeMs
   * field carries it (Produce and Fetch for byte rates; every such answer for the request quota),
   * and the connection stops reading as long. An answer not sent (acks=0) still mutes the
   * connection.
   */
  public KafkaResponse throttled(long ms) {
    if (ms <= 0) {
      return this;
    }
    int field = (int) Math.min(Integer.MAX_VALUE, ms);
    MethodHandle setter = body == null ? null : THROTTLE_SETTER.get(body.getClass());
    if (setter != null) {
      try {
        setter.invoke(body, field);
      } catch (Throwable e) {
        throw new IllegalStateException("cannot set the throttle time of " + this, e);
      }
    }
    KafkaResponse r =
        new KafkaResponse(
            correlationId,
            body,
            version,
            headerVersion,
            regions,
            closeAfterSend,
            error,
            closeDelayMs);
    r.throttleMs = ms;
    return r;
  }

  @Override
  public long throttleMs() {
    return throttleMs;
  }

  /** The request-level error this answer carries, or null. */
  public String error() {
    return error;
  }

  @Override
  public boolean isNone() {
    return body == null;
  }

  @Override
  public boolean closeAfterSend() {
    return closeAfterSend;
  }

  @Override
  public long closeDelayMs() {
    return closeDelayMs;
  }

  /** Drops the file regions this answer owns (it will not be written). */
  @Override
  public void release() {
    for (RegionRecords r : regions) {
      ReferenceCountUtil.safeRelease(r.region());
    }
  }

  /**
   * The bytes of this answer: buffers and file regions, in order. Ownership of every part passes to
   * the caller, which writes them (the channel then releases them).
   */
  public List<Object> encode(ByteBufAllocator alloc) {
    ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
    ObjectSerializationCache cache = new ObjectSerializationCache();
    MessageSizeAccumulator size = new MessageSizeAccumulator();
    header.addSize(size, cache, headerVersion);
    body.addSize(size, cache, version);
    ByteBuf buf = alloc.buffer(4 + size.sizeExcludingZeroCopy());
    ByteBufWritable out = new ByteBufWritable(buf);
    try {
      out.writeInt(size.totalSize());
      header.write(out, cache, headerVersion);
      body.write(out, cache, version);
    } catch (RuntimeException e) {
      for (Object part : out.finish()) {
        if (part instanceof ByteBuf b) {
          b.release(); // the regions stay with this answer: release() frees them
        }
      }
      throw e;
    }
    return out.finish();
  }

  /** The body (tests and translators in this package). */
  ApiMessage body() {
    return body;
  }

  short version() {
    return version;
  }

  @Override
  public String toString() {
    return body == null ? "(no response)" : body.getClass().getSimpleName() + " v" + version;
  }
}
