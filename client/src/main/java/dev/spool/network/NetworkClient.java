package dev.spool.network;

import com.google.protobuf.MessageLite;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.Frame;
import dev.spool.protocol.FrameBuffers;
import dev.spool.protocol.FrameDecoder;
import dev.spool.protocol.InvalidFrameException;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.protocol.message.ResponseHeader;
import dev.spool.protocol.message.SaslAuthenticateResponse;
import dev.spool.protocol.message.SaslHandshakeResponse;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of the Spool protocol: one Netty connection per node, ApiVersions first on each
 * connection, pipelined requests matched to responses by correlation id (responses must arrive in
 * request order), a deadline per request, a bounded number of requests in flight per connection,
 * and exponential reconnect backoff per node.
 *
 * <p>Threading: everything happens on one Netty event loop (the client's I/O thread). {@link #send}
 * and {@link #close} may be called from any thread; the methods documented "I/O thread only" serve
 * code that itself runs on {@link #eventLoop()} (the producer's sender, the metadata refresher) and
 * assert it. Futures complete on the I/O thread, so their callbacks must not block.
 *
 * <p>Failures: a request that cannot be answered fails with a {@link SpoolException} whose code
 * says what to do. Connection problems (connect failure, peer close, write failure, invalid frame)
 * fail every queued and in-flight request on that connection with the retriable
 * BROKER_NOT_AVAILABLE (which also asks for a metadata refresh), and so does a request still
 * waiting at its deadline for a connection that never became ready; a request written but not
 * answered by its deadline fails with REQUEST_TIMED_OUT and closes the connection, because later
 * responses on it could no longer be trusted to be in order; a broker without a common version for
 * an API fails requests for that API with UNSUPPORTED_VERSION, naming both version ranges.
 */
public final class NetworkClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NetworkClient.class);

  /** Hears about connections; called on the I/O thread. */
  public interface ConnectionListener {
    default void onReady(Node node) {}

    default void onDisconnected(Node node, SpoolException cause) {}
  }

  private final NetworkConfig config;
  private final Clock clock;
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final Bootstrap bootstrap;
  private final NodeReconnects reconnects;
  private final FrameBuffers frameBuffers;
  private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
  // I/O thread only:
  private final Map<Integer, Connection> connections = new HashMap<>();

  private final ScheduledFuture<?> ticker;
  private volatile boolean closed;

  public NetworkClient(NetworkConfig config, Clock clock) {
    this(config, clock, new Random());
  }

  public NetworkClient(NetworkConfig config, Clock clock, Random random) {
    this.config = config;
    this.clock = clock;
    this.reconnects = new NodeReconnects(config, random);
    // Pooled frame arrays: enough for a few fetch answers of the default sizes in flight and
    // buffered; larger or more are left to the garbage collector.
    this.frameBuffers =
        config.heapResponseFrames() ? FrameBuffers.heap(64L << 20) : FrameBuffers.DIRECT;
    boolean epoll = Epoll.isAvailable();
    this.group =
        new MultiThreadIoEventLoopGroup(
            1,
            new DefaultThreadFactory(config.ioThreadName(), true),
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    this.loop = group.next();
    this.bootstrap =
        new Bootstrap()
            .group(loop)
            .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, config.connectTimeoutMs()));
    DeadPeerDetection.apply(bootstrap, config.deadConnectionTimeoutMs(), epoll);
    this.ticker =
        loop.scheduleAtFixedRate(
            this::tick, config.timerTickMs(), config.timerTickMs(), TimeUnit.MILLISECONDS);
  }

  public NetworkConfig config() {
    return config;
  }

  /** The I/O thread's loop, for code that wants to run confined to it. */
  public EventLoop eventLoop() {
    return loop;
  }

  public boolean inEventLoop() {
    return loop.inEventLoop();
  }

  public void addListener(ConnectionListener listener) {
    listeners.add(listener);
  }

  /**
   * Sends one request. The record data (may be {@code null}) is owned by the client from now on.
   * The deadline ({@code timeoutMs}) runs from now and covers waiting for a connection, for an
   * in-flight slot and for the answer. With {@code expectResponse == false} the future completes
   * once the bytes are written, with a response that has no header or body.
   */
  public CompletableFuture<ClientResponse> send(
      Node node,
      ApiKey api,
      MessageLite body,
      ByteBuf recordData,
      long timeoutMs,
      boolean expectResponse) {
    Request r = new Request(node, api, body, recordData, timeoutMs, expectResponse, false);
    if (loop.inEventLoop()) {
      enqueue(r);
    } else {
      try {
        loop.execute(() -> enqueue(r));
      } catch (RejectedExecutionException e) {
        fail(r, closedException());
      }
    }
    return r.future;
  }

  public CompletableFuture<ClientResponse> send(
      Node node, ApiKey api, MessageLite body, long timeoutMs) {
    return send(node, api, body, null, timeoutMs, true);
  }

  // ------------------------------------------------------------------ I/O-thread-only queries

  /**
   * True when a request to {@code node} would be written at once: connected, handshake done, an
   * in-flight slot free, nothing queued, the socket writable. Otherwise starts connecting (subject
   * to the node's reconnect backoff) and returns false; listeners hear when it becomes ready.
   */
  public boolean ready(Node node) {
    assertInLoop();
    if (closed) {
      return false;
    }
    Connection c = connectionFor(node);
    return c.state == ConnectionState.READY
        && c.pending.isEmpty()
        && c.inFlight.size() < config.maxInFlightRequestsPerConnection()
        && c.channel.isWritable();
  }

  /** Requests written to {@code nodeId} and not yet answered. */
  public int inFlightCount(int nodeId) {
    assertInLoop();
    Connection c = connections.get(nodeId);
    return c == null ? 0 : c.inFlight.size();
  }

  /** Milliseconds until a connection attempt to {@code node} is allowed (0 = now or connected). */
  public long reconnectDelayMs(Node node) {
    assertInLoop();
    Connection c = connections.get(node.id());
    if (c != null && c.state != ConnectionState.BACKOFF) {
      return 0;
    }
    return reconnects.delayMs(node.id(), clock.nanoTime());
  }

  /**
   * The best node for a request that any node can answer (Kafka's least-loaded node): a READY
   * connection with the fewest requests in flight; else a node that is connecting; else one whose
   * reconnect wait is over; else the node whose wait ends soonest. {@code null} for no candidates.
   * Ties go to the node whose connection was attempted longest ago (never attempted first): with
   * the first bootstrap address down, the others must get their turn even when each retry comes
   * after that address's reconnect wait has ended (Kafka starts at a random offset instead).
   */
  public Node leastLoadedNode(Collection<Node> candidates) {
    assertInLoop();
    Node best = null;
    long bestScore = Long.MAX_VALUE;
    long bestAttemptNs = Long.MAX_VALUE;
    for (Node n : candidates) {
      Connection c = connections.get(n.id());
      long score;
      if (c != null && c.node.equals(n) && c.state == ConnectionState.READY) {
        score = c.inFlight.size() + c.pending.size();
      } else if (c != null && c.node.equals(n) && c.state != ConnectionState.BACKOFF) {
        score = 1_000_000L;
      } else {
        score = 2_000_000L + reconnectDelayMs(n);
      }
      long attemptNs = reconnects.lastAttemptNs(n.id());
      if (score < bestScore || score == bestScore && attemptNs < bestAttemptNs) {
        best = n;
        bestScore = score;
        bestAttemptNs = attemptNs;
      }
    }
    return best;
  }

  private void assertInLoop() {
    if (!loop.inEventLoop()) {
      throw new IllegalStateException("called outside the client's I/O thread");
    }
  }

  // ------------------------------------------------------------------ sending

  private void enqueue(Request r) {
    if (closed) {
      fail(r, closedException());
      return;
    }
    r.deadlineNs = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, r.timeoutMs));
    Connection c = connectionFor(r.node);
    if (c.pending.size() >= config.maxQueuedRequestsPerConnection()) {
      fail(
          r,
          new IllegalStateException(
              "more than "
                  + config.maxQueuedRequestsPerConnection()
                  + " requests queued for "
                  + r.node));
      return;
    }
    c.pending.add(r);
    drain(c);
  }

  private Connection connectionFor(Node node) {
    Connection c = connections.get(node.id());
    if (c != null && !c.node.equals(node)) {
      closeConnection(
          c,
          new SpoolException(
              ErrorCode.BROKER_NOT_AVAILABLE, c.node + " moved to " + node.address()),
          null);
      c = null;
    }
    if (c == null) {
      c = new Connection(node);
      connections.put(node.id(), c);
      Long at = reconnects.waitingUntilNs(node.id(), clock.nanoTime());
      if (at != null) {
        c.connectAtNs = at;
        c.state = ConnectionState.BACKOFF;
        c.stateSinceNs = clock.nanoTime();
      } else {
        connect(c);
      }
    }
    return c;
  }

  private void connect(Connection c) {
    reconnects.attempting(c.node.id(), clock.nanoTime());
    transition(c, ConnectionState.CONNECTING, "connecting");
    Bootstrap b =
        bootstrap
            .clone()
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (config.sslContext() != null) {
                      // Requests written before the handshake ends wait in the SslHandler.
                      ch.pipeline()
                          .addLast(
                              config
                                  .sslContext()
                                  .newHandler(ch.alloc(), c.node.host(), c.node.port()));
                    }
                    ch.pipeline()
                        .addLast(
                            new FrameDecoder(config.maxResponseFrameBytes(), frameBuffers),
                            new InboundHandler(c));
                  }
                });
    ChannelFuture f = b.connect(c.node.host(), c.node.port());
    c.channel = f.channel();
    f.addListener(
        done -> {
          if (c.state != ConnectionState.CONNECTING) {
            f.channel().close();
          } else if (done.isSuccess()) {
            startHandshake(c);
          } else {
            closeConnection(
                c,
                new SpoolException(
                    ErrorCode.BROKER_NOT_AVAILABLE,
                    "cannot connect to "
                        + c.node
                        + ": "
                        + ConnectionFailures.describe(done.cause())),
                null);
          }
        });
  }

  private void startHandshake(Connection c) {
    transition(c, ConnectionState.HANDSHAKING, "connected, sending ApiVersions");
    c.handshakeDeadlineNs =
        clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.connectTimeoutMs());
    sendHandshakeStep(c, ApiKey.API_VERSIONS, ApiVersionsHandshake.request());
  }

  /** ApiVersions, or a step of the SASL login: before READY, by the connect deadline. */
  private void sendHandshakeStep(Connection c, ApiKey api, MessageLite body) {
    Request hs = new Request(c.node, api, body, null, config.connectTimeoutMs(), true, true);
    hs.deadlineNs = c.handshakeDeadlineNs;
    write(c, hs, 0);
  }

  private void drain(Connection c) {
    while (c.state == ConnectionState.READY
        && !c.pending.isEmpty()
        && c.inFlight.size() < config.maxInFlightRequestsPerConnection()
        && c.channel.isWritable()) {
      Request r = c.pending.poll();
      if (r.future.isDone()) {
        r.releaseData();
        continue;
      }
      int version;
      try {
        version = ApiVersionsHandshake.versionFor(r.api, c.node, c.versions);
      } catch (SpoolException e) {
        fail(r, e);
        continue;
      }
      write(c, r, version);
    }
  }

  private void write(Connection c, Request r, int version) {
    r.correlationId = c.nextCorrelationId++;
    RequestHeader header =
        RequestHeader.newBuilder()
            .setApiKey(r.api)
            .setApiVersion(version)
            .setCorrelationId(r.correlationId)
            .setClientId(config.clientId())
            .build();
    ByteBuf data = r.recordData;
    r.recordData = null;
    ByteBuf out;
    try {
      ByteBuf prefix =
          Frame.encodePrefix(
              c.channel.alloc(), header, r.body, data == null ? 0 : data.readableBytes());
      out = data == null ? prefix : Unpooled.wrappedBuffer(prefix, data);
    } catch (RuntimeException e) {
      if (data != null) {
        data.release();
      }
      fail(r, e);
      return;
    }
    r.sentNs = clock.nanoTime();
    if (r.expectResponse) {
      c.inFlight.add(r);
    }
    ChannelFuture written = c.channel.writeAndFlush(out);
    written.addListener(
        done -> {
          if (!done.isSuccess()) {
            SpoolException e =
                new SpoolException(
                    ErrorCode.BROKER_NOT_AVAILABLE,
                    ConnectionFailures.failure("write to " + c.node, c.node, done.cause()));
            if (!r.expectResponse) {
              fail(r, e);
            }
            closeConnection(c, e, null);
          } else if (!r.expectResponse) {
            complete(r, ClientResponse.noResponse(r.api));
          }
        });
  }

  // ------------------------------------------------------------------ receiving

  private void onFrame(Connection c, ByteBuf frame) {
    try {
      Frame f = Frame.parse(frame);
      ResponseHeader h = f.parseHeader(ResponseHeader.parser());
      Request r = c.inFlight.peek();
      if (r == null) {
        throw new InvalidFrameException(
            "response with correlation id " + h.getCorrelationId() + " but no request in flight");
      }
      if (h.getCorrelationId() != r.correlationId) {
        throw new InvalidFrameException(
            "response correlation id "
                + h.getCorrelationId()
                + ", expected "
                + r.correlationId
                + " (responses must come in request order)");
      }
      c.inFlight.poll();
      if (h.getErrorCode() != ErrorCode.NONE) {
        SpoolException e = new SpoolException(h.getErrorCode(), h.getErrorMessage());
        if (r.handshake) {
          closeConnection(
              c,
              new SpoolException(
                  h.getErrorCode(),
                  r.api + " handshake with " + c.node + " failed: " + h.getErrorMessage()),
              null);
        } else {
          fail(r, e);
        }
      } else if (r.api == ApiKey.API_VERSIONS && r.handshake) {
        onHandshake(c, f.parseBody(ApiVersionsResponse.parser()));
      } else if (r.handshake) {
        onSaslStep(c, f.parseBody(ApiMessages.responseParser(r.api)));
      } else {
        MessageLite body = f.parseBody(ApiMessages.responseParser(r.api));
        ByteBuf data =
            f.recordData().isReadable() ? f.recordData().retain() : Unpooled.EMPTY_BUFFER;
        complete(r, new ClientResponse(r.api, h, body, data));
      }
    } catch (InvalidFrameException e) {
      closeConnection(
          c,
          new SpoolException(
              ErrorCode.BROKER_NOT_AVAILABLE,
              "invalid response from " + c.node + ": " + e.getMessage()),
          null);
    } finally {
      frame.release();
    }
    drain(c);
  }

  private void onHandshake(Connection c, ApiVersionsResponse response) {
    try {
      c.versions = ApiVersionsHandshake.accept(c.node, response);
    } catch (SpoolException e) {
      closeConnection(c, e, null);
      return;
    }
    String done = "ApiVersions done (broker " + response.getServerSoftwareVersion() + ")";
    if (config.sasl() != null) {
      c.sasl = new SaslLogin(config.sasl(), c.node);
      try {
        sendHandshakeStep(c, ApiKey.SASL_HANDSHAKE, c.sasl.handshake(c.versions));
      } catch (SpoolException e) {
        closeConnection(c, e, null);
      }
      return;
    }
    ready(c, done);
  }

  /**
   * A SaslHandshake or SaslAuthenticate answer: the next step, or READY once the login completed. A
   * failed login closes the connection and fails its requests with the login's error, which is not
   * retriable (docs/security.md#sasl).
   */
  private void onSaslStep(Connection c, MessageLite response) {
    MessageLite next;
    try {
      next =
          response instanceof SaslHandshakeResponse h
              ? c.sasl.onHandshake(h)
              : c.sasl.onAuthenticate((SaslAuthenticateResponse) response);
    } catch (SpoolException e) {
      log.warn(
          "[client={} node={}] SASL login failed: {}",
          config.clientId(),
          c.node.id(),
          e.getMessage());
      closeConnection(c, e, null);
      return;
    }
    if (next != null) {
      sendHandshakeStep(c, ApiKey.SASL_AUTHENTICATE, next);
    } else {
      ready(c, "authenticated with SASL " + c.sasl.describe());
    }
  }

  private void ready(Connection c, String reason) {
    reconnects.ready(c.node.id());
    transition(c, ConnectionState.READY, reason);
    for (ConnectionListener l : listeners) {
      l.onReady(c.node);
    }
    drain(c);
  }

  // ------------------------------------------------------------------ failure and time

  private void tick() {
    long now = clock.nanoTime();
    for (Connection c : new ArrayList<>(connections.values())) {
      if (c.state == ConnectionState.BACKOFF && now - c.connectAtNs >= 0) {
        connect(c);
      } else if (c.state == ConnectionState.CONNECTING
          && now - c.stateSinceNs > TimeUnit.MILLISECONDS.toNanos(config.connectTimeoutMs())) {
        closeConnection(
            c,
            new SpoolException(
                ErrorCode.BROKER_NOT_AVAILABLE,
                "connecting to "
                    + c.node
                    + " timed out after "
                    + config.connectTimeoutMs()
                    + " ms"),
            null);
        continue;
      }
      Request head = c.inFlight.peek();
      if (head != null && now - head.deadlineNs >= 0) {
        SpoolException timedOut =
            new SpoolException(
                ErrorCode.REQUEST_TIMED_OUT,
                head.api + " to " + c.node + " got no response within " + head.timeoutMs + " ms");
        closeConnection(
            c,
            new SpoolException(
                ErrorCode.BROKER_NOT_AVAILABLE,
                "connection to " + c.node + " closed: an earlier request timed out"),
            timedOut);
        continue;
      }
      for (Iterator<Request> it = c.pending.iterator(); it.hasNext(); ) {
        Request r = it.next();
        if (now - r.deadlineNs >= 0) {
          it.remove();
          fail(r, notSentInTime(c, r));
        }
      }
    }
  }

  /**
   * Why {@code r} is still queued at its deadline. A connection that never became ready (still
   * connecting, handshaking or waiting to reconnect) means the broker could not be reached:
   * BROKER_NOT_AVAILABLE, as a failed connect says, and not REQUEST_TIMED_OUT, which would tell the
   * caller a reachable broker was too slow (a request that waited out its deadline behind the
   * reconnect backoff of an unreachable node used to say that). A ready connection that stayed busy
   * (every in-flight slot taken, or the socket not writable) is a slow broker: REQUEST_TIMED_OUT.
   */
  private static SpoolException notSentInTime(Connection c, Request r) {
    String what =
        r.api + " to " + c.node + " could not be sent within " + r.timeoutMs + " ms (connection ";
    if (c.state != ConnectionState.READY) {
      return new SpoolException(
          ErrorCode.BROKER_NOT_AVAILABLE, what + c.state + ": never became ready)");
    }
    return new SpoolException(ErrorCode.REQUEST_TIMED_OUT, what + "ready but busy)");
  }

  /**
   * Closes {@code c} and fails its requests with {@code cause} ({@code headCause} for the oldest
   * in-flight request, when given). The node's reconnect backoff grows when it never got ready.
   */
  private void closeConnection(Connection c, SpoolException cause, SpoolException headCause) {
    if (c.state == ConnectionState.CLOSED) {
      return;
    }
    boolean wasReady = c.state == ConnectionState.READY;
    transition(c, ConnectionState.CLOSED, cause.getMessage());
    connections.remove(c.node.id(), c);
    if (c.channel != null) {
      c.channel.close();
    }
    reconnects.closed(c.node.id(), wasReady, clock.nanoTime());
    List<Request> failed = new ArrayList<>(c.inFlight);
    failed.addAll(c.pending);
    c.inFlight.clear();
    c.pending.clear();
    for (int i = 0; i < failed.size(); i++) {
      fail(failed.get(i), i == 0 && headCause != null ? headCause : cause);
    }
    for (ConnectionListener l : listeners) {
      l.onDisconnected(c.node, cause);
    }
  }

  private void transition(Connection c, ConnectionState next, String reason) {
    ConnectionState prev = c.state;
    c.state = next;
    c.stateSinceNs = clock.nanoTime();
    if (next == ConnectionState.READY || prev == ConnectionState.READY) {
      log.info(
          "[client={} node={}] connection {} -> {}: {}",
          config.clientId(),
          c.node.id(),
          prev,
          next,
          reason);
    } else {
      log.debug(
          "[client={} node={}] connection {} -> {}: {}",
          config.clientId(),
          c.node.id(),
          prev,
          next,
          reason);
    }
  }

  private void complete(Request r, ClientResponse response) {
    response.setLatencyNs(clock.nanoTime() - r.sentNs);
    if (!r.future.complete(response)) {
      response.close();
    }
  }

  private static void fail(Request r, Throwable t) {
    r.releaseData();
    r.future.completeExceptionally(t);
  }

  /** True once {@link #close} began: requests still pending fail with "client closed". */
  public boolean isClosed() {
    return closed;
  }

  private static IllegalStateException closedException() {
    return new IllegalStateException("client closed");
  }

  /** Closes every connection (failing their requests) and stops the I/O thread. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Runnable shutdown =
        () -> {
          ticker.cancel(false);
          for (Connection c : new ArrayList<>(connections.values())) {
            List<Request> failed = new ArrayList<>(c.inFlight);
            failed.addAll(c.pending);
            c.inFlight.clear();
            c.pending.clear();
            c.state = ConnectionState.CLOSED;
            if (c.channel != null) {
              c.channel.close();
            }
            failed.forEach(r -> fail(r, closedException()));
          }
          connections.clear();
        };
    if (loop.inEventLoop()) {
      shutdown.run();
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    } else {
      try {
        loop.submit(shutdown).awaitUninterruptibly(5, TimeUnit.SECONDS);
      } catch (RejectedExecutionException ignored) {
        // The loop is already gone: nothing is left to fail.
      }
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }

  // ------------------------------------------------------------------ state

  /** One connection's state; owned by the I/O thread. */
  private static final class Connection {
    final Node node;
    ConnectionState state = ConnectionState.BACKOFF;
    Channel channel;
    ApiVersionTable versions;
    SaslLogin sasl;
    long handshakeDeadlineNs;
    final ArrayDeque<Request> pending = new ArrayDeque<>();
    final ArrayDeque<Request> inFlight = new ArrayDeque<>();
    int nextCorrelationId = 1;
    long connectAtNs;
    long stateSinceNs;

    Connection(Node node) {
      this.node = node;
    }
  }

  private final class InboundHandler extends ChannelInboundHandlerAdapter {
    private final Connection c;

    InboundHandler(Connection c) {
      this.c = c;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (c.state == ConnectionState.CLOSED) {
        ((ByteBuf) msg).release();
        return;
      }
      onFrame(c, (ByteBuf) msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closeConnection(
          c,
          new SpoolException(ErrorCode.BROKER_NOT_AVAILABLE, "connection to " + c.node + " lost"),
          null);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (ctx.channel().isWritable()) {
        drain(c);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      Throwable root = cause.getCause() instanceof InvalidFrameException ? cause.getCause() : cause;
      String what = ConnectionFailures.failure("connection to " + c.node, c.node, root);
      log.warn("[client={} node={}] closing connection: {}", config.clientId(), c.node.id(), what);
      closeConnection(c, new SpoolException(ErrorCode.BROKER_NOT_AVAILABLE, what), null);
    }
  }
}
