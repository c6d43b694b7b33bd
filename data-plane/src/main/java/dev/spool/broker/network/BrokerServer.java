package dev.spool.broker.network;

import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.protocol.FrameDecoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's client listeners: Netty (epoll when available), one {@link ConnectionHandler} per
 * connection, requests served by protocols whose handlers never block the event loop. The Spool
 * listener is always there; other listeners (Kafka's protocol) are added before {@link #start}. All
 * listeners share the event loops and the memory bound for unanswered requests ({@code
 * queued.max.request.bytes} is one budget per broker, as in Kafka), so a second protocol adds no
 * threads and no second budget.
 */
public final class BrokerServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BrokerServer.class);

  /** The name of the listener for Spool's own protocol. */
  public static final String SPOOL_LISTENER = "spool";

  /** Network limits and sizes; the node builds it from its config keys. */
  public record Settings(
      String bindHost,
      int bindPort,
      int networkThreads,
      int maxFrameBytes,
      int maxInFlightPerConnection,
      long maxQueuedRequestBytes,
      long connectionMaxIdleMs,
      long requestReceiveTimeoutMs,
      int maxConnections,
      int maxConnectionsPerIp,
      Map<InetAddress, Integer> maxConnectionsPerIpOverrides,
      int maxConnectionCreationRate,
      String logPrefix) {

    /** Settings without per-address overrides or a connection creation rate. */
    public Settings(
        String bindHost,
        int bindPort,
        int networkThreads,
        int maxFrameBytes,
        int maxInFlightPerConnection,
        long maxQueuedRequestBytes,
        long connectionMaxIdleMs,
        long requestReceiveTimeoutMs,
        int maxConnections,
        int maxConnectionsPerIp,
        String logPrefix) {
      this(
          bindHost,
          bindPort,
          networkThreads,
          maxFrameBytes,
          maxInFlightPerConnection,
          maxQueuedRequestBytes,
          connectionMaxIdleMs,
          requestReceiveTimeoutMs,
          maxConnections,
          maxConnectionsPerIp,
          Map.of(),
          Integer.MAX_VALUE,
          logPrefix);
    }
  }

  /** How long {@link #close} waits for the open connections to close. */
  private static final long CLOSE_WAIT_MS = 2_000;

  /** Lines about refused or closed connections: at most one per this many ms per server. */
  private static final long CONNECTION_LOG_INTERVAL_MS = 5_000;

  /** One listener: where it binds and the protocol it speaks. */
  private record Listener(String name, String host, int port, WireProtocol<?, ?> protocol) {}

  /**
   * A TLS listener's context, its ssl.client.auth (for log lines) and how its clients' certificate
   * subjects become principals.
   */
  private record Tls(SslContext context, String clientAuth, SslPrincipalMapper principals) {}

  private final Settings settings;
  private CompletableFuture<Void> servable = CompletableFuture.completedFuture(null);
  private final RequestMemoryPool memory;
  private final ConnectionLimits limits;
  private final AtomicLong acceptThrottledNanos = new AtomicLong();
  private final RateLimitedLog refusalLog =
      new RateLimitedLog(log, 1, CONNECTION_LOG_INTERVAL_MS, System::nanoTime);
  private final BrokerMetrics metrics;
  private final List<Listener> listeners = new ArrayList<>();
  private final Map<String, Channel> channels = new LinkedHashMap<>();
  private final Map<String, Tls> tls = new HashMap<>();
  private EventLoopGroup boss;
  private EventLoopGroup workers;

  /**
   * Every admitted connection while it is open (the group drops closed ones): {@link #close} closes
   * them itself and waits, rather than trusting the event loops' shutdown to reach each one, so no
   * client of a stopped server keeps a connection that takes requests and never answers.
   */
  private final ChannelGroup connections =
      new DefaultChannelGroup("connections", GlobalEventExecutor.INSTANCE);

  public BrokerServer(Settings settings, RequestDispatcher dispatcher) {
    this(settings, dispatcher, BrokerMetrics.DISABLED);
  }

  /** A server whose connections count requests, latencies and connections in {@code metrics}. */
  public BrokerServer(Settings settings, RequestDispatcher dispatcher, BrokerMetrics metrics) {
    this(settings, dispatcher, metrics, null, 0);
  }

  /**
   * As {@link #BrokerServer(Settings, RequestDispatcher, BrokerMetrics)}, with SASL on Spool's
   * listener ({@code SPOOL:SASL_PLAINTEXT} or {@code SASL_SSL}).
   *
   * @param sasl the listener's SASL exchange; null: no SASL
   * @param saslMaxReceiveBytes {@code sasl.server.max.receive.size}
   */
  public BrokerServer(
      Settings settings,
      RequestDispatcher dispatcher,
      BrokerMetrics metrics,
      SaslAuthentication sasl,
      int saslMaxReceiveBytes) {
    this.settings = settings;
    this.metrics = metrics;
    this.memory = new RequestMemoryPool(settings.maxQueuedRequestBytes());
    this.limits =
        new ConnectionLimits(
            settings.maxConnections(),
            settings.maxConnectionsPerIp(),
            settings.maxConnectionsPerIpOverrides(),
            settings.maxConnectionCreationRate(),
            System::nanoTime);
    metrics.counter(
        "spool_connection_accept_throttle_seconds_total",
        "Seconds the listeners stopped accepting to hold max.connection.creation.rate.",
        () -> acceptThrottledNanos.get() / 1e9);
    metrics.gauge(
        "spool_request_memory_used_bytes",
        "Bytes held by requests read and not yet answered (queued.max.request.bytes bounds it).",
        memory::usedBytes);
    metrics.gauge(
        "spool_request_memory_limit_bytes",
        "The bound on bytes held by unanswered requests (queued.max.request.bytes).",
        memory::limitBytes);
    if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider pool) {
      // The JVM's shared Netty pool: socket reads, answers' headers, TLS records.
      ByteBufAllocatorMetric m = pool.metric();
      metrics.gauge(
          "spool_network_pool_direct_used_bytes",
          "Direct memory the network buffer pool holds (the JVM's Netty pool: socket reads,"
              + " answer headers, TLS records).",
          m::usedDirectMemory);
      metrics.gauge(
          "spool_network_pool_heap_used_bytes",
          "Heap memory the network buffer pool holds (the JVM's Netty pool).",
          m::usedHeapMemory);
    }
    listeners.add(
        new Listener(
            SPOOL_LISTENER,
            settings.bindHost(),
            settings.bindPort(),
            new SpoolProtocol(dispatcher, settings.logPrefix(), sasl, saslMaxReceiveBytes)));
  }

  /** Adds a listener speaking {@code protocol} on host:port; before {@link #start}. */
  public BrokerServer addListener(String name, String host, int port, WireProtocol<?, ?> protocol) {
    if (boss != null) {
      throw new IllegalStateException("listeners are added before start");
    }
    listeners.add(new Listener(name, host, port, protocol));
    return this;
  }

  /**
   * Makes the named listener a TLS listener (security protocol SSL); before {@link #start}. Its
   * fetch answers are copied through the TLS engine rather than sent with sendfile ({@link
   * TlsFileRegionCopier}).
   */
  public BrokerServer tls(String listener, SslContext context, String clientAuth) {
    return tls(listener, context, clientAuth, SslPrincipalMapper.DEFAULT);
  }

  /**
   * As {@link #tls(String, SslContext, String)}, with the client certificates' subjects named by
   * {@code principals} ({@code ssl.principal.mapping.rules}).
   */
  public BrokerServer tls(
      String listener, SslContext context, String clientAuth, SslPrincipalMapper principals) {
    if (boss != null) {
      throw new IllegalStateException("TLS is set before start");
    }
    if (listeners.stream().noneMatch(l -> l.name().equals(listener))) {
      throw new IllegalArgumentException("no listener " + listener);
    }
    tls.put(listener, new Tls(context, clientAuth, principals));
    return this;
  }

  /**
   * Requests read before {@code servable} completes wait for it (connections are accepted, TLS
   * handshakes complete, frames are read within the in-flight and memory limits), then are served
   * in order; before {@link #start}. Without it every request is served at once.
   */
  public BrokerServer holdRequestsUntil(CompletableFuture<Void> servable) {
    if (boss != null) {
      throw new IllegalStateException("the request gate is set before start");
    }
    this.servable = servable;
    return this;
  }

  /** Binds every listener; throws with the address named when a port is taken. */
  public void start() {
    boss = Transport.group(1, "spool-accept");
    workers = Transport.group(settings.networkThreads(), "spool-network");
    for (Listener l : listeners) {
      Channel ch;
      try {
        ch = bootstrap(l).bind(l.host(), l.port()).syncUninterruptibly().channel();
      } catch (RuntimeException e) {
        close();
        throw new IllegalStateException(
            "cannot listen on "
                + l.host()
                + ":"
                + l.port()
                + " ("
                + l.name()
                + "): "
                + e.getMessage(),
            e);
      }
      channels.put(l.name(), ch);
      log.info(
          "{} {} listener on {} ({}, {} transport, {} network threads)",
          settings.logPrefix(),
          l.name(),
          ch.localAddress(),
          tls.containsKey(l.name()) ? "TLS" : "plaintext",
          Transport.name(),
          settings.networkThreads());
    }
  }

  private ServerBootstrap bootstrap(Listener l) {
    String prefix =
        l.name().equals(SPOOL_LISTENER)
            ? settings.logPrefix()
            : settings.logPrefix() + "[" + l.name() + "]";
    ServerBootstrap b = new ServerBootstrap();
    if (limits.limitsCreationRate()) {
      b.handler(new AcceptThrottle(limits, acceptThrottledNanos));
    }
    return b.group(boss, workers)
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
                if (!admit(ch, prefix)) {
                  return;
                }
                Tls t = tls.get(l.name());
                if (t != null) {
                  // Outbound, the copier turns fetch answers' file regions into buffers before
                  // they reach the SslHandler, which cannot take a FileRegion.
                  ch.pipeline()
                      .addLast("tls", t.context().newHandler(ch.alloc()))
                      .addLast("tls-log", new TlsHandshakeLog(refusalLog, prefix, t.clientAuth()))
                      .addLast("tls-copy", new TlsFileRegionCopier());
                }
                ch.pipeline()
                    .addLast(
                        "idle",
                        new IdleStateHandler(
                            0, 0, settings.connectionMaxIdleMs(), TimeUnit.MILLISECONDS))
                    .addLast(
                        "frames",
                        FrameDecoder.forServer(
                            settings.maxFrameBytes(), memory, settings.requestReceiveTimeoutMs()))
                    .addLast(
                        "requests",
                        new ConnectionHandler<>(
                            l.protocol(),
                            memory,
                            metrics,
                            settings.maxInFlightPerConnection(),
                            prefix,
                            t == null ? null : t.principals(),
                            servable));
              }
            });
  }

  /**
   * Counts the accepted connection against the connection limits, or closes it at once with one
   * (rate-limited) line; nothing is read from a refused connection.
   */
  private boolean admit(SocketChannel ch, String prefix) {
    InetAddress ip = ch.remoteAddress().getAddress();
    String refusal = limits.admit(ip);
    if (refusal != null) {
      refusalLog.warn("{} refused a connection from {}: {}", prefix, ch.remoteAddress(), refusal);
      ch.close();
      return false;
    }
    ch.closeFuture().addListener(f -> limits.release(ip));
    connections.add(ch);
    return true;
  }

  /** Bytes the request memory pool holds now (partial and unanswered requests). */
  long requestMemoryBytes() {
    return memory.usedBytes();
  }

  /** Connections open now over every listener. */
  int connectionCount() {
    return limits.connections();
  }

  /** The port the Spool listener is bound to. */
  public int boundPort() {
    return boundPort(SPOOL_LISTENER);
  }

  /** The port the named listener is bound to. */
  public int boundPort(String listener) {
    Channel ch = channels.get(listener);
    if (ch == null) {
      throw new IllegalArgumentException("no listener " + listener);
    }
    return ((InetSocketAddress) ch.localAddress()).getPort();
  }

  @Override
  public void close() {
    for (Channel ch : channels.values()) {
      ch.close().syncUninterruptibly();
    }
    channels.clear();
    // After the listeners: nothing new is admitted while the open connections close.
    connections.close().awaitUninterruptibly(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
    if (boss != null) {
      boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
    if (workers != null) {
      workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }
}
