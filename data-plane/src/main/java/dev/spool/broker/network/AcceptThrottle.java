package dev.spool.broker.network;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code max.connection.creation.rate} on one listener's server channel: each accepted connection
 * is recorded in the broker-wide {@link ConnectionLimits}; when that puts the rate over the limit
 * the listener stops reading its accept queue (auto-read off) until the rate allows another
 * connection, as Kafka's acceptor waits. Nobody is refused: connections wait in the kernel's accept
 * queue (and, past its backlog, in the clients' connect).
 *
 * <p>Runs on the listener's acceptor event loop, in the server channel's pipeline ahead of Netty's
 * acceptor, so it sees every accepted channel before it is registered.
 */
final class AcceptThrottle extends ChannelInboundHandlerAdapter {
  private final ConnectionLimits limits;
  private final AtomicLong throttledNanos;
  private boolean paused;

  /** {@code throttledNanos} adds up the time this listener spent not accepting (all listeners). */
  AcceptThrottle(ConnectionLimits limits, AtomicLong throttledNanos) {
    this.limits = limits;
    this.throttledNanos = throttledNanos;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ctx.fireChannelRead(msg);
    long delay = limits.recordCreation();
    if (delay > 0 && !paused) {
      paused = true;
      ctx.channel().config().setAutoRead(false);
      resumeAfter(ctx, delay);
    }
  }

  private void resumeAfter(ChannelHandlerContext ctx, long delayNanos) {
    throttledNanos.addAndGet(delayNanos);
    ctx.executor()
        .schedule(
            () -> {
              if (!ctx.channel().isOpen()) {
                return;
              }
              // Another listener may have taken connections meanwhile: wait again if so.
              long again = limits.creationDelayNanos();
              if (again > 0) {
                resumeAfter(ctx, again);
                return;
              }
              paused = false;
              ctx.channel().config().setAutoRead(true);
            },
            delayNanos,
            TimeUnit.NANOSECONDS);
  }
}
