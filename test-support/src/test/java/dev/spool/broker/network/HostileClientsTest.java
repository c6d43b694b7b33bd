package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.testing.RawFrameClient;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Clients that try to exhaust the broker: many connections that each announce a large frame and
 * send a few bytes of it (slow loris), and more connections than the limits allow. Each holds no
 * more than the bytes it sent, is closed within the receive timeout or at accept, and a
 * well-behaved client is served throughout.
 */
@Tag("integration")
@Timeout(60)
class HostileClientsTest {
  private static final int MAX_FRAME_BYTES = 64 << 20;
  private static final long RECEIVE_TIMEOUT_MS = 1_500;
  private static final String SECOND = "second";

  private BrokerServer server;
  private final List<Socket> sockets = new ArrayList<>();

  private BrokerServer start(int maxConnections, int maxPerIp) {
    return start(maxConnections, maxPerIp, Map.of(), Integer.MAX_VALUE);
  }

  private BrokerServer start(
      int maxConnections, int maxPerIp, Map<InetAddress, Integer> overrides, int creationRate) {
    server =
        new BrokerServer(
            new BrokerServer.Settings(
                "127.0.0.1",
                0,
                1,
                MAX_FRAME_BYTES,
                16,
                64L << 20,
                60_000,
                RECEIVE_TIMEOUT_MS,
                maxConnections,
                maxPerIp,
                overrides,
                creationRate,
                "[test]"),
            BrokerServerTest.answeringApiVersions());
    // A second listener, as the Kafka listener is: every listener's connections go through the
    // same frame decoder, memory pool and connection limits.
    server.addListener(
        SECOND, "127.0.0.1", 0, new SpoolProtocol(BrokerServerTest.answeringApiVersions(), "[2]"));
    server.start();
    return server;
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private Socket open() throws IOException {
    return open(BrokerServer.SPOOL_LISTENER);
  }

  private Socket open(String listener) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", server.boundPort(listener)), 5_000);
    s.setSoTimeout(100);
    sockets.add(s);
    return s;
  }

  private static boolean closedByPeer(Socket s) throws IOException {
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset by the peer
    }
  }

  private static long usedDirectBytes() {
    return ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory();
  }

  private void assertServed() throws IOException {
    try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
      RawFrameClient.Reply r =
          c.request(ApiKey.API_VERSIONS, ApiVersionsRequest.getDefaultInstance());
      assertTrue(r.body(ApiVersionsResponse.parser()).getApiVersionsCount() > 5);
    }
  }

  @Test
  void shouldHoldOnlyTheBytesThatArrivedAndCloseStalledFramesInTime() throws Exception {
    start(Integer.MAX_VALUE, Integer.MAX_VALUE);
    int connections = 300;
    int announcedBytes = 60 << 20;
    long directBefore = usedDirectBytes();
    for (int i = 0; i < connections; i++) {
      Socket s = open(i % 2 == 0 ? BrokerServer.SPOOL_LISTENER : SECOND);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(announcedBytes);
      out.write(new byte[10]);
      out.flush();
    }
    // Each partial frame holds the smallest growing buffer, not the 60 MiB it announced.
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.requestMemoryBytes() == (long) connections * 1024);
    long directGrowth = usedDirectBytes() - directBefore;
    assertTrue(
        directGrowth < 32L << 20,
        "direct memory grew by " + directGrowth + " bytes for " + connections + " stalled frames");
    assertServed();
    // Past the receive timeout every stalled connection is closed and its memory is back.
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.requestMemoryBytes() == 0 && server.connectionCount() == 0);
    for (Socket s : sockets) {
      assertTrue(closedByPeer(s), "a stalled connection was left open");
    }
    assertServed();
  }

  @Test
  void shouldCloseConnectionsBeyondThePerIpLimitAtAccept() throws Exception {
    start(Integer.MAX_VALUE, 4);
    List<Socket> admitted = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      admitted.add(open(i % 2 == 0 ? BrokerServer.SPOOL_LISTENER : SECOND));
    }
    Awaitility.await().until(() -> server.connectionCount() == 4);
    Socket fifth = open(SECOND); // the limit counts both listeners together
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> closedByPeer(fifth));
    for (Socket s : admitted) {
      assertTrue(!closedByPeer(s), "an admitted connection was closed");
    }
    assertEquals(4, server.connectionCount());
    admitted.get(0).close();
    Awaitility.await().until(() -> server.connectionCount() == 3);
    assertServed(); // a slot was free again
  }

  @Test
  void shouldCloseConnectionsBeyondTheBrokerWideLimitAtAccept() throws Exception {
    start(3, Integer.MAX_VALUE);
    for (int i = 0; i < 3; i++) {
      open();
    }
    Awaitility.await().until(() -> server.connectionCount() == 3);
    Socket fourth = open();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> closedByPeer(fourth));
    assertEquals(3, server.connectionCount());
    sockets.get(0).close();
    Awaitility.await().until(() -> server.connectionCount() == 2);
    assertServed();
  }

  @Test
  void shouldApplyAPerAddressOverrideInsteadOfThePerIpLimit() throws Exception {
    start(Integer.MAX_VALUE, 100, Map.of(InetAddress.getByName("127.0.0.1"), 2), Integer.MAX_VALUE);
    open();
    open(SECOND);
    Awaitility.await().until(() -> server.connectionCount() == 2);
    Socket third = open();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> closedByPeer(third));
    assertEquals(2, server.connectionCount());
  }

  @Test
  void shouldAcceptConnectionsBeyondTheCreationRateLaterWithoutRefusingAny() throws Exception {
    int rate = 5;
    int connections = 15;
    start(Integer.MAX_VALUE, Integer.MAX_VALUE, Map.of(), rate);
    long startNs = System.nanoTime();
    for (int i = 0; i < connections; i++) {
      open(i % 2 == 0 ? BrokerServer.SPOOL_LISTENER : SECOND); // one rate over both listeners
    }
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> server.connectionCount() == connections);
    long tookMs = (System.nanoTime() - startNs) / 1_000_000;
    // A burst of `rate` at once, then one every 1/rate s: (15 - 5) / 5 = 2 s at the least. (A lower
    // bound only: a slow machine can take longer, never shorter.)
    assertTrue(tookMs >= 1_600, "15 connections at 5/s were all accepted after " + tookMs + " ms");
    for (Socket s : sockets) {
      assertTrue(!closedByPeer(s), "a throttled connection was closed");
    }
    assertServed();
  }
}
