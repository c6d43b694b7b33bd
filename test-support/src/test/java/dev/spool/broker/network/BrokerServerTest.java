package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.testing.RawFrameClient;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The broker's network layer on a real socket, with a dispatcher of test handlers. It lives here
 * rather than in data-plane because it speaks through {@link RawFrameClient}, which this module
 * provides (data-plane cannot depend on it).
 */
@Tag("integration")
@Timeout(30)
class BrokerServerTest {
  private BrokerServer server;

  /** Metadata requests complete when the test says so, to reorder completions. */
  private final Map<Integer, CompletableFuture<BrokerResponse>> parked = new ConcurrentHashMap<>();

  /** A dispatcher that answers ApiVersions, for tests that need one well-behaved request. */
  static RequestDispatcher answeringApiVersions() {
    return new RequestDispatcher(ApiVersionTable.CURRENT)
        .register(
            ApiKey.API_VERSIONS,
            r ->
                CompletableFuture.completedFuture(
                    BrokerResponse.of(ApiVersionTable.CURRENT.toResponse().build())));
  }

  @BeforeEach
  void start() {
    RequestDispatcher d =
        answeringApiVersions()
            .register(
                ApiKey.METADATA,
                r -> {
                  CompletableFuture<BrokerResponse> f = new CompletableFuture<>();
                  parked.put(r.correlationId(), f);
                  return f;
                })
            .register(
                ApiKey.PRODUCE,
                r -> {
                  // Echo the record data back, to prove record sections arrive intact.
                  byte[] data = new byte[r.frame().recordData().readableBytes()];
                  r.frame().recordData().getBytes(r.frame().recordData().readerIndex(), data);
                  return CompletableFuture.completedFuture(
                      BrokerResponse.withRecords(
                          MetadataResponse.newBuilder().setClusterId("echo").build(),
                          List.of(Unpooled.wrappedBuffer(data)),
                          data.length));
                });
    server =
        new BrokerServer(
            new BrokerServer.Settings(
                "127.0.0.1",
                0,
                1,
                1 << 20,
                16,
                64L << 20,
                60_000,
                30_000,
                Integer.MAX_VALUE,
                Integer.MAX_VALUE,
                "[test]"),
            d);
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void shouldAnswerPipelinedRequestsInRequestOrder() throws Exception {
    try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
      c.send(ApiKey.METADATA, 0, 1, MetadataRequest.getDefaultInstance(), new byte[0]);
      c.send(ApiKey.METADATA, 0, 2, MetadataRequest.getDefaultInstance(), new byte[0]);
      c.send(ApiKey.API_VERSIONS, 0, 3, ApiVersionsRequest.getDefaultInstance(), new byte[0]);
      org.awaitility.Awaitility.await().until(() -> parked.size() == 2);
      parked
          .get(2)
          .complete(BrokerResponse.of(MetadataResponse.newBuilder().setClusterId("two").build()));
      parked
          .get(1)
          .complete(BrokerResponse.of(MetadataResponse.newBuilder().setClusterId("one").build()));
      RawFrameClient.Reply r1 = c.receive();
      RawFrameClient.Reply r2 = c.receive();
      RawFrameClient.Reply r3 = c.receive();
      assertEquals(1, r1.header().getCorrelationId());
      assertEquals("one", MetadataResponse.parseFrom(r1.body()).getClusterId());
      assertEquals(2, r2.header().getCorrelationId());
      assertEquals("two", MetadataResponse.parseFrom(r2.body()).getClusterId());
      assertEquals(3, r3.header().getCorrelationId());
      assertTrue(ApiVersionsResponse.parseFrom(r3.body()).getApiVersionsCount() > 5);
    }
  }

