package dev.spool.broker.network;

import dev.spool.broker.security.Caller;
import dev.spool.protocol.Frame;
import dev.spool.protocol.message.RequestHeader;
import io.netty.buffer.ByteBuf;
import java.net.SocketAddress;

/**
 * One received request: its header, its frame sections (views over the received buffer, valid until
 * the response completes), where it came from, and the signal that a newer request arrived on the
 * same connection (see {@link NewerRequestSignal}), and who sent it (the {@link Caller} the
 * authorizer checks). Handlers that keep record data past the response (they should not) must
 * retain it themselves.
 */
public record RequestContext(
    RequestHeader header,
    Frame frame,
    ByteBuf frameBuffer,
    String connectionId,
    SocketAddress remoteAddress,
    long receivedNanos,
    NewerRequestSignal newerRequest,
    Caller caller) {

  /** A request from an anonymous caller (tests, internal callers). */
  public RequestContext(
      RequestHeader header,
      Frame frame,
      ByteBuf frameBuffer,
      String connectionId,
      SocketAddress remoteAddress,
      long receivedNanos,
      NewerRequestSignal newerRequest) {
    this(
        header,
        frame,
        frameBuffer,
        connectionId,
        remoteAddress,
        receivedNanos,
        newerRequest,
        Caller.of(null, remoteAddress));
  }

  /** A request whose connection never signals a newer request (tests, internal callers). */
  public RequestContext(
      RequestHeader header,
      Frame frame,
      ByteBuf frameBuffer,
      String connectionId,
      SocketAddress remoteAddress,
      long receivedNanos) {
    this(
        header,
        frame,
        frameBuffer,
        connectionId,
        remoteAddress,
        receivedNanos,
        new NewerRequestSignal());
  }

  public int correlationId() {
    return header.getCorrelationId();
  }
}
