package dev.spool.network;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.socket.nio.NioChannelOption;
import jdk.net.ExtendedSocketOptions;

/**
 * Makes the kernel close a connection whose peer went silent, so the requests on it fail within
 * about {@code timeoutMs} instead of at their own deadline (a produce's 30 s request timeout, a
 * replica fetch's): a broker cut off by the network, a host that lost power, a route that drops
 * packets. Without it Linux retransmits unacknowledged data for about 15 minutes and sends the
 * first keepalive probe after 2 hours.
 *
 * <p>Two kernel mechanisms, one deadline:
 *
 * <ul>
 *   <li>{@code TCP_USER_TIMEOUT}: data written but not acknowledged for {@code timeoutMs} closes
 *       the connection (a request sent into a cut link).
 *   <li>TCP keepalive with a short idle time and interval: a connection that waits for an answer
 *       and receives nothing sends probes, and {@code TCP_USER_TIMEOUT} also bounds how long they
 *       may go unanswered (a request that reached the broker, whose answer is lost).
 * </ul>
 *
 * <p>A live but slow broker is not affected: its kernel acknowledges data and probes even while the
 * process is paused or busy, so only a peer the network cannot reach is cut. A long-poll fetch or
 * an acks=all produce waiting for replication keeps its connection. Connections through a
 * user-space proxy end at the proxy's kernel, so a proxy that stops forwarding is not detected here
 * (the request deadline still applies).
 *
 * <p>epoll (Linux, what Spool runs on) gets all of it; the NIO fallback gets the keepalive timing
 * only, as the JDK has no {@code TCP_USER_TIMEOUT}.
 */
final class DeadPeerDetection {
  private DeadPeerDetection() {}

  /** Sets the options on {@code b}; {@code timeoutMs} 0 leaves the operating system's. */
  static void apply(Bootstrap b, long timeoutMs, boolean epoll) {
    if (timeoutMs <= 0) {
      return;
    }
    // Probes start after a third of the deadline of silence and repeat every third: the deadline
    // passes with two or three probes unanswered. Keepalive counts whole seconds.
    int probeSeconds = (int) Math.max(1, timeoutMs / 3000);
    int probes = 3;
    b.option(ChannelOption.SO_KEEPALIVE, true);
    if (epoll) {
      b.option(EpollChannelOption.TCP_USER_TIMEOUT, (int) timeoutMs)
          .option(EpollChannelOption.TCP_KEEPIDLE, probeSeconds)
          .option(EpollChannelOption.TCP_KEEPINTVL, probeSeconds)
          .option(EpollChannelOption.TCP_KEEPCNT, probes);
    } else {
      b.option(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE), probeSeconds)
          .option(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL), probeSeconds)
          .option(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPCOUNT), probes);
    }
  }
}
