package dev.spool.broker.network;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.spool.protocol.ApiVersionTable;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A server that stops closes every connection it admitted: its clients see the end of the stream at
 * once, rather than keeping a connection that takes requests and never answers.
 */
@Tag("unit")
class BrokerServerCloseTest {
  @Test
  void shouldCloseEveryOpenConnectionAndTheListenerOnClose() throws Exception {
    BrokerServer server =
        new BrokerServer(
            new BrokerServer.Settings(
                "127.0.0.1",
                0,
                2,
                1 << 20,
                16,
                64L << 20,
                60_000,
                30_000,
                Integer.MAX_VALUE,
                Integer.MAX_VALUE,
                "[test]"),
            new RequestDispatcher(ApiVersionTable.CURRENT));
    server.start();
    int port = server.boundPort(BrokerServer.SPOOL_LISTENER);
    List<Socket> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(5_000);
        clients.add(s);
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 8);

      server.close();

      for (Socket s : clients) {
        assertEquals(-1, readOrEnd(s.getInputStream()), "the server closed the connection");
      }
      assertEquals(0, server.connectionCount());
      assertThrows(
          ConnectException.class,
          () -> new Socket().connect(new InetSocketAddress("127.0.0.1", port), 5_000));
    } finally {
      for (Socket s : clients) {
        s.close();
      }
      server.close();
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
