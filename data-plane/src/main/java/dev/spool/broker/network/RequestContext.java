package dev.spool.broker.network;

import dev.spool.protocol.Frame;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.RequestHeader;
import io.netty.buffer.ByteBuf;
import java.net.SocketAddress;

/**
 * One received request: its header, its frame sections (views over the received buffer, valid
 * until the response completes) and where it came from. Handlers that keep record data past the
 * response (they should not) must retain it themselves.
 */
public record RequestContext(RequestHeader header, Frame frame, ByteBuf frameBuffer,
    String connectionId, SocketAddress remoteAddress, long receivedNanos) {

  public ApiKey apiKey() {
    return header.getApiKey();
  }

  public int apiVersion() {
    return header.getApiVersion();
  }

  public int correlationId() {
    return header.getCorrelationId();
  }
}
