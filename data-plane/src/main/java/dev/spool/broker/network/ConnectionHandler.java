package dev.spool.broker.network;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.Frame;
import dev.spool.protocol.InvalidFrameException;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.protocol.message.ResponseHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: parses frames, dispatches requests, and writes responses strictly in
 * request order although requests complete out of order (pipelining). Owned by the channel's event
 * loop; completions from other threads hop onto it.
 *
 * <p>A request that arrives while earlier ones are unanswered fires their {@link
 * NewerRequestSignal}: a fetch waiting in long poll then answers with what it has, since its answer
 * would otherwise hold back this one's.
 *
 * <p>Limits: at most {@code maxInFlight} unanswered requests (then reading pauses), the shared
 * {@link RequestMemoryPool} for bytes held by unanswered requests, and reading pauses while the
 * socket is not writable (a client that never reads its responses stops being read from, so it
 * cannot make the broker buffer more). A frame that cannot be parsed closes the connection with one
 * log line; an unknown API gets UNSUPPORTED_VERSION and the connection is closed after it.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

  /** A request waiting for its turn to be answered. */
  private static final class Pending {
    final int correlationId;
    final ByteBuf frame;
    final long frameBytes;
    final NewerRequestSignal newerRequest = new NewerRequestSignal();
    BrokerResponse response;

    Pending(int correlationId, ByteBuf frame) {
      this.correlationId = correlationId;
      this.frame = frame;
      this.frameBytes = frame.readableBytes();
    }
  }

  private final RequestDispatcher dispatcher;
  private final RequestMemoryPool memory;
  private final int maxInFlight;
  private final String logPrefix;
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private ChannelHandlerContext ctx;
  private String connectionId;
  private boolean closing;
  private boolean waitingForMemory;

  ConnectionHandler(
      RequestDispatcher dispatcher, RequestMemoryPool memory, int maxInFlight, String logPrefix) {
    this.dispatcher = dispatcher;
    this.memory = memory;
    this.maxInFlight = maxInFlight;
    this.logPrefix = logPrefix;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    this.connectionId = String.valueOf(ctx.channel().remoteAddress());
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frameBuffer = (ByteBuf) msg;
    if (closing) {
      frameBuffer.release();
      return;
    }
    Frame frame;
    RequestHeader header;
    try {
      frame = Frame.parse(frameBuffer);
      header = frame.parseHeader(RequestHeader.parser());
    } catch (InvalidFrameException e) {
      frameBuffer.release();
      closeWithReason(e.getMessage());
      return;
    }
    Pending p = new Pending(header.getCorrelationId(), frameBuffer);
    for (Pending earlier : pending) {
      if (earlier.response == null) {
        earlier.newerRequest
            .fire(); // a long-polling fetch answers now rather than hold this one back
      }
    }
    pending.add(p);
    memory.reserve(p.frameBytes);
    updateReading();

    ApiKey key = header.getApiKey();
    var handler = dispatcher.handler(key);
    if (handler.isEmpty() || key == ApiKey.UNRECOGNIZED) {
      log.warn(
          "{} unknown API key {} from {}, closing the connection",
          logPrefix,
          header.getApiKeyValue(),
          connectionId);
      complete(
          p,
          BrokerResponse.requestError(
              ErrorCode.UNSUPPORTED_VERSION, "unknown API key " + header.getApiKeyValue(), true),
          null);
      return;
    }
    if (!dispatcher.supports(key, header.getApiVersion())) {
      complete(
          p,
          BrokerResponse.requestError(
              ErrorCode.UNSUPPORTED_VERSION,
              key + " version " + header.getApiVersion() + " is not supported; see ApiVersions",
              false),
          null);
      return;
    }
    CompletableFuture<BrokerResponse> future;
    try {
      future =
          handler
              .get()
              .handle(
                  new RequestContext(
                      header,
                      frame,
                      frameBuffer,
                      connectionId,
                      ctx.channel().remoteAddress(),
                      System.nanoTime(),
                      p.newerRequest));
    } catch (InvalidFrameException e) {
      log.warn(
          "{} malformed {} request from {}: {}; closing the connection",
          logPrefix,
          key,
          connectionId,
          e.getMessage());
      complete(
          p, BrokerResponse.requestError(ErrorCode.INVALID_REQUEST, e.getMessage(), true), null);
      return;
    } catch (RuntimeException e) {
      future = CompletableFuture.failedFuture(e);
    }
    future.whenComplete(
        (r, err) -> {
          if (ctx.executor().inEventLoop()) {
            complete(p, r, err);
          } else {
            ctx.executor().execute(() -> complete(p, r, err));
          }
        });
  }

  private void complete(Pending p, BrokerResponse response, Throwable error) {
    if (error != null) {
      Throwable cause =
          error instanceof java.util.concurrent.CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      if (cause instanceof InvalidFrameException) {
        log.warn(
            "{} malformed request from {}: {}; closing the connection",
            logPrefix,
            connectionId,
            cause.getMessage());
        response = BrokerResponse.requestError(ErrorCode.INVALID_REQUEST, cause.getMessage(), true);
      } else {
        log.error("{} request {} from {} failed", logPrefix, p.correlationId, connectionId, cause);
        response =
            BrokerResponse.requestError(
                ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(cause), false);
      }
    }
    p.response = response;
    if (!ctx.channel().isActive()) {
      drainOnClose();
      return;
    }
    writeReady();
  }

  /** Writes every answered request at the head of the queue, in order. */
  private void writeReady() {
    boolean wrote = false;
    while (!pending.isEmpty() && pending.peek().response != null) {
      Pending p = pending.poll();
      BrokerResponse r = p.response;
      finish(p);
      if (closing) {
        r.release();
        continue;
      }
      if (!r.isNone()) {
        write(p.correlationId, r);
        wrote = true;
      }
      if (r.closeAfterSend()) {
        closing = true;
        ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER)
            .addListener(ChannelFutureListener.CLOSE);
        wrote = false;
      }
    }
    if (wrote) {
      ctx.flush();
    }
    updateReading();
  }

  private void write(int correlationId, BrokerResponse r) {
    ResponseHeader.Builder header = ResponseHeader.newBuilder().setCorrelationId(correlationId);
    if (r.requestError() != ErrorCode.NONE) {
      header.setErrorCode(r.requestError()).setErrorMessage(r.requestErrorMessage());
    }
    ByteBuf prefix =
        Frame.encodePrefix(
            ctx.alloc(),
            header.build(),
            r.body() == null ? com.google.protobuf.Empty.getDefaultInstance() : r.body(),
            r.recordBytes());
    ctx.write(prefix, ctx.voidPromise());
    for (Object part : r.recordParts()) {
      ctx.write(part).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }
  }

  private void finish(Pending p) {
    p.frame.release();
    memory.release(p.frameBytes);
  }

  /** Reads only while under the in-flight limit, the memory pool has room and the socket drains. */
  private void updateReading() {
    if (closing || !ctx.channel().isActive()) {
      return;
    }
    boolean memoryOk = !memory.exhausted();
    boolean read = pending.size() < maxInFlight && memoryOk && ctx.channel().isWritable();
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
      log.warn("{} closing connection {}: {}", logPrefix, connectionId, reason);
    }
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    closing = true;
    drainOnClose();
    super.channelInactive(ctx);
  }

  /**
   * The connection is gone: release whatever is answered; the rest is released when it completes.
   */
  private void drainOnClose() {
    while (!pending.isEmpty() && pending.peek().response != null) {
      Pending p = pending.poll();
      p.response.release();
      finish(p);
    }
    // Requests still running keep their frame until they complete; complete() lands here again.
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.flush();
  }
}
