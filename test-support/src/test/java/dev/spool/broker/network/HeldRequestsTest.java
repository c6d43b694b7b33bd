package dev.spool.broker.network;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.testing.RawFrameClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server whose requests are held until the broker may serve them (a broker that has not caught up
 * with the metadata log, {@link BrokerServer#holdRequestsUntil}): connections are accepted and
 * frames read, nothing is served before the gate opens, then everything is served in the order it
 * came; a connection that closed meanwhile has nothing served.
 */
@Tag("integration")
@Timeout(60)
class HeldRequestsTest {
  private final CompletableFuture<Void> gate = new CompletableFuture<>();
  private final List<Integer> served = new CopyOnWriteArrayList<>();
  private BrokerServer server;

  @BeforeEach
  void start() {
    server =
        new BrokerServer(
                new BrokerServer.Settings(
                    "127.0.0.1", 0, 1, 1 << 20, 16, 64L << 20, 60_000, 30_000, 100, 100, "[test]"),
                BrokerServerTest.answeringApiVersions()
                    .register(
                        ApiKey.METADATA,
                        r -> {
                          served.add(r.correlationId());
                          return CompletableFuture.completedFuture(
                              BrokerResponse.of(
                                  MetadataResponse.newBuilder()
                                      .setClusterId("c" + r.correlationId())
                                      .build()));
                        }))
            .holdRequestsUntil(gate);
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void shouldServeNothingBeforeTheGateOpensThenEverythingInOrder() throws Exception {
    try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
      for (int id = 1; id <= 3; id++) {
        c.send(ApiKey.METADATA, 0, id, MetadataRequest.getDefaultInstance(), new byte[0]);
      }
      // The frames were read and are held (their bytes stay reserved), and none is served: a
      // server that served them would have within this window (its handler answers at once).
      await().atMost(Duration.ofSeconds(10)).until(() -> server.requestMemoryBytes() > 0);
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(2))
          .until(() -> served.isEmpty() && server.requestMemoryBytes() > 0);
      gate.complete(null);
      for (int id = 1; id <= 3; id++) {
        RawFrameClient.Reply r = c.receive();
        assertEquals(id, r.header().getCorrelationId());
        assertEquals("c" + id, MetadataResponse.parseFrom(r.body()).getClusterId());
      }
      assertEquals(List.of(1, 2, 3), served);
      // Once open, a request is served at once.
      c.send(ApiKey.METADATA, 0, 4, MetadataRequest.getDefaultInstance(), new byte[0]);
      assertEquals(4, c.receive().header().getCorrelationId());
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> server.requestMemoryBytes() == 0);
  }

  @Test
  void shouldServeNothingOfAConnectionThatClosedWhileHeld() throws Exception {
    try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
      c.send(ApiKey.METADATA, 0, 7, MetadataRequest.getDefaultInstance(), new byte[0]);
      await().atMost(Duration.ofSeconds(10)).until(() -> server.requestMemoryBytes() > 0);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() == 0);
    gate.complete(null);
    try (RawFrameClient c = RawFrameClient.connect(server.boundPort())) {
      c.send(ApiKey.METADATA, 0, 8, MetadataRequest.getDefaultInstance(), new byte[0]);
      assertEquals(8, c.receive().header().getCorrelationId());
    }
    assertEquals(List.of(8), served, "the closed connection's request 7 was never served");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.requestMemoryBytes() == 0);
  }
}
