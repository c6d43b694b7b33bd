package dev.spool.broker.network;

import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.protocol.FrameDecoder;
import dev.spool.protocol.FrameMemory;
import dev.spool.protocol.InvalidFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: decodes frames with its listener's {@link WireProtocol}, serves requests,
 * and writes answers strictly in request order although requests complete out of order
 * (pipelining). Owned by the channel's event loop; completions from other threads hop onto it.
 *
 * <p>A request that arrives while earlier ones are unanswered fires their {@link
 * NewerRequestSignal}: a fetch waiting in long poll then answers with what it has, since its answer
 * would otherwise hold back this one's.
 *
 * <p>Limits: at most {@code maxInFlight} unanswered requests (then reading pauses), the shared
 * {@link RequestMemoryPool} for bytes held by unanswered requests, and reading pauses while the
 * socket is not writable (a client that never reads its responses stops being read from, so it
 * cannot make the broker buffer more). A frame the protocol cannot decode, or one that does not
 * arrive whole in time, closes the connection with one log line (rate-limited across the server);
 * what a failed request is answered is the protocol's choice ({@link WireProtocol#failed}).
 *
 * @param <Q> the protocol's decoded request
 * @param <A> the protocol's answer
 */
final class ConnectionHandler<Q, A extends WireProtocol.Answer>
    extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);
  // What clients cause: bad frames and malformed requests (one line each, rate-limited node-wide).
  private static final RateLimitedLog badInput = new RateLimitedLog(log);

  /** A request waiting for its turn to be answered. */
  private static final class Pending<Q, A> {
    final Q request;
    final ByteBuf frame;
    final long frameBytes;
    final NewerRequestSignal newerRequest = new NewerRequestSignal();
    final BrokerMetrics.Api api;
    final long readNs;
    long servedNs;
    // Written by the completing thread before it hands the answer to the event loop.
    long completedNs;
    A response;

    Pending(Q request, ByteBuf frame, long frameBytes, BrokerMetrics.Api api, long readNs) {
      this.request = request;
      this.frame = frame;
      this.frameBytes = frameBytes;
      this.api = api;
      this.readNs = readNs;
    }
  }

  private final WireProtocol<Q, A> protocol;
  private final RequestMemoryPool memory;
  private final BrokerMetrics metrics;
  private final int maxInFlight;
  private final String logPrefix;
  private final ArrayDeque<Pending<Q, A>> pending = new ArrayDeque<>();
  private ChannelHandlerContext ctx;
  private String connectionId;
  private Object session;
  // How a TLS listener names clients from their certificates (ssl.principal.mapping.rules); null on
  // a plaintext listener.
  private final SslPrincipalMapper principals;
  // Requests wait for it before they are served (BrokerServer#holdRequestsUntil): the gate at
  // first, then the serving of the last request held; done once nothing is held. Event loop only.
  private CompletableFuture<Void> servedBefore;
  // The verified client certificate's principal (mutual TLS), or null; looked up once, at the first
  // request (requests are read only after the handshake), not on every request.
  private String tlsPrincipal;
  private boolean tlsPrincipalKnown;
  private boolean closing;
  private boolean waitingForMemory;
  // Muted for a client quota until this System.nanoTime (docs/security.md#quotas); 0: not muted.
  private long mutedUntilNs;

  /** Whether the frame decoder has a lower limit from {@link WireProtocol#frameLimit}. */
  private boolean frameLimited;

  ConnectionHandler(
      WireProtocol<Q, A> protocol,
      RequestMemoryPool memory,
      BrokerMetrics metrics,
      int maxInFlight,
      String logPrefix,
      SslPrincipalMapper principals,
      CompletableFuture<Void> servable) {
    this.principals = principals;
    this.servedBefore = servable;
    this.protocol = protocol;
    this.memory = memory;
    this.metrics = metrics;
    this.maxInFlight = maxInFlight;
    this.logPrefix = logPrefix;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    this.connectionId = String.valueOf(ctx.channel().remoteAddress());
    this.session = protocol.newSession(ctx.channel().remoteAddress(), ctx.executor());
    frameLimited = true;
    updateFrameLimit();
    metrics.connectionOpened();
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frameBuffer = (ByteBuf) msg;
    // The frame decoder reserved these bytes from the pool as they arrived; they are released
    // when the frame is.
    long frameBytes = frameBuffer.readableBytes();
    if (closing) {
      frameBuffer.release();
      memory.release(frameBytes);
      return;
    }
    long readNs = System.nanoTime();
    String refused = protocol.refuseUndecoded(frameBuffer, session);
    if (refused == null) {
      refused = resolveTlsPrincipal();
    }
    if (refused != null) {
      frameBuffer.release();
      memory.release(frameBytes);
      closeWithReason(refused);
      return;
    }
    Q request;
    try {
      request = protocol.decode(frameBuffer);
    } catch (InvalidFrameException e) {
      frameBuffer.release();
      memory.release(frameBytes);
      closeWithReason(e.getMessage());
      return;
    }
    Pending<Q, A> p =
        new Pending<>(
            request, frameBuffer, frameBytes, metrics.api(protocol.apiName(request)), readNs);
    p.api.started();
    for (Pending<Q, A> earlier : pending) {
      if (earlier.response == null) {
        earlier.newerRequest
            .fire(); // a long-polling fetch answers now rather than hold this one back
      }
    }
    pending.add(p);
    updateReading();

    WireProtocol.Connection connection =
        new WireProtocol.Connection(
            connectionId,
            ctx.channel().remoteAddress(),
            readNs,
            p.newerRequest,
            session,
            tlsPrincipal);
    CompletableFuture<A> future;
    if (servedBefore.isDone()) {
      future = serve(request, connection);
    } else {
      // Held until the broker may serve (and until the requests read before it were served, so
      // they are served in the order they came).
      CompletableFuture<Void> served = new CompletableFuture<>();
      future =
          servedBefore.thenComposeAsync(
              v -> {
                try {
                  return closing
                      ? CompletableFuture.completedFuture(
                          protocol.failed(request, new ClosedChannelException()))
                      : serve(request, connection);
                } finally {
                  served.complete(null);
                }
              },
              ctx.executor());
      servedBefore = served;
    }
    p.servedNs = System.nanoTime();
    future.whenComplete(
        (r, err) -> {
          p.completedNs = System.nanoTime();
          if (ctx.executor().inEventLoop()) {
            complete(p, r, err);
          } else {
            ctx.executor().execute(() -> complete(p, r, err));
          }
        });
  }

  private CompletableFuture<A> serve(Q request, WireProtocol.Connection connection) {
    try {
      return protocol.serve(request, connection);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      updateFrameLimit(); // serving may have authenticated the connection
    }
  }

  /**
   * Names the client of a mutual-TLS connection once, at its first request: {@code User:<name>},
   * the name that {@code ssl.principal.mapping.rules} make of its verified certificate's subject
   * (the subject as it is by default, Kafka's principal for mutual TLS, docs/security.md#acls).
   * Returns why the connection is refused (no rule names the client), else null; the principal is
   * null without TLS or without a client certificate. A request is read only after the handshake
   * completed, so the first answer holds for the connection.
   */
  private String resolveTlsPrincipal() {
    if (tlsPrincipalKnown) {
      return null;
    }
    tlsPrincipalKnown = true;
    SslHandler ssl = ctx.pipeline().get(SslHandler.class);
    if (ssl == null || principals == null) {
      return null;
    }
    String subject;
    try {
      subject = ssl.engine().getSession().getPeerPrincipal().getName();
    } catch (SSLPeerUnverifiedException e) {
      return null; // no client certificate: the connection is anonymous
    }
    String name = principals.name(subject);
    if (name == null) {
      return "no ssl.principal.mapping.rules rule names the client certificate's subject '"
          + subject
          + "' (rules: "
          + principals
          + ")";
    }
    tlsPrincipal = "User:" + name;
    return null;
  }

  /** Hands the protocol's frame limit for the connection as it is now to the frame decoder. */
  private void updateFrameLimit() {
    if (!frameLimited) {
      return;
    }
    FrameDecoder decoder = ctx.pipeline().get(FrameDecoder.class);
    WireProtocol.FrameLimit limit = protocol.frameLimit(session);
    frameLimited = limit != null;
    if (decoder != null) {
      decoder.limit(limit == null ? 0 : limit.bytes(), limit == null ? null : limit.reason());
    }
  }

  private void complete(Pending<Q, A> p, A response, Throwable error) {
    if (error != null) {
      Throwable cause =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      if (cause instanceof InvalidFrameException) {
        badInput.warn(
            "{} malformed request from {}: {}; closing the connection",
            logPrefix,
            connectionId,
            cause.getMessage());
      } else {
        log.error(
            "{} request {} from {} failed",
            logPrefix,
            protocol.correlationId(p.request),
            connectionId,
            cause);
      }
      response = protocol.failed(p.request, cause);
      p.api.error(
          cause instanceof InvalidFrameException ? "INVALID_REQUEST" : "UNKNOWN_SERVER_ERROR");
    } else {
      String code = protocol.requestError(response);
      if (code != null) {
        p.api.error(code);
      }
    }
    p.response = response;
    if (!ctx.channel().isActive()) {
      drainOnClose();
      return;
    }
    updateFrameLimit(); // an answer completed later (a PLAIN login) may have authenticated
    writeReady();
  }

  /** Writes every answered request at the head of the queue, in order. */
  private void writeReady() {
    boolean wrote = false;
    long nowNs = metrics.enabled() ? System.nanoTime() : 0;
    while (!pending.isEmpty() && pending.peek().response != null) {
      Pending<Q, A> p = pending.poll();
      A r = p.response;
      finish(p);
      p.api.finished(p.readNs, p.servedNs, p.completedNs, nowNs);
      if (closing) {
        r.release();
        continue;
      }
      if (r.throttleMs() > 0) {
        mute(r.throttleMs());
      }
      if (r.closeAfterSend() && r.closeDelayMs() > 0) {
        closing = true;
        ctx.channel().config().setAutoRead(false);
        ctx.executor()
            .schedule(() -> writeAndClose(p.request, r), r.closeDelayMs(), TimeUnit.MILLISECONDS);
        continue;
      }
      if (!r.isNone()) {
        protocol.write(ctx, p.request, r);
        wrote = true;
      }
      if (r.closeAfterSend()) {
        closing = true;
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        wrote = false;
      }
    }
    if (wrote) {
      ctx.flush();
    }
    updateReading();
  }

  /**
   * Stops reading for {@code throttleMs} (Kafka's muted channel: a client over its quota sends
   * nothing more until its throttle time passed); a timer on this event loop reads again.
   */
  private void mute(long throttleMs) {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(throttleMs);
    if (until - mutedUntilNs <= 0 && mutedUntilNs != 0) {
      return; // muted longer already
    }
    mutedUntilNs = until;
    ctx.executor()
        .schedule(
            () -> {
              if (mutedUntilNs == until) {
                mutedUntilNs = 0;
                updateReading();
              }
            },
            throttleMs,
            TimeUnit.MILLISECONDS);
  }

  /** The delayed answer of {@link WireProtocol.Answer#closeDelayMs}, then the close. */
  private void writeAndClose(Q request, A r) {
    if (!ctx.channel().isActive()) {
      r.release();
      return;
    }
    if (!r.isNone()) {
      protocol.write(ctx, request, r);
    }
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  private void finish(Pending<Q, A> p) {
    p.frame.release();
    memory.release(p.frameBytes);
  }

  /** Reads only while under the in-flight limit, the memory pool has room and the socket drains. */
  private void updateReading() {
    if (closing || !ctx.channel().isActive()) {
      return;
    }
    boolean memoryOk = !memory.exhausted();
    boolean read =
        pending.size() < maxInFlight && memoryOk && ctx.channel().isWritable() && mutedUntilNs == 0;
    if (ctx.channel().config().isAutoRead() != read) {
      ctx.channel().config().setAutoRead(read);
      if (read) {
        ctx.read();
      }
    }
    if (!memoryOk && !waitingForMemory) {
      waitingForMemory = true;
      memory.awaitAvailable(
          () ->
              ctx.executor()
                  .execute(
                      () -> {
                        waitingForMemory = false;
                        updateReading();
                      }));
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    updateReading();
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent) {
      closeWithReason("idle for longer than connections.max.idle.ms");
      return;
    }
    if (evt == FrameMemory.EXHAUSTED) {
      updateReading(); // a partial frame filled the pool: stop reading until memory is released
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Throwable c = cause.getCause() instanceof InvalidFrameException ? cause.getCause() : cause;
    if (c instanceof InvalidFrameException
        || c instanceof io.netty.handler.codec.DecoderException) {
      closeWithReason(c.getMessage());
    } else if (c instanceof IOException) {
      log.debug("{} connection {} failed: {}", logPrefix, connectionId, c.toString());
      ctx.close();
    } else {
      log.warn("{} closing connection {} after an unexpected error", logPrefix, connectionId, c);
      ctx.close();
    }
  }

  private void closeWithReason(String reason) {
    if (!closing) {
      closing = true;
      badInput.warn("{} closing connection {}: {}", logPrefix, connectionId, reason);
    }
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (this.ctx != null) {
      metrics.connectionClosed();
    }
    closing = true;
    if (session != null) {
      protocol.closeSession(session);
    }
    drainOnClose();
    super.channelInactive(ctx);
  }

  /**
   * The connection is gone: release whatever is answered; the rest is released when it completes.
   */
  private void drainOnClose() {
    while (!pending.isEmpty() && pending.peek().response != null) {
      Pending<Q, A> p = pending.poll();
      p.response.release();
      finish(p);
      p.api.dropped();
    }
    // Requests still running keep their frame until they complete; complete() lands here again.
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.flush();
  }
}