  @Test
  void shouldCarryRecordDataOutsideTheBodyBothWays() throws Exception {
    byte[] records = new byte[100_000];
    new Random(7).nextBytes(records);
    try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
      c.send(ApiKey.PRODUCE, 0, 9, ApiVersionsRequest.getDefaultInstance(), records);
      RawFrameClient.Reply r = c.receive();
      assertEquals(9, r.header().getCorrelationId());
      assertEquals("echo", MetadataResponse.parseFrom(r.body()).getClusterId());
      assertArrayEquals(records, r.records());
    }
  }

  @Test
  void shouldRefuseUnknownApiWithAnErrorCodeAndClose() throws Exception {
    try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
      c.send(
          RequestHeader.newBuilder().setApiKeyValue(999).setCorrelationId(5).build(),
          ApiVersionsRequest.getDefaultInstance(),
          new byte[0]);
      RawFrameClient.Reply r = c.receive();
      assertEquals(5, r.header().getCorrelationId());
      assertEquals(ErrorCode.UNSUPPORTED_VERSION, r.header().getErrorCode());
      assertTrue(c.closedByPeer());
    }
    assertServesOthers();
  }

  @Test
  void shouldAnswerAnUnsupportedVersionAndKeepTheConnection() throws Exception {
    try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
      c.send(ApiKey.API_VERSIONS, 42, 6, ApiVersionsRequest.getDefaultInstance(), new byte[0]);
      assertEquals(ErrorCode.UNSUPPORTED_VERSION, c.receive().header().getErrorCode());
      c.send(ApiKey.API_VERSIONS, 0, 7, ApiVersionsRequest.getDefaultInstance(), new byte[0]);
      assertEquals(ErrorCode.NONE, c.receive().header().getErrorCode());
    }
  }

  @Test
  void shouldCloseOnNegativeHugeOrInconsistentFrames() throws Exception {
    for (byte[] garbage :
        List.of(
            ByteBuffer.allocate(4).putInt(-5).array(),
            ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array(),
            ByteBuffer.allocate(4).putInt(3).array(),
            // a frame whose header length points past its end
            ByteBuffer.allocate(16).putInt(12).putInt(1000).putInt(0).putInt(0).array())) {
      try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
        c.sendRaw(garbage);
        assertTrue(c.closedByPeer(), "connection must be closed");
      }
    }
    assertServesOthers();
  }

  @Test
  void shouldSurviveRandomBytes() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 20; i++) {
      byte[] junk = new byte[1 + random.nextInt(4096)];
      random.nextBytes(junk);
      try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
        c.sendRaw(junk);
      }
    }
    assertServesOthers();
  }

  @Test
  void shouldKeepServingWhileAClientSendsAHalfFrame() throws Exception {
    try (RawFrameClient stuck = RawFrameClient.connect(server.boundPort())) {
      stuck.sendRaw(ByteBuffer.allocate(6).putInt(500).putShort((short) 1).array());
      assertServesOthers();
    }
  }

  private void assertServesOthers() throws Exception {
    try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
      c.send(ApiKey.API_VERSIONS, 0, 77, ApiVersionsRequest.getDefaultInstance(), new byte[0]);
      RawFrameClient.Reply r = c.receive();
      assertEquals(77, r.header().getCorrelationId());
      assertEquals(ErrorCode.NONE, r.header().getErrorCode());
    }
  }

  /**
   * A server that stops closes every connection it admitted, one waiting for an answer too: its
   * clients see the end of the stream at once, rather than keeping a connection that takes requests
   * and never answers.
   */
  @Test
  void shouldCloseEveryOpenConnectionOnClose() throws Exception {
    int port = server.boundPort();
    List<Socket> clients = new ArrayList<>();
    try (RawFrameClient waiting = RawFrameClient.connect(port)) {
      waiting.send(ApiKey.METADATA, 0, 1, MetadataRequest.getDefaultInstance(), new byte[0]);
      org.awaitility.Awaitility.await().until(() -> parked.size() == 1);
      for (int i = 0; i < 8; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(5_000);
        clients.add(s);
      }
      org.awaitility.Awaitility.await().until(() -> server.connectionCount() == 9);

      server.close();

      for (Socket s : clients) {
        assertEquals(-1, readOrEnd(s.getInputStream()), "the server closed the connection");
      }
      assertThrows(IOException.class, waiting::receive, "the waiting request's connection too");
      assertEquals(0, server.connectionCount());
      assertThrows(
          ConnectException.class,
          () -> new Socket().connect(new InetSocketAddress("127.0.0.1", port), 5_000));
    } finally {
      for (Socket s : clients) {
        s.close();
      }
    }
  }

  /** -1 at the end of the stream; a reset counts as the end too. */
  private static int readOrEnd(InputStream in) throws IOException {
    try {
      return in.read();
    } catch (SocketException reset) {
      return -1;
    }
  }
}
