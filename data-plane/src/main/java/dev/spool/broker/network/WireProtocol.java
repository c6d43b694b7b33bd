package dev.spool.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What one listener speaks: how a frame becomes a request, how a request is served, and how its
 * answer becomes bytes. The connection machinery around it ({@link ConnectionHandler}: answers in
 * request order, in-flight and memory limits, backpressure, newer-request signals, closing on bad
 * input) is the same for every protocol; Spool's own protocol ({@link SpoolProtocol}) and Kafka's
 * (in {@code dev.spool.broker.kafka}) differ only here.
 *
 * <p>Threads: one instance serves every connection of its listener, on their event loops; what it
 * keeps per connection lives in the session {@link #newSession} makes (SASL state on the Kafka
 * listener), touched only on that connection's loop. {@link #serve} must not block; its future may
 * complete on any thread.
 *
 * @param <Q> a decoded request
 * @param <A> an answer
 */
public interface WireProtocol<Q, A extends WireProtocol.Answer> {

  /** An answer the connection writes, or releases unwritten when the connection is gone. */
  interface Answer {
    /** Nothing is written for this request (Produce with acks=0). */
    boolean isNone();

    /** The connection closes once this answer has been written. */
    boolean closeAfterSend();

    /**
     * With {@link #closeAfterSend}: how long the answer and the close wait (a failed SASL
     * authentication: {@code connection.failed.authentication.delay.ms}); nothing more is read
     * meanwhile. The wait is a timer on the connection's event loop, which goes on serving others.
     */
    default long closeDelayMs() {
      return 0;
    }

    /**
     * How long the connection stops reading after this answer (a client over its quota,
     * docs/security.md#quotas): Kafka's muted channel, a timer on the connection's event loop.
     */
    default long throttleMs() {
      return 0;
    }

    /** Frees what the answer holds (record parts) when it will not be written. */
    void release();
  }

  /**
   * Decodes a frame (the bytes after the length field; a view the caller releases once the answer
   * is written, so a request may keep views into it until then). Throws {@link
   * dev.spool.protocol.InvalidFrameException} when the frame is not a request: the connection then
   * closes with one log line and nothing is answered.
   */
  Q decode(ByteBuf frame);

  /**
   * The request's API as a metrics label ({@code Produce}, {@code Fetch}, ...): Kafka's API names,
   * which both protocols share, so one API counts once whichever listener served it. A constant
   * string per API: the metrics cache their data points by it.
   */
  String apiName(Q request);

  /**
   * The request-level error code of an answer, for the error metrics; null when it has none.
   * Partition-level errors are counted by the handlers that decide them.
   */
  default String requestError(A answer) {
    return null;
  }

  /** The request's correlation id, for log lines. */
  int correlationId(Q request);

  /**
   * Starts serving the request. May throw {@link dev.spool.protocol.InvalidFrameException} (the
   * body does not parse) or any other exception; {@link #failed} then gives the answer.
   */
  CompletableFuture<A> serve(Q request, Connection connection);

  /**
   * The answer for a request whose serving failed: a malformed body ({@link
   * dev.spool.protocol.InvalidFrameException}) or an unexpected error, already logged by the
   * connection.
   */
  A failed(Q request, Throwable cause);

  /**
   * State the protocol keeps for one connection (SASL authentication on the Kafka listener), made
   * when the connection opens and handed back with each of its requests; null when it keeps none.
   *
   * @param eventLoop the connection's event loop, where work that completes elsewhere comes back to
   *     before it changes the session
   */
  default Object newSession(java.net.SocketAddress remoteAddress, Executor eventLoop) {
    return null;
  }

  /**
   * The connection of {@code session} closed (on its event loop): work still queued for it may be
   * skipped. Its requests still running complete as usual, and their answers are dropped.
   */
  default void closeSession(Object session) {}

  /**
   * A frame limit below the listener's for the connection as it is now (a SASL listener before
   * authentication: {@code sasl.server.max.receive.size}), or null. Asked when the connection opens
   * and after each request is served; a larger frame closes the connection before it is buffered.
   */
  default FrameLimit frameLimit(Object session) {
    return null;
  }

  /** At most {@code bytes} per frame, because of config key {@code reason}. */
  record FrameLimit(int bytes, String reason) {}

  /**
   * Why a frame is refused from its header alone, before its body is parsed (a SASL listener: any
   * API but ApiVersions and the SASL ones before authentication), or null to decode it. A refused
   * frame closes the connection unanswered with one rate-limited log line.
   */
  default String refuseUndecoded(ByteBuf frame, Object session) {
    return null;
  }

  /** Writes the answer (not flushed); the answer's parts pass to the channel. */
  void write(ChannelHandlerContext ctx, Q request, A answer);

  /**
   * Where a request came from and the signal that a newer one arrived on the same connection.
   *
   * @param receivedNanos when the frame was read, for request latency
   * @param session what {@link #newSession} made for this connection, or null
   * @param tlsPrincipal {@code User:<subject>} of the client's verified certificate, or null
   */
  record Connection(
      String connectionId,
      java.net.SocketAddress remoteAddress,
      long receivedNanos,
      NewerRequestSignal newerRequest,
      Object session,
      String tlsPrincipal) {

    public Connection(
        String connectionId,
        java.net.SocketAddress remoteAddress,
        long receivedNanos,
        NewerRequestSignal newerRequest) {
      this(connectionId, remoteAddress, receivedNanos, newerRequest, null, null);
    }
  }
}
