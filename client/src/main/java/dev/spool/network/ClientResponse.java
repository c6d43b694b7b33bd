package dev.spool.network;

import com.google.protobuf.MessageLite;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ResponseHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * One response as the network client hands it over: the header, the parsed body and the record data
 * that followed the body (a retained slice of the received frame, empty for most APIs). The
 * receiver owns the record data and must {@link #close()} the response when done with it; closing
 * twice is harmless. Responses to requests sent without expecting an answer (produce with {@code
 * acks=0}) have no header and no body.
 */
public final class ClientResponse implements AutoCloseable {
  private final ApiKey apiKey;
  private final ResponseHeader header;
  private final MessageLite body;
  private ByteBuf recordData;
  private long latencyNs;

  ClientResponse(ApiKey apiKey, ResponseHeader header, MessageLite body, ByteBuf recordData) {
    this.apiKey = apiKey;
    this.header = header;
    this.body = body;
    this.recordData = recordData;
  }

  static ClientResponse noResponse(ApiKey apiKey) {
    return new ClientResponse(apiKey, null, null, Unpooled.EMPTY_BUFFER);
  }

  void setLatencyNs(long latencyNs) {
    this.latencyNs = latencyNs;
  }

  /** Time from writing the request to receiving this response. */
  public long latencyNs() {
    return latencyNs;
  }

  /** The response header, or {@code null} when no response was expected. */
  public ResponseHeader header() {
    return header;
  }

  /** True when the request was sent without expecting a response (produce with acks=0). */
  public boolean isNoResponse() {
    return header == null;
  }

  /** The body as {@code type}; throws {@link ClassCastException} if it is another message. */
  public <T extends MessageLite> T body(Class<T> type) {
    return type.cast(body);
  }

  /** The record data slice (valid until {@link #close()}). */
  public ByteBuf recordData() {
    ByteBuf d = recordData;
    if (d == null) {
      throw new IllegalStateException("response already released");
    }
    return d;
  }

  @Override
  public void close() {
    ByteBuf d = recordData;
    recordData = null;
    if (d != null && d.refCnt() > 0 && d != Unpooled.EMPTY_BUFFER) {
      d.release();
    }
  }

  @Override
  public String toString() {
    ByteBuf d = recordData;
    return "ClientResponse("
        + apiKey
        + (d == null ? ", released)" : ", " + d.readableBytes() + " bytes of record data)");
  }
}
