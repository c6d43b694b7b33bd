package dev.spool.client.testing;

import com.google.protobuf.MessageLite;
import dev.spool.common.ErrorCode;
import dev.spool.network.ApiMessages;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.Frame;
import dev.spool.protocol.FrameDecoder;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.protocol.message.ResponseHeader;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted broker for tests: a Netty server on an ephemeral 127.0.0.1 port that decodes frames
 * with {@link FrameDecoder}/{@link Frame}, hands each request to the handler registered for its
 * API, and writes answers in request order (handlers may answer later, out of order; the broker
 * queues them like a real one). ApiVersions is answered from {@link ApiVersionTable#CURRENT} unless
 * replaced. Every request is recorded in {@link #received()}.
 */
public final class FakeBroker implements AutoCloseable {
  /** A received request: header, parsed body, record data bytes. */
  public record Request(
      RequestHeader header, MessageLite body, byte[] recordData, int connectionId) {
    public <T extends MessageLite> T body(Class<T> type) {
      return type.cast(body);
    }
  }

  /** Answers one request (once); from any thread, at any time. */
  public interface Responder {
    void reply(MessageLite body);

    void reply(MessageLite body, byte[] recordData);

    /** A header-level error (empty body). */
    void error(ErrorCode code, String message);

    /** Closes the connection instead of answering. */
    void closeConnection();

    /** Never answers (for acks=0 or timeouts). */
    void noReply();
  }

  @FunctionalInterface
  public interface Handler {
    void handle(Request request, Responder responder);
  }

  private final int nodeId;
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Map<ApiKey, Handler> handlers = new ConcurrentHashMap<>();
  private final LinkedBlockingQueue<Request> received = new LinkedBlockingQueue<>();
  private final List<Channel> channels = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private Channel server;
  private volatile int port;

  public FakeBroker(int nodeId) {
    this.nodeId = nodeId;
    handlers.put(
        ApiKey.API_VERSIONS,
        (r, out) ->
            out.reply(
                ApiVersionTable.CURRENT.toResponse().setServerSoftwareVersion("fake").build()));
  }

  public FakeBroker start() {
    return start(0);
  }

  /** Starts on {@code port} (0 = ephemeral); a fixed port lets a test restart a broker in place. */
  public FakeBroker start(int wantedPort) {
    server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    channels.add(ch);
                    ch.pipeline()
                        .addLast(
                            new FrameDecoder(64 * 1024 * 1024),
                            new Connection(connections.incrementAndGet()));
                  }
                })
            .bind("127.0.0.1", wantedPort)
            .syncUninterruptibly()
            .channel();
    port = ((InetSocketAddress) server.localAddress()).getPort();
    return this;
  }

  public int nodeId() {
    return nodeId;
  }

  public int port() {
    return port;
  }

  public String address() {
    return "127.0.0.1:" + port;
  }

  public FakeBroker handle(ApiKey api, Handler handler) {
    handlers.put(api, handler);
    return this;
  }

  public FakeBroker apiVersions(ApiVersionsResponse response) {
    return handle(ApiKey.API_VERSIONS, (r, out) -> out.reply(response));
  }

  public LinkedBlockingQueue<Request> received() {
    return received;
  }

  /** Received requests of one API, in arrival order (a snapshot). */
  public List<Request> received(ApiKey api) {
    return received.stream().filter(r -> r.header().getApiKey() == api).toList();
  }

  public Request take(ApiKey api, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (true) {
      long left = deadline - System.nanoTime();
      Request r = received.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
      if (r == null) {
        throw new AssertionError("no " + api + " request within " + timeoutMs + " ms");
      }
      if (r.header().getApiKey() == api) {
        return r;
      }
    }
  }

  public int connectionsAccepted() {
    return connections.get();
  }

  /** Closes every client connection (the server keeps listening). */
  public void dropConnections() {
    for (Channel c : channels) {
      c.close();
    }
  }

  @Override
  public void close() {
    if (server != null) {
      server.close().syncUninterruptibly();
    }
    dropConnections();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One client connection: answers leave in request order. */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private final int id;
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();

    Connection(int id) {
      this.id = id;
    }

    private final class Slot implements Responder {
      final int correlationId;
      ByteBuf out;
      boolean done;
      boolean close;
      final Channel ch;

      Slot(int correlationId, Channel ch) {
        this.correlationId = correlationId;
        this.ch = ch;
      }

      @Override
      public void reply(MessageLite body) {
        reply(body, null);
      }

      @Override
      public void reply(MessageLite body, byte[] recordData) {
        ResponseHeader h = ResponseHeader.newBuilder().setCorrelationId(correlationId).build();
        ByteBuf prefix =
            Frame.encodePrefix(ch.alloc(), h, body, recordData == null ? 0 : recordData.length);
        ByteBuf buf =
            recordData == null
                ? prefix
                : Unpooled.wrappedBuffer(prefix, Unpooled.wrappedBuffer(recordData));
        finish(buf, false);
      }

      @Override
      public void error(ErrorCode code, String message) {
        ResponseHeader h =
            ResponseHeader.newBuilder()
                .setCorrelationId(correlationId)
                .setErrorCode(code)
                .setErrorMessage(message)
                .build();
        finish(
            Frame.encodePrefix(ch.alloc(), h, com.google.protobuf.Empty.getDefaultInstance(), 0),
            false);
      }

      @Override
      public void closeConnection() {
        finish(null, true);
      }

      @Override
      public void noReply() {
        finish(null, false);
      }

      private void finish(ByteBuf buf, boolean closeAfter) {
        ch.eventLoop()
            .execute(
                () -> {
                  out = buf;
                  close = closeAfter;
                  done = true;
                  flushSlots();
                });
      }
    }

    private void flushSlots() {
      while (!slots.isEmpty() && slots.peekFirst().done) {
        Slot s = slots.pollFirst();
        if (s.close) {
          s.ch.close();
          return;
        }
        if (s.out != null) {
          s.ch.writeAndFlush(s.out);
        }
      }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        Frame f = Frame.parse(frame);
        RequestHeader h = f.parseHeader(RequestHeader.parser());
        MessageLite body = f.parseBody(ApiMessages.requestParser(h.getApiKey()));
        byte[] data = ByteBufUtil.getBytes(f.recordData());
        Request r = new Request(h, body, data, id);
        received.add(r);
        Slot slot = new Slot(h.getCorrelationId(), ctx.channel());
        slots.addLast(slot);
        Handler handler = handlers.get(h.getApiKey());
        if (handler == null) {
          slot.error(
              ErrorCode.UNSUPPORTED_VERSION,
              "fake broker " + nodeId + " has no handler for " + h.getApiKey());
        } else {
          handler.handle(r, slot);
        }
      } finally {
        frame.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** A copy of the list of channels, for tests that want to inspect them. */
  List<Channel> channels() {
    return new ArrayList<>(channels);
  }
}
