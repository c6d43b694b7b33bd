package dev.spool.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The options reach the kernel: read back with getsockopt from a live connection. That the kernel
 * then closes a connection to a peer the network cut is shown with real namespaces in the chaos
 * tier ({@code DeadConnectionIntegrationTest}).
 */
@Tag("integration")
class DeadPeerDetectionTest {
  private static Channel connect(EventLoopGroup group, ServerSocket server, long timeoutMs)
      throws Exception {
    Bootstrap b =
        new Bootstrap()
            .group(group)
            .channel(EpollSocketChannel.class)
            .handler(new ChannelInboundHandlerAdapter());
    DeadPeerDetection.apply(b, timeoutMs, true);
    return b.connect(InetAddress.getLoopbackAddress(), server.getLocalPort()).sync().channel();
  }

  @Test
  void shouldSetTheUserTimeoutAndKeepaliveTimingOnTheSocket() throws Exception {
    assumeTrue(Epoll.isAvailable(), "epoll is what Spool runs on: " + Epoll.unavailabilityCause());
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
      Channel ch = connect(group, server, 4500);
      try (Socket accepted = server.accept()) {
        assertTrue(ch.config().getOption(ChannelOption.SO_KEEPALIVE));
        assertEquals(4500, ch.config().getOption(EpollChannelOption.TCP_USER_TIMEOUT));
        assertEquals(1, ch.config().getOption(EpollChannelOption.TCP_KEEPIDLE));
        assertEquals(1, ch.config().getOption(EpollChannelOption.TCP_KEEPINTVL));
        assertEquals(3, ch.config().getOption(EpollChannelOption.TCP_KEEPCNT));
      } finally {
        ch.close().sync();
      }

      Channel longer = connect(group, server, 30_000);
      try (Socket accepted = server.accept()) {
        assertEquals(10, longer.config().getOption(EpollChannelOption.TCP_KEEPIDLE));
      } finally {
        longer.close().sync();
      }

      Channel off = connect(group, server, 0);
      try (Socket accepted = server.accept()) {
        assertEquals(0, off.config().getOption(EpollChannelOption.TCP_USER_TIMEOUT), "OS default");
        assertFalse(off.config().getOption(ChannelOption.SO_KEEPALIVE));
      } finally {
        off.close().sync();
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  @Test
  void shouldRefuseANegativeOrOversizedTimeoutInTheConfig() {
    NetworkConfig base = NetworkConfig.defaults("t", "t-io");
    assertEquals(NetworkConfig.DEFAULT_DEAD_CONNECTION_TIMEOUT_MS, base.deadConnectionTimeoutMs());
    assertEquals(0, base.withDeadConnectionTimeout(0).deadConnectionTimeoutMs());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> base.withDeadConnectionTimeout(-1));
    assertTrue(e.getMessage().contains("dead connection timeout"), e.getMessage());
  }
}
