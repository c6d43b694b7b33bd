package dev.spool.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.kafka.codec.KafkaApi;
import dev.spool.broker.kafka.codec.KafkaRequestDecoder;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.broker.security.SaslVerifiers;
import dev.spool.common.ScramMechanism;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoop;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The SASL state machine of one connection, request by request (no network): the order Kafka's
 * broker enforces (ApiVersions, SaslHandshake, SaslAuthenticate until done), what happens out of
 * turn, and that nothing but ApiVersions and the SASL requests is decoded before authentication.
 * Requests are served on a real event loop, and PLAIN's derivation on real {@link SaslVerifiers}:
 * where it runs, a full queue, and a connection closed while its derivation waits.
 */
@Tag("unit")
class SaslAuthenticatorTest {
  private static final byte[] SALT = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private final KafkaRequestDecoder decoder =
      new KafkaRequestDecoder(EnumSet.allOf(KafkaApi.class));
  private final DefaultEventLoop loop = new DefaultEventLoop();
  private final SaslVerifiers verifiers = new SaslVerifiers("sasl-verify-test", 1, 1);

  /** Threads PLAIN's derivation ran on. */
  private final List<String> derivedOn = new CopyOnWriteArrayList<>();

  /** While set, a derivation waits for it to open (counted in {@link #derivationsStarted}). */
  private volatile CountDownLatch gate;

  private final Semaphore derivationsStarted = new Semaphore(0);

  private final SaslAuthenticator sasl =
      new SaslAuthenticator(
          List.of("PLAIN", "SCRAM-SHA-256"),
          () -> IMAGE,
          "[test]",
          100,
          verifiers,
          (credential, password) -> {
            derivedOn.add(Thread.currentThread().getName());
            derivationsStarted.release();
            CountDownLatch g = gate;
            if (g != null) {
              awaitUninterruptibly(g);
            }
            return credential.matches(password);
          });
  private final SaslAuthenticator.Session session = newSession();

  private static final MetadataImage IMAGE = image();

  private static MetadataImage image() {
    ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
    ImageBuilder b = new ImageBuilder(MetadataImage.EMPTY);
    MetadataApplier.apply(
        b,
        MetadataBatch.newBuilder()
            .addRecords(
                Records.scramCredential(
                    "alice", m.credential(SALT, 4096, m.saltedPassword("pw", SALT, 4096))))
            .build(),
        1);
    return b.build(1);
  }

  @AfterEach
  void close() {
    CountDownLatch g = gate;
    if (g != null) {
      g.countDown();
    }
    verifiers.close();
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
  }

