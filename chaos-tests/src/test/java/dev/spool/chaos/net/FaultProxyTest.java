package dev.spool.chaos.net;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Each proxy fault, proved against a real echo server on 127.0.0.1. */
@Tag("integration")
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FaultProxyTest {
  private static final int SILENCE_MS = 400;

  private EchoServer echo;
  private FaultProxy proxy;

  @BeforeEach
  void setUp() throws IOException {
    echo = new EchoServer();
    proxy = FaultProxy.start("test", new InetSocketAddress("127.0.0.1", 0), echo.address());
  }

  @AfterEach
  void tearDown() throws IOException {
    proxy.close();
    echo.close();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", proxy.port());
    s.setSoTimeout(5_000);
    s.setTcpNoDelay(true);
    return s;
  }

  private static byte[] roundTrip(Socket s, byte[] data) throws IOException {
    s.getOutputStream().write(data);
    s.getOutputStream().flush();
    return s.getInputStream().readNBytes(data.length);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldForwardBothWaysWithoutFaults() throws IOException {
    try (Socket s = connect()) {
      byte[] big = new byte[300_000];
      new Random(1).nextBytes(big);
      assertArrayEquals(bytes("hello"), roundTrip(s, bytes("hello")));
      assertArrayEquals(big, roundTrip(s, big), "a large transfer arrives whole and in order");
    }
  }

  @Test
  void shouldAddLatencyPerDirection() throws IOException {
    try (Socket s = connect()) {
      roundTrip(s, bytes("warm-up"));
      proxy.setLatency(400, 300);
      long start = System.nanoTime();
      assertArrayEquals(bytes("slow"), roundTrip(s, bytes("slow")));
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(ms >= 695, "round trip took " + ms + " ms, expected >= 400 + 300");
      proxy.heal();
      start = System.nanoTime();
      roundTrip(s, bytes("fast"));
      long healedMs = (System.nanoTime() - start) / 1_000_000;
      assertTrue(healedMs < 600, "latency gone after heal, round trip took " + healedMs + " ms");
    }
  }

  @Test
  void shouldLimitBandwidth() throws IOException {
    proxy.setBandwidth(64 * 1024);
    try (Socket s = connect()) {
      byte[] data = new byte[32 * 1024];
      new Random(2).nextBytes(data);
      long start = System.nanoTime();
      assertArrayEquals(data, roundTrip(s, data));
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(
          ms >= 450, "32 KiB at 64 KiB/s took " + ms + " ms, expected >= 500 ms less a chunk");
    }
  }

  @Test
  void shouldRefuseNewConnectionsUntilHealed() throws IOException {
    proxy.refuseNewConnections(true);
    try (Socket s = connect()) {
      // Reset at once: the write may already meet the reset, and the read ends with EOF or
      // "connection reset", never with an echo.
      try {
        s.getOutputStream().write(bytes("x"));
        InputStream in = s.getInputStream();
        assertEquals(-1, in.read());
      } catch (IOException expected) {
        // reset
      }
    }
    proxy.heal();
    try (Socket s = connect()) {
      assertArrayEquals(bytes("back"), roundTrip(s, bytes("back")));
    }
  }

  @Test
  void shouldResetOpenConnectionsMidStream() throws IOException {
    try (Socket s = connect()) {
      assertArrayEquals(bytes("before"), roundTrip(s, bytes("before")));
      await().atMost(Duration.ofSeconds(5)).until(() -> proxy.openConnections() == 1);
      proxy.resetConnections();
      await().atMost(Duration.ofSeconds(5)).until(() -> proxy.openConnections() == 0);
      IOException e =
          assertThrows(
              IOException.class,
              () -> {
                s.getOutputStream().write(bytes("after"));
                if (s.getInputStream().read() == -1) {
                  throw new IOException("EOF");
                }
              });
      assertTrue(
          e.getMessage().contains("reset")
              || e.getMessage().contains("EOF")
              || e.getMessage().contains("Broken pipe"),
          e.toString());
    }
  }

  @Test
  void shouldDropClientLinksOfAGroupUntilHealed() throws IOException {
    try (ProxyGroup group = ProxyGroup.start(java.util.Map.of(1, echo.address()));
        Socket s = new Socket("127.0.0.1", group.clientAddress(1).getPort())) {
      s.setSoTimeout(5_000);
      assertArrayEquals(bytes("one"), roundTrip(s, bytes("one")));
      await().atMost(Duration.ofSeconds(5)).until(() -> group.proxy(1).openConnections() == 1);
      group.dropConnections();
      await().atMost(Duration.ofSeconds(5)).until(() -> group.proxy(1).openConnections() == 0);
      group.heal();
      try (Socket again = new Socket("127.0.0.1", group.clientAddress(1).getPort())) {
        again.setSoTimeout(5_000);
        assertArrayEquals(bytes("two"), roundTrip(again, bytes("two")));
      }
    }
  }

  @Test
  void shouldHoldTrafficInABlackHoleAndDeliverItAfterHeal() throws IOException {
    try (Socket open = connect()) {
      assertArrayEquals(bytes("a"), roundTrip(open, bytes("a")));
      proxy.setBlackHole(true);
      open.setSoTimeout(SILENCE_MS);
      open.getOutputStream().write(bytes("held"));
      assertThrows(
          SocketTimeoutException.class, () -> open.getInputStream().read(), "nothing comes back");

      try (Socket fresh = connect()) {
        fresh.setSoTimeout(SILENCE_MS);
        fresh.getOutputStream().write(bytes("new"));
        assertThrows(
            SocketTimeoutException.class,
            () -> fresh.getInputStream().read(),
            "accepted, never forwarded");

        proxy.heal();
        open.setSoTimeout(5_000);
        fresh.setSoTimeout(5_000);
        assertArrayEquals(
            bytes("held"), open.getInputStream().readNBytes(4), "held bytes flow after heal");
        assertArrayEquals(bytes("new"), fresh.getInputStream().readNBytes(3));
      }
    }
  }
}
