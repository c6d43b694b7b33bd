package dev.spool.broker.network;

import dev.spool.protocol.FrameDecoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's client listener: Netty (epoll when available), one {@link ConnectionHandler} per
 * connection, requests dispatched to handlers that never block the event loop.
 */
public final class BrokerServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BrokerServer.class);

  /** Network limits and sizes; the node builds it from its config keys. */
  public record Settings(
      String bindHost,
      int bindPort,
      int networkThreads,
      int maxFrameBytes,
      int maxInFlightPerConnection,
      long maxQueuedRequestBytes,
      long connectionMaxIdleMs,
      String logPrefix) {}

  private final Settings settings;
  private final RequestDispatcher dispatcher;
  private final RequestMemoryPool memory;
  private EventLoopGroup boss;
  private EventLoopGroup workers;
  private Channel serverChannel;

  public BrokerServer(Settings settings, RequestDispatcher dispatcher) {
    this.settings = settings;
    this.dispatcher = dispatcher;
    this.memory = new RequestMemoryPool(settings.maxQueuedRequestBytes());
  }

  /** Binds the listener; throws with the address named when the port is taken. */
  public void start() {
    boss = Transport.group(1, "spool-accept");
    workers = Transport.group(settings.networkThreads(), "spool-network");
    ServerBootstrap b =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(Transport.serverChannel())
            .option(ChannelOption.SO_BACKLOG, 1024)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 4 << 20))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(
                            "idle",
                            new IdleStateHandler(
                                0, 0, settings.connectionMaxIdleMs(), TimeUnit.MILLISECONDS))
                        .addLast("frames", new FrameDecoder(settings.maxFrameBytes()))
                        .addLast(
                            "requests",
                            new ConnectionHandler(
                                dispatcher,
                                memory,
                                settings.maxInFlightPerConnection(),
                                settings.logPrefix()));
                  }
                });
    try {
      serverChannel =
          b.bind(settings.bindHost(), settings.bindPort()).syncUninterruptibly().channel();
    } catch (RuntimeException e) {
      close();
      throw new IllegalStateException(
          "cannot listen on "
              + settings.bindHost()
              + ":"
              + settings.bindPort()
              + ": "
              + e.getMessage(),
          e);
    }
    log.info(
        "{} listening on {} ({} transport, {} network threads)",
        settings.logPrefix(),
        serverChannel.localAddress(),
        Transport.name(),
        settings.networkThreads());
  }

  public int boundPort() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  @Override
  public void close() {
    if (serverChannel != null) {
      serverChannel.close().syncUninterruptibly();
    }
    if (boss != null) {
      boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
    if (workers != null) {
      workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }
}