  private SaslAuthenticator.Session newSession() {
    return sasl.newSession(new InetSocketAddress("127.0.0.1", 5555), loop);
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private ByteBuf frame(ApiMessage body, short version, int correlationId) {
    return Unpooled.wrappedBuffer(KafkaWire.request(body, version, correlationId));
  }

  private KafkaResponse send(ApiMessage body, short version) {
    return send(session, body, version).join();
  }

  /**
   * Serves a request on the event loop, as the connection does; the answer completes on the loop
   * (the thread it completed on is recorded in {@link #completedOn}). Null: served as usual.
   */
  private CompletableFuture<KafkaResponse> send(
      SaslAuthenticator.Session s, ApiMessage body, short version) {
    ByteBuf f = frame(body, version, 1);
    try {
      return loop.submit(
              () -> {
                assertNull(sasl.refuseUndecoded(f, s), "refused undecoded");
                CompletableFuture<KafkaResponse> answer = sasl.intercept(decoder.decode(f), s);
                if (answer == null) {
                  return CompletableFuture.<KafkaResponse>completedFuture(null);
                }
                return answer.whenComplete((r, e) -> completedOn.add(Thread.currentThread()));
              })
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private final List<Thread> completedOn = new CopyOnWriteArrayList<>();

  private KafkaResponse handshake() {
    return handshake(session);
  }

  private KafkaResponse handshake(SaslAuthenticator.Session s) {
    return send(s, new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1).join();
  }

  private KafkaResponse plain(String user, String password) {
    return plain(session, user, password).join();
  }

  private CompletableFuture<KafkaResponse> plain(
      SaslAuthenticator.Session s, String user, String password) {
    return send(
        s,
        new SaslAuthenticateRequestData()
            .setAuthBytes(("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8)),
        (short) 1);
  }

  /** One login whose derivation runs (held by {@link #gate}) and one queued behind it. */
  private record Busy(
      SaslAuthenticator.Session running,
      CompletableFuture<KafkaResponse> first,
      SaslAuthenticator.Session queued,
      CompletableFuture<KafkaResponse> second) {}

  private Busy busyWithOneQueued() throws InterruptedException {
    gate = new CountDownLatch(1);
    SaslAuthenticator.Session running = newSession();
    SaslAuthenticator.Session queued = newSession();
    assertOk(handshake(running));
    assertOk(handshake(queued));
    CompletableFuture<KafkaResponse> first = plain(running, "alice", "pw");
    assertTrue(derivationsStarted.tryAcquire(30, TimeUnit.SECONDS), "the first derivation runs");
    return new Busy(running, first, queued, plain(queued, "alice", "pw"));
  }

  private static String errorMessage(KafkaResponse r) {
    SaslAuthenticateResponse parsed =
        KafkaWire.parse(r, KafkaWire.header(new SaslAuthenticateRequestData(), (short) 1, 1));
    return parsed.data().errorMessage();
  }

  private static void assertOk(KafkaResponse r) {
    assertNotNull(r);
    assertNull(r.error(), String.valueOf(r.error()));
    assertFalse(r.closeAfterSend());
  }

  private static void assertClosesWith(Errors error, KafkaResponse r) {
    assertEquals(error.name(), r.error());
    assertTrue(r.closeAfterSend());
    assertFalse(r.isNone());
  }

  @Test
  void apiVersionsHandshakeAndAuthenticateThenEverythingIsServed() {
    assertNull(send(new ApiVersionsRequestData(), (short) 3), "ApiVersions is served as usual");
    assertOk(handshake());
    assertOk(plain("alice", "pw"));
    assertTrue(session.authenticated());
    assertEquals("User:alice", session.principal());
    assertNull(send(new MetadataRequestData(), (short) 12), "served as usual once authenticated");
  }

  @Test
  void aSecondHandshakeIsIllegalStateAndCloses() {
    assertOk(handshake());
    assertClosesWith(Errors.ILLEGAL_SASL_STATE, handshake());
    assertFalse(session.authenticated());
  }

  @Test
  void authenticateBeforeHandshakeIsIllegalStateAndCloses() {
    assertClosesWith(Errors.ILLEGAL_SASL_STATE, plain("alice", "pw"));
    assertFalse(session.authenticated());
  }

  @Test
  void authenticateAfterSuccessIsIllegalStateAndCloses() {
    assertOk(handshake());
    assertOk(plain("alice", "pw"));
    assertClosesWith(Errors.ILLEGAL_SASL_STATE, plain("alice", "pw"));
  }

  @Test
  void aFailedAuthenticationClosesAfterTheDelayAndNothingIsServedAfterIt() {
    assertOk(handshake());
    KafkaResponse failed = plain("alice", "wrong");
    assertClosesWith(Errors.SASL_AUTHENTICATION_FAILED, failed);
    assertEquals(100, failed.closeDelayMs());
    assertFalse(session.authenticated());
    // a request that still arrives is refused from its api key, unparsed
    assertNotNull(sasl.refuseUndecoded(frame(new MetadataRequestData(), (short) 12, 2), session));
    // and a SASL request is out of turn
    assertClosesWith(Errors.ILLEGAL_SASL_STATE, plain("alice", "pw"));
    assertFalse(session.authenticated());
  }

  @Test
  void aNonSaslRequestBetweenHandshakeAndAuthenticateClosesUnanswered() {
    assertOk(handshake());
    ByteBuf metadata = frame(new MetadataRequestData(), (short) 12, 2);
    assertNotNull(sasl.refuseUndecoded(metadata, session), "refused from its header");
    KafkaResponse r = sasl.intercept(decoder.decode(metadata), session).join();
    assertTrue(r.closeAfterSend());
    assertTrue(r.isNone(), "unanswered");
    assertFalse(session.authenticated());
  }

  @Test
  void plainRefusesAnUnknownUserAndAWrongPasswordAlikeAndDerivesForBoth() {
    SaslAuthenticator.Session other = newSession();
    assertOk(handshake());
    KafkaResponse wrong = plain("alice", "wrong");
    assertClosesWith(Errors.SASL_AUTHENTICATION_FAILED, wrong);
    assertOk(handshake(other));
    KafkaResponse unknown = plain(other, "mallory", "pw").join();
    assertClosesWith(Errors.SASL_AUTHENTICATION_FAILED, unknown);
    assertEquals("Authentication failed: Invalid username or password", errorMessage(wrong));
    assertEquals(errorMessage(wrong), errorMessage(unknown));
    assertEquals(2, derivedOn.size(), "derived for the wrong password and the unknown user");
  }

  @Test
  void plainDerivesOnAVerifierThreadAndAnswersOnTheEventLoop() throws Exception {
    Thread loopThread = loop.submit(Thread::currentThread).get();
    assertOk(handshake());
    assertOk(plain("alice", "pw"));
    assertTrue(session.authenticated());
    assertEquals(1, derivedOn.size());
    assertTrue(derivedOn.get(0).startsWith("sasl-verify-test-"), derivedOn.get(0));
    assertEquals(
        List.of(loopThread, loopThread), completedOn, "handshake and login answered on the loop");
  }

  @Test
  void aFullQueueRefusesTheLoginWithSaslAuthenticationFailed() throws Exception {
    Busy busy = busyWithOneQueued(); // the queue (capacity 1) is full
    SaslAuthenticator.Session refused = newSession();
    assertOk(handshake(refused));
    KafkaResponse third = plain(refused, "alice", "pw").get(30, TimeUnit.SECONDS);
    assertClosesWith(Errors.SASL_AUTHENTICATION_FAILED, third);
    assertEquals(100, third.closeDelayMs(), "connection.failed.authentication.delay.ms holds");
    assertEquals(
        "Authentication failed: the broker is too busy to verify the password, retry later",
        errorMessage(third));
    assertFalse(refused.authenticated());
    assertFalse(busy.first.isDone());
    gate.countDown();
    assertOk(busy.first.get(30, TimeUnit.SECONDS));
    assertOk(busy.second.get(30, TimeUnit.SECONDS));
    assertTrue(busy.running.authenticated());
    assertTrue(busy.queued.authenticated());
    assertEquals(2, derivedOn.size(), "the refused login was never derived");
  }

  @Test
  void aConnectionClosedWhileItsDerivationIsQueuedIsSkippedAndDropped() throws Exception {
    Busy busy = busyWithOneQueued();
    loop.submit(busy.queued::close).get(); // the connection's close, on its event loop
    gate.countDown();
    assertOk(busy.first.get(30, TimeUnit.SECONDS));
    KafkaResponse dropped = busy.second.get(30, TimeUnit.SECONDS);
    assertTrue(dropped.isNone(), "nothing to answer on a closed connection");
    assertTrue(dropped.closeAfterSend());
    assertFalse(busy.queued.authenticated());
    assertEquals(1, derivedOn.size(), "the closed connection's derivation was skipped");
    // the verifiers go on serving
    SaslAuthenticator.Session next = newSession();
    assertOk(handshake(next));
    assertOk(plain(next, "alice", "pw").get(30, TimeUnit.SECONDS));
    assertTrue(next.authenticated());
  }

  /**
   * A closed connection's queued derivation gives its place in the queue back at once: with the
   * queue (capacity 1) full and the only thread busy, the next login is queued, not refused.
   */
  @Test
  void aClosedConnectionsQueuedDerivationGivesItsPlaceToTheNextLogin() throws Exception {
    Busy busy = busyWithOneQueued();
    loop.submit(busy.queued::close).get();
    SaslAuthenticator.Session next = newSession();
    assertOk(handshake(next));
    CompletableFuture<KafkaResponse> nextLogin = plain(next, "alice", "pw");
    assertFalse(nextLogin.isDone(), "queued behind the running derivation, not refused");
    gate.countDown();
    assertOk(busy.first.get(30, TimeUnit.SECONDS));
    assertOk(nextLogin.get(30, TimeUnit.SECONDS));
    assertTrue(next.authenticated());
    assertTrue(busy.second.get(30, TimeUnit.SECONDS).isNone(), "the closed one is dropped");
    assertEquals(2, derivedOn.size(), "the closed connection's derivation never ran");
  }

  @Test
  void aSecondAuthenticateWhileTheFirstIsDerivedIsIllegalStateAndNeitherAuthenticates()
      throws Exception {
    gate = new CountDownLatch(1);
    assertOk(handshake());
    CompletableFuture<KafkaResponse> first = plain(session, "alice", "pw");
    assertTrue(derivationsStarted.tryAcquire(30, TimeUnit.SECONDS), "the first derivation runs");
    assertClosesWith(Errors.ILLEGAL_SASL_STATE, plain("alice", "pw"));
    gate.countDown();
    assertClosesWith(Errors.SASL_AUTHENTICATION_FAILED, first.get(30, TimeUnit.SECONDS));
    assertFalse(session.authenticated());
  }

  @Test
  void queuedDerivationsFailWhenTheVerifiersClose() throws Exception {
    Busy busy = busyWithOneQueued();
    verifiers.close();
    KafkaResponse r = busy.second.get(30, TimeUnit.SECONDS);
    assertClosesWith(Errors.SASL_AUTHENTICATION_FAILED, r);
    assertFalse(busy.queued.authenticated());
  }
}
