package dev.spool.network;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.testing.FakeBroker;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.SpoolVersion;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.ProduceRequest;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("integration")
@Timeout(30)
class NetworkClientTest {
  private FakeBroker broker;
  private NetworkClient client;

  @BeforeEach
  void setUp() {
    broker = new FakeBroker(1).start();
    client =
        new NetworkClient(
            new NetworkConfig("test", "test-io", 3, 100, 2000, 20, 200, 1 << 20, 5), Clock.SYSTEM);
  }

  @AfterEach
  void tearDown() {
    client.close();
    broker.close();
  }

  private Node node() {
    return new Node(1, "127.0.0.1", broker.port());
  }

  /** A port nobody listens on (bound once, then released). */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static SpoolException failure(CompletableFuture<?> f) {
    CompletionException e = assertThrows(CompletionException.class, f::join);
    return assertInstanceOf(SpoolException.class, e.getCause());
  }

  @Test
  void shouldSendApiVersionsFirstThenTheRequest() throws Exception {
    broker.handle(
        ApiKey.METADATA,
        (r, out) -> out.reply(MetadataResponse.newBuilder().setClusterId("x").build()));
    try (ClientResponse r =
        client.send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 5000).join()) {
      assertEquals("x", r.body(MetadataResponse.class).getClusterId());
    }
    FakeBroker.Request hello = broker.received().take();
    assertEquals(ApiKey.API_VERSIONS, hello.header().getApiKey());
    assertEquals(
        SpoolVersion.version(),
        hello.body(ApiVersionsRequest.class).getClientSoftwareVersion(),
        "the client names the version the build stamped");
    FakeBroker.Request m = broker.received().take();
    assertEquals(ApiKey.METADATA, m.header().getApiKey());
    assertEquals("test", m.header().getClientId());
  }

  @Test
  void shouldMatchPipelinedResponsesInRequestOrderEvenWhenAnsweredOutOfOrder() {
    List<FakeBroker.Responder> held = new CopyOnWriteArrayList<>();
    broker.handle(ApiKey.METADATA, (r, out) -> held.add(out));
    List<CompletableFuture<ClientResponse>> futures = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      futures.add(
          client.send(
              node(),
              ApiKey.METADATA,
              MetadataRequest.newBuilder().addTopics("t" + i).build(),
              5000));
    }
    await().until(() -> held.size() == 3);
    for (int i = 2; i >= 0; i--) {
      held.get(i).reply(MetadataResponse.newBuilder().setClusterId("answer-" + i).build());
    }
    for (int i = 0; i < 3; i++) {
      try (ClientResponse r = futures.get(i).join()) {
        assertEquals("answer-" + i, r.body(MetadataResponse.class).getClusterId());
      }
    }
  }

  @Test
  void shouldBoundRequestsInFlightPerConnection() {
    List<FakeBroker.Responder> held = new CopyOnWriteArrayList<>();
    broker.handle(ApiKey.METADATA, (r, out) -> held.add(out));
    List<CompletableFuture<ClientResponse>> futures = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      futures.add(
          client.send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 10_000));
    }
    await().until(() -> held.size() == 3);
    await().during(Duration.ofMillis(200)).until(() -> held.size() == 3);
    held.get(0).reply(MetadataResponse.getDefaultInstance());
    await().until(() -> held.size() == 4);
    held.forEach(h -> h.reply(MetadataResponse.getDefaultInstance()));
    await().until(() -> held.size() == 5);
    held.get(4).reply(MetadataResponse.getDefaultInstance());
    futures.forEach(f -> f.join().close());
  }

  @Test
  void shouldCarryRecordDataBothWays() {
    byte[] sent = "request-records".getBytes(StandardCharsets.UTF_8);
    byte[] answered = "response-records".getBytes(StandardCharsets.UTF_8);
    broker.handle(
        ApiKey.FETCH,
        (r, out) -> {
          assertArrayEquals(sent, r.recordData());
          out.reply(FetchResponse.newBuilder().setThrottleTimeMs(1).build(), answered);
        });
    ClientResponse r =
        client
            .send(
                node(),
                ApiKey.FETCH,
                ProduceRequest.getDefaultInstance(),
                Unpooled.wrappedBuffer(sent),
                5000,
                true)
            .join();
    assertArrayEquals(answered, ByteBufUtil.getBytes(r.recordData()));
    r.close();
    assertThrows(IllegalStateException.class, r::recordData);
  }

  @Test
  void shouldTimeOutAnUnansweredRequestAndCloseTheConnection() {
    broker.handle(ApiKey.METADATA, (r, out) -> out.noReply());
    CompletableFuture<ClientResponse> first =
        client.send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 300);
    CompletableFuture<ClientResponse> second =
        client.send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 60_000);
    SpoolException e1 = failure(first);
    assertEquals(ErrorCode.REQUEST_TIMED_OUT, e1.errorCode());
    SpoolException e2 = failure(second);
    assertEquals(ErrorCode.BROKER_NOT_AVAILABLE, e2.errorCode());
    assertTrue(e2.retriable() && e2.refreshesMetadata());
  }

  @Test
  void shouldFailEveryInFlightRequestRetriablyWhenTheConnectionDrops() {
    List<FakeBroker.Responder> held = new CopyOnWriteArrayList<>();
    broker.handle(ApiKey.METADATA, (r, out) -> held.add(out));
    CompletableFuture<ClientResponse> a =
        client.send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 10_000);
    CompletableFuture<ClientResponse> b =
        client.send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 10_000);
    await().until(() -> held.size() == 2);
    broker.dropConnections();
    for (CompletableFuture<ClientResponse> f : List.of(a, b)) {
      SpoolException e = failure(f);
      assertEquals(ErrorCode.BROKER_NOT_AVAILABLE, e.errorCode());
      assertTrue(e.retriable());
    }
    // The next request reconnects (after the backoff) and succeeds.
    broker.handle(ApiKey.METADATA, (r, out) -> out.reply(MetadataResponse.getDefaultInstance()));
    client
        .send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 10_000)
        .join()
        .close();
    assertEquals(2, broker.connectionsAccepted());
  }

  @Test
  void shouldFailClearlyWhenTheBrokerSharesNoApiVersion() {
    broker.apiVersions(
        ApiVersionsResponse.newBuilder()
            .addApiVersions(
                ApiVersionsResponse.ApiVersionRange.newBuilder()
                    .setApiKey(ApiKey.METADATA)
                    .setMinVersion(5)
                    .setMaxVersion(9))
            .build());
    SpoolException e =
        failure(client.send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 5000));
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.errorCode());
    assertTrue(e.getMessage().contains("no API version"), e.getMessage());
  }

  @Test
  void shouldFailOnlyTheApiWithoutACommonVersion() {
    broker.apiVersions(
        ApiVersionsResponse.newBuilder()
            .addApiVersions(
                ApiVersionsResponse.ApiVersionRange.newBuilder().setApiKey(ApiKey.METADATA))
            .addApiVersions(
                ApiVersionsResponse.ApiVersionRange.newBuilder()
                    .setApiKey(ApiKey.FETCH)
                    .setMinVersion(3)
                    .setMaxVersion(4))
            .build());
    broker.handle(ApiKey.METADATA, (r, out) -> out.reply(MetadataResponse.getDefaultInstance()));
    SpoolException e =
        failure(client.send(node(), ApiKey.FETCH, MetadataRequest.getDefaultInstance(), 5000));
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.errorCode());
    assertTrue(e.getMessage().contains("FETCH"), e.getMessage());
    client.send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 5000).join().close();
  }

  @Test
  void shouldSurfaceHeaderLevelErrors() {
    broker.handle(ApiKey.METADATA, (r, out) -> out.error(ErrorCode.INVALID_REQUEST, "bad body"));
    SpoolException e =
        failure(client.send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 5000));
    assertEquals(ErrorCode.INVALID_REQUEST, e.errorCode());
    assertTrue(e.getMessage().contains("bad body"));
  }

  @Test
  void shouldFailRetriablyWhenNobodyListensAndBackOffBeforeReconnecting() throws Exception {
    int port = closedPort();
    Node dead = new Node(7, "127.0.0.1", port);
    SpoolException e =
        failure(client.send(dead, ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 5000));
    assertEquals(ErrorCode.BROKER_NOT_AVAILABLE, e.errorCode());
    long delay =
        client.eventLoop().submit(() -> client.reconnectDelayMs(dead)).get(5, TimeUnit.SECONDS);
    assertTrue(delay > 0, "reconnect backoff after a failed connect");
  }

  /**
   * Regression: a request that waited out its deadline behind the reconnect backoff of a node that
   * refuses connections failed with REQUEST_TIMED_OUT, so an admin call against an unreachable
   * cluster sometimes said "timed out" instead of "broker not available" (which one depended on
   * whether the last attempt hit a refused connect or the backoff).
   */
  @Test
  void shouldCallARequestWhoseConnectionNeverBecameReadyBrokerNotAvailable() throws Exception {
    int port = closedPort();
    Node dead = new Node(7, "127.0.0.1", port);
    // A 10 s reconnect backoff: after the first refused connect the node stays in backoff far
    // beyond the second request's 200 ms deadline, so that request is never written.
    try (NetworkClient slow =
        new NetworkClient(
            new NetworkConfig("test", "test-io-2", 3, 100, 2000, 10_000, 10_000, 1 << 20, 5),
            Clock.SYSTEM)) {
      SpoolException refused =
          failure(slow.send(dead, ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 5000));
      assertEquals(ErrorCode.BROKER_NOT_AVAILABLE, refused.errorCode());
      SpoolException waited =
          failure(slow.send(dead, ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 200));
      assertEquals(ErrorCode.BROKER_NOT_AVAILABLE, waited.errorCode(), waited.getMessage());
      assertTrue(waited.getMessage().contains("BACKOFF"), waited.getMessage());
    }
  }

  @Test
  void shouldCompleteWithoutAnswerWhenNoResponseIsExpected() {
    ClientResponse r =
        client
            .send(
                node(),
                ApiKey.PRODUCE,
                ProduceRequest.newBuilder().setAcks(0).build(),
                Unpooled.wrappedBuffer(new byte[] {1, 2, 3}),
                5000,
                false)
            .join();
    assertTrue(r.isNoResponse());
    await().until(() -> broker.received(ApiKey.PRODUCE).size() == 1);
  }

  @Test
  void shouldFailRequestsAfterClose() {
    client.close();
    CompletionException e =
        assertThrows(
            CompletionException.class,
            () ->
                client
                    .send(node(), ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 5000)
                    .join());
    assertInstanceOf(IllegalStateException.class, e.getCause());
  }

  /**
   * Regression: with the first bootstrap address down, every metadata retry came after that
   * address's reconnect wait had ended, ties went to the first candidate, and a producer never
   * tried the live brokers behind it (seen in the end-to-end min-ISR test: 60 s of "cannot connect
   * to bootstrap -1" with a live leader at -3).
   */
  @Test
  void shouldGiveANodeNotYetTriedItsTurnOverOneThatFailed() throws Exception {
    int deadPort = closedPort();
    Node dead = new Node(-1, "127.0.0.1", deadPort);
    Node alsoDead = new Node(-2, "127.0.0.1", deadPort);
    Node live = new Node(-3, "127.0.0.1", broker.port());
    List<Node> candidates = List.of(dead, alsoDead, live);
    for (int round = 0; round < 2; round++) {
      Node chosen = client.eventLoop().submit(() -> client.leastLoadedNode(candidates)).get();
      assertEquals(round == 0 ? dead : alsoDead, chosen, "round " + round);
      failure(client.send(chosen, ApiKey.METADATA, MetadataRequest.getDefaultInstance(), 5000));
      await()
          .until(() -> client.eventLoop().submit(() -> client.reconnectDelayMs(chosen)).get() == 0);
    }
    assertEquals(
        live,
        client.eventLoop().submit(() -> client.leastLoadedNode(candidates)).get(),
        "the refused nodes' waits are over, but the live node was never tried");
  }
}
