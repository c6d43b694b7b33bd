package dev.spool.chaos.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy for one upstream (a broker) with faults that can be switched on and off while
 * connections are open. Clients connect to {@link #port()}; each accepted connection gets its own
 * connection to the upstream.
 *
 * <ul>
 *   <li><b>latency</b>: every chunk of bytes is held for the given time before it is forwarded,
 *       separately per direction; order is always kept.
 *   <li><b>bandwidth</b>: each direction of each connection forwards at most the given bytes per
 *       second (chunks of at most {@value #CHUNK_BYTES} bytes, each sent when the previous one has
 *       "finished transmitting").
 *   <li><b>refuse new connections</b>: accepted connections are reset at once.
 *   <li><b>reset connections</b>: every open connection is closed with a TCP RST on both sides,
 *       mid-stream.
 *   <li><b>black hole</b>: connections are accepted, but nothing is forwarded and the proxy stops
 *       reading, as a link that silently stopped carrying packets; new connections are not
 *       connected upstream. Bytes are held, not dropped: when the black hole ends the held bytes
 *       flow again, as TCP retransmission would deliver them.
 * </ul>
 *
 * <p>Threads: fault settings are volatile fields written by any thread. Each connection pair lives
 * on the event loop of its client channel (the upstream channel is registered on the same loop),
 * and all its state is touched only there. Timing uses {@link System#nanoTime()}: this is an I/O
 * edge that delays real bytes in real time. Queued bytes per direction are bounded: above {@value
 * #MAX_QUEUED_BYTES} the proxy stops reading that side (back-pressure, not memory growth).
 */
public final class FaultProxy implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
  static final int CHUNK_BYTES = 4096;
  static final long MAX_QUEUED_BYTES = 1 << 20;

  private final String name;
  private final InetSocketAddress upstream;
  private final EventLoopGroup group;
  private final boolean ownsGroup;
  private final Channel server;
  private final Set<Pair> pairs = ConcurrentHashMap.newKeySet();

  private volatile long toUpstreamLatencyNs;
  private volatile long toClientLatencyNs;
  private volatile long bytesPerSecond;
  private volatile boolean refuseNew;
  private volatile boolean blackHole;

  private FaultProxy(
      String name,
      InetSocketAddress upstream,
      EventLoopGroup group,
      boolean ownsGroup,
      InetSocketAddress listen) {
    this.name = name;
    this.upstream = upstream;
    this.group = group;
    this.ownsGroup = ownsGroup;
    this.server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    Pair p = new Pair(ch);
                    ch.pipeline().addLast(p.clientHandler());
                  }
                })
            .bind(listen)
            .syncUninterruptibly()
            .channel();
    LOG.info("proxy {} listening on {} -> {}", name, server.localAddress(), upstream);
  }

  /** A proxy with its own single-threaded event loop, listening on {@code listen} (port 0: any). */
  public static FaultProxy start(
      String name, InetSocketAddress listen, InetSocketAddress upstream) {
    return new FaultProxy(
        name,
        upstream,
        new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()),
        true,
        listen);
  }

  /** A proxy on a shared event loop group, which the caller closes. */
  public static FaultProxy start(
      String name, InetSocketAddress listen, InetSocketAddress upstream, EventLoopGroup group) {
    return new FaultProxy(name, upstream, group, false, listen);
  }

  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  public String name() {
    return name;
  }

  /** Holds bytes toward the upstream and toward the client for these times (0: none). */
  public void setLatency(long toUpstreamMs, long toClientMs) {
    toUpstreamLatencyNs = TimeUnit.MILLISECONDS.toNanos(toUpstreamMs);
    toClientLatencyNs = TimeUnit.MILLISECONDS.toNanos(toClientMs);
    LOG.info(
        "proxy {}: latency {} ms to upstream, {} ms to client", name, toUpstreamMs, toClientMs);
  }

  /** Limits each direction of each connection (0 or less: unlimited). */
  public void setBandwidth(long bytesPerSecond) {
    this.bytesPerSecond = Math.max(0, bytesPerSecond);
    LOG.info(
        "proxy {}: bandwidth {} bytes/s", name, bytesPerSecond <= 0 ? "unlimited" : bytesPerSecond);
  }

  public void refuseNewConnections(boolean refuse) {
    refuseNew = refuse;
    LOG.info("proxy {}: {} new connections", name, refuse ? "refusing" : "accepting");
  }

  /** Resets every open connection, both sides, with RST. */
  public void resetConnections() {
    LOG.info("proxy {}: resetting {} connections", name, pairs.size());
    for (Pair p : pairs) {
      p.client.eventLoop().execute(p::reset);
    }
  }

  public void setBlackHole(boolean on) {
    blackHole = on;
    LOG.info("proxy {}: black hole {}", name, on ? "on" : "off");
    if (!on) {
      resumeAll();
    }
  }

  /** Removes every fault; held bytes and held connections proceed. */
  public void heal() {
    toUpstreamLatencyNs = 0;
    toClientLatencyNs = 0;
    bytesPerSecond = 0;
    refuseNew = false;
    blackHole = false;
    LOG.info("proxy {}: healed", name);
    resumeAll();
  }

  /** Connections currently open through this proxy. */
  public int openConnections() {
    return pairs.size();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    for (Pair p : pairs) {
      p.client.eventLoop().execute(p::reset);
    }
    if (ownsGroup) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private void resumeAll() {
    for (Pair p : pairs) {
      p.client.eventLoop().execute(p::resume);
    }
  }

  private static void resetChannel(Channel ch) {
    if (ch != null && ch.isOpen()) {
      ch.config().setOption(ChannelOption.SO_LINGER, 0); // close() then sends RST, not FIN
      ch.close();
    }
  }

  /** One client connection and its upstream connection; confined to the client's event loop. */
  private final class Pair {
    final Channel client;
    Channel upstreamChannel;
    boolean connecting;
    boolean done;
    final Direction toUpstream = new Direction(true);
    final Direction toClient = new Direction(false);

    Pair(Channel client) {
      this.client = client;
    }

    ChannelInboundHandlerAdapter clientHandler() {
      return new ChannelInboundHandlerAdapter() {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
          if (refuseNew) {
            resetChannel(client);
            return;
          }
          pairs.add(Pair.this);
          if (!blackHole) {
            connect();
          }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
          toUpstream.enqueue((ByteBuf) msg);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
          toClient.updateReading();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
          sourceClosed(toUpstream, toClient);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
          ctx.close();
        }
      };
    }

    ChannelInboundHandlerAdapter upstreamHandler() {
      return new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
          toClient.enqueue((ByteBuf) msg);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
          toUpstream.updateReading();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
          sourceClosed(toClient, toUpstream);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
          ctx.close();
        }
      };
    }

    void connect() {
      if (connecting || upstreamChannel != null || done) {
        return;
      }
      connecting = true;
      new Bootstrap()
          .group(client.eventLoop())
          .channel(NioSocketChannel.class)
          .option(ChannelOption.AUTO_READ, false)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(upstreamHandler())
          .connect(upstream)
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    connecting = false;
                    if (!f.isSuccess() || done) {
                      LOG.debug("proxy {}: upstream connect failed: {}", name, f.cause());
                      f.channel().close();
                      reset();
                      return;
                    }
                    upstreamChannel = f.channel();
                    toUpstream.drain();
                    toUpstream.updateReading();
                    toClient.updateReading();
                  });
    }

    /**
     * Data from {@code from}'s source ended: deliver what is queued, then close its destination.
     */
    void sourceClosed(Direction from, Direction reverse) {
      from.closeAfterDrain = true;
      from.drain();
      reverse.discard();
      if (!client.isActive() && (upstreamChannel == null || !upstreamChannel.isActive())) {
        finish();
      }
    }

    void resume() {
      if (done) {
        return;
      }
      if (!blackHole) {
        connect();
      }
      toUpstream.updateReading();
      toClient.updateReading();
      toUpstream.drain();
      toClient.drain();
    }

    void reset() {
      toUpstream.discard();
      toClient.discard();
      resetChannel(client);
      resetChannel(upstreamChannel);
      finish();
    }

    void finish() {
      done = true;
      pairs.remove(this);
    }

    /** Bytes flowing one way, with their release times. */
    private final class Direction {
      private final boolean isToUpstream;
      private final ArrayDeque<ByteBuf> queue = new ArrayDeque<>();
      private final ArrayDeque<Long> sendAtNs = new ArrayDeque<>();
      private long queuedBytes;
      private long lastSendAtNs;
      private boolean drainScheduled;
      private boolean closing;
      boolean closeAfterDrain;

      Direction(boolean isToUpstream) {
        this.isToUpstream = isToUpstream;
      }

      Channel source() {
        return isToUpstream ? client : upstreamChannel;
      }

      Channel destination() {
        return isToUpstream ? upstreamChannel : client;
      }

      void enqueue(ByteBuf buf) {
        long now = System.nanoTime();
        long latency = isToUpstream ? toUpstreamLatencyNs : toClientLatencyNs;
        long bps = bytesPerSecond;
        try {
          while (buf.isReadable()) {
            ByteBuf chunk = buf.readRetainedSlice(Math.min(CHUNK_BYTES, buf.readableBytes()));
            long at = Math.max(now + latency, lastSendAtNs);
            if (bps > 0) {
              at += chunk.readableBytes() * 1_000_000_000L / bps;
            }
            lastSendAtNs = at;
            queue.add(chunk);
            sendAtNs.add(at);
            queuedBytes += chunk.readableBytes();
          }
        } finally {
          buf.release();
        }
        updateReading();
        drain();
      }

      void drain() {
        Channel dst = destination();
        if (blackHole || dst == null) {
          return;
        }
        long now = System.nanoTime();
        boolean wrote = false;
        while (!queue.isEmpty() && sendAtNs.peek() <= now) {
          ByteBuf b = queue.poll();
          sendAtNs.poll();
          queuedBytes -= b.readableBytes();
          dst.write(b);
          wrote = true;
        }
        if (wrote) {
          dst.flush();
        }
        if (!queue.isEmpty()) {
          if (!drainScheduled) {
            drainScheduled = true;
            client
                .eventLoop()
                .schedule(
                    () -> {
                      drainScheduled = false;
                      drain();
                    },
                    sendAtNs.peek() - now,
                    TimeUnit.NANOSECONDS);
          }
        } else if (closeAfterDrain && !closing) {
          closing = true; // the source ended and everything it sent is out: close once
          dst.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
        updateReading();
      }

      void updateReading() {
        Channel src = source();
        Channel dst = destination();
        if (src == null || !src.isOpen()) {
          return;
        }
        boolean read =
            !blackHole && dst != null && dst.isWritable() && queuedBytes < MAX_QUEUED_BYTES;
        src.config().setAutoRead(read);
      }

      void discard() {
        while (!queue.isEmpty()) {
          queue.poll().release();
        }
        sendAtNs.clear();
        queuedBytes = 0;
      }
    }
  }
}
