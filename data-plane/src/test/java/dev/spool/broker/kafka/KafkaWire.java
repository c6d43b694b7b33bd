package dev.spool.broker.kafka;

import dev.spool.broker.kafka.codec.KafkaResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Kafka's side of the wire for tests: requests encoded and answers parsed by kafka-clients itself
 * (the oracle), so a test checks Spool's listener against what Kafka's clients send and read.
 */
public final class KafkaWire {
  private KafkaWire() {}

  public static final String CLIENT_ID = "test-client";

  /** A request frame without its size field: header (at the version's header version) + body. */
  public static ByteBuffer request(ApiMessage body, short version, int correlationId) {
    ApiKeys key = ApiKeys.forId(body.apiKey());
    RequestHeaderData h =
        new RequestHeaderData()
            .setRequestApiKey(key.id)
            .setRequestApiVersion(version)
            .setCorrelationId(correlationId)
            .setClientId(CLIENT_ID);
    short hv = key.requestHeaderVersion(version);
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int size = h.size(cache, hv) + body.size(cache, version);
    ByteBuffer b = ByteBuffer.allocate(size);
    ByteBufferAccessor w = new ByteBufferAccessor(b);
    h.write(w, cache, hv);
    body.write(w, cache, version);
    return b.flip();
  }

  /** The same with the int32 size field in front, as it goes on the socket. */
  public static byte[] sized(ByteBuffer request) {
    ByteBuffer out = ByteBuffer.allocate(4 + request.remaining());
    out.putInt(request.remaining()).put(request.duplicate());
    return out.array();
  }

  public static RequestHeader header(ApiMessage body, short version, int correlationId) {
    return new RequestHeader(ApiKeys.forId(body.apiKey()), version, CLIENT_ID, correlationId);
  }

  /** Every byte of an answer as it would leave: buffers and file regions, in order. */
  public static byte[] bytes(KafkaResponse answer) {
    return bytes(answer.encode(ByteBufAllocator.DEFAULT));
  }

  public static byte[] bytes(List<Object> parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    WritableByteChannel ch = Channels.newChannel(out);
    try {
      for (Object part : parts) {
        if (part instanceof ByteBuf b) {
          b.getBytes(b.readerIndex(), out, b.readableBytes());
        } else {
          FileRegion r = (FileRegion) part;
          long done = 0;
          while (done < r.count()) {
            done += r.transferTo(ch, done);
          }
        }
        ReferenceCountUtil.release(part);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Kafka's client parser on an answer (size field checked and skipped). */
  @SuppressWarnings("unchecked")
  public static <T extends AbstractResponse> T parse(byte[] answer, RequestHeader request) {
    ByteBuffer b = ByteBuffer.wrap(answer);
    int size = b.getInt();
    if (size != b.remaining()) {
      throw new AssertionError("size field " + size + " but " + b.remaining() + " bytes follow");
    }
    return (T) AbstractResponse.parseResponse(b, request);
  }

  public static <T extends AbstractResponse> T parse(KafkaResponse answer, RequestHeader request) {
    return parse(bytes(answer), request);
  }
}
