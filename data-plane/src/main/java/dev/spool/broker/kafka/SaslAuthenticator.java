package dev.spool.broker.kafka;

import dev.spool.broker.kafka.codec.KafkaApi;
import dev.spool.broker.kafka.codec.KafkaRequest;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.broker.kafka.codec.SaslCodec;
import dev.spool.broker.network.RateLimitedLog;
import dev.spool.broker.security.LogSafe;
import dev.spool.broker.security.PlainServer;
import dev.spool.broker.security.SaslFailure;
import dev.spool.broker.security.SaslServer;
import dev.spool.broker.security.SaslVerifiers;
import dev.spool.broker.security.ScramServer;
import dev.spool.common.ScramMechanism;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.ScramCredentialRecord;
import io.netty.buffer.ByteBuf;
import java.net.SocketAddress;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SASL on the Kafka listener (SASL_PLAINTEXT, SASL_SSL), as Kafka's broker runs it: a new
 * connection may send ApiVersions, then SaslHandshake (v1) naming a mechanism, then
 * SaslAuthenticate requests carrying the mechanism's tokens until the exchange completes. Until
 * then any other request closes the connection unanswered; a mechanism not enabled is answered
 * UNSUPPORTED_SASL_MECHANISM with the enabled list, a failed exchange (wrong password, unknown
 * user, malformed token) SASL_AUTHENTICATION_FAILED with a message, a SASL request out of turn
 * ILLEGAL_SASL_STATE, and each of them closes the connection after its answer. Every refusal is one
 * rate-limited WARN line. Credentials are the SCRAM credentials of the broker's metadata image
 * (docs/security.md#sasl); the authenticated principal ({@code User:name}) stays with the
 * connection ({@link Session#principal}).
 *
 * <p>PLAIN's key derivation (the salted password of the received password) runs on the broker's
 * {@link SaslVerifiers}, not on the event loop: the session waits in {@code VERIFYING} and the
 * exchange goes on on its event loop when the result is there. When the verifiers' queue is full
 * the login is refused SASL_AUTHENTICATION_FAILED (after {@code
 * connection.failed.authentication.delay.ms}, as any failed login); a connection closed meanwhile
 * has its queued derivation taken out of the queue ({@link Session#close}) and its answer dropped.
 *
 * <p>Threads: stateless apart from the shared random; each {@link Session} is owned by its
 * connection's event loop (requests are served in arrival order there), apart from {@link
 * Session#close}, a volatile flag any thread may read.
 */
final class SaslAuthenticator {
  private static final Logger log = LoggerFactory.getLogger(SaslAuthenticator.class);
  private static final RateLimitedLog refusals = new RateLimitedLog(log);

  private final List<String> enabled;
  private final Supplier<MetadataImage> image;
  private final SecureRandom random = new SecureRandom();

  /** The mock salts of unknown users are HMACs under it (docs/security.md#sasl). */
  private final byte[] mockSecret = new byte[32];

  private final String logPrefix;
  private final long failedAuthenticationDelayMs;
  private final SaslVerifiers verifiers;
  private final BiPredicate<ScramMechanism.Credential, String> derivation;

  SaslAuthenticator(
      List<String> enabled,
      Supplier<MetadataImage> image,
      String logPrefix,
      long failedAuthenticationDelayMs,
      SaslVerifiers verifiers) {
    this(
        enabled,
        image,
        logPrefix,
        failedAuthenticationDelayMs,
        verifiers,
        ScramMechanism.Credential::matches);
  }

  /**
   * @param derivation PLAIN's check of a password against a credential (tests wrap it to see where
   *     it runs)
   */
  SaslAuthenticator(
      List<String> enabled,
      Supplier<MetadataImage> image,
      String logPrefix,
      long failedAuthenticationDelayMs,
      SaslVerifiers verifiers,
      BiPredicate<ScramMechanism.Credential, String> derivation) {
    this.failedAuthenticationDelayMs = failedAuthenticationDelayMs;
    this.enabled = List.copyOf(enabled);
    this.image = image;
    this.logPrefix = logPrefix;
    this.verifiers = verifiers;
    this.derivation = derivation;
    random.nextBytes(mockSecret);
  }

  /** One connection's authentication state. */
  static final class Session {
    private enum State {
      HANDSHAKE,
      AUTHENTICATE,
      /** PLAIN's derivation is queued or running on the verifiers. */
      VERIFYING,
      AUTHENTICATED,
      FAILED
    }

    private final SocketAddress remote;
    private final Executor eventLoop;
    private State state = State.HANDSHAKE;
    private SaslServer server;
    private String mechanism;
    private volatile String principal;
    private volatile boolean closed;

    /** PLAIN's derivation while it is queued or running (event loop). */
    private CompletableFuture<SaslFailure> derivation;

    Session(SocketAddress remote, Executor eventLoop) {
      this.remote = remote;
      this.eventLoop = eventLoop;
    }

    /**
     * The connection closed (event loop): a derivation still queued for it leaves the queue, one
     * running is dropped when it ends.
     */
    void close() {
      closed = true;
      if (derivation != null) {
        derivation.cancel(false);
      }
    }

    /** Whether the connection has authenticated. */
    boolean authenticated() {
      return state == State.AUTHENTICATED;
    }

    /** {@code User:name} once authenticated, else null (for the ACL checks to come). */
    String principal() {
      return principal;
    }
  }

  /**
   * @param eventLoop the connection's event loop: where the exchange goes on after a derivation
   */
  Session newSession(SocketAddress remote, Executor eventLoop) {
    return new Session(remote, eventLoop);
  }

  /**
   * Why a frame is refused from its api key alone (the first two bytes of the header), before its
   * body is parsed: before authentication only ApiVersions, SaslHandshake and SaslAuthenticate are
   * decoded; null when the frame is to be decoded.
   */
  String refuseUndecoded(ByteBuf frame, Session s) {
    if (s.state == Session.State.AUTHENTICATED || frame.readableBytes() < 2) {
      return null; // a frame too short for a header is the decoder's to refuse
    }
    short key = frame.getShort(frame.readerIndex());
    if (key == KafkaApi.API_VERSIONS.id()
        || key == KafkaApi.SASL_HANDSHAKE.id()
        || key == KafkaApi.SASL_AUTHENTICATE.id()) {
      return null;
    }
    return "a request of api key " + key + " before SASL authentication (not parsed)";
  }

  /**
   * The answer when SASL decides it (a SASL request, or a request refused before authentication);
   * null when the request is to be served as usual. Completes at once, except a PLAIN
   * SaslAuthenticate, which completes on the session's event loop once its derivation is done.
   */
  CompletableFuture<KafkaResponse> intercept(KafkaRequest request, Session s) {
    short key = request.apiKey();
    if (key == KafkaApi.SASL_HANDSHAKE.id()) {
      return CompletableFuture.completedFuture(
          request.immediateAnswer() != null ? request.immediateAnswer() : handshake(request, s));
    }
    if (key == KafkaApi.SASL_AUTHENTICATE.id()) {
      return request.immediateAnswer() != null
          ? CompletableFuture.completedFuture(request.immediateAnswer())
          : authenticate(request, s);
    }
    if (s.state == Session.State.AUTHENTICATED || key == KafkaApi.API_VERSIONS.id()) {
      return null;
    }
    refusals.warn(
        "{} {} from {} before SASL authentication; closing the connection",
        logPrefix,
        request.describe(),
        s.remote);
    return CompletableFuture.completedFuture(KafkaResponse.closeWithoutAnswer());
  }

  private KafkaResponse handshake(KafkaRequest request, Session s) {
    String mechanism = SaslCodec.mechanism(request);
    if (s.state != Session.State.HANDSHAKE) {
      refusals.warn(
          "{} SaslHandshake from {} in state {}; closing the connection",
          logPrefix,
          s.remote,
          s.state);
      s.state = Session.State.FAILED;
      return SaslCodec.illegalState(
          request, "Unexpected SaslHandshake: the connection is past its handshake");
    }
    if (!enabled.contains(mechanism)) {
      refusals.warn(
          "{} SASL mechanism {} asked by {} is not enabled ({}); closing the connection",
          logPrefix,
          LogSafe.quote(mechanism),
          s.remote,
          enabled);
      s.state = Session.State.FAILED;
      return SaslCodec.unsupportedMechanism(request, enabled);
    }
    s.mechanism = mechanism;
    s.server = server(mechanism);
    s.state = Session.State.AUTHENTICATE;
    return SaslCodec.handshakeAccepted(request, enabled);
  }

  private CompletableFuture<KafkaResponse> authenticate(KafkaRequest request, Session s) {
    if (s.state != Session.State.AUTHENTICATE) {
      refusals.warn(
          "{} SaslAuthenticate from {} in state {}; closing the connection",
          logPrefix,
          s.remote,
          s.state);
      String message =
          s.state == Session.State.AUTHENTICATED
              ? "Unexpected SaslAuthenticate: already authenticated (no re-authentication)"
              : s.state == Session.State.VERIFYING
                  ? "Unexpected SaslAuthenticate: the previous one is not answered yet"
                  : "Unexpected SaslAuthenticate: SaslHandshake comes first";
      s.state = Session.State.FAILED;
      return CompletableFuture.completedFuture(SaslCodec.illegalState(request, message));
    }
    if (s.server instanceof PlainServer plain) {
      return authenticatePlain(request, s, plain);
    }
    byte[] token;
    try {
      token = s.server.evaluate(SaslCodec.authBytes(request));
    } catch (SaslFailure e) {
      return CompletableFuture.completedFuture(failed(request, s, e.getMessage(), e.detail()));
    }
    return CompletableFuture.completedFuture(challengeOrDone(request, s, token));
  }

  private KafkaResponse challengeOrDone(KafkaRequest request, Session s, byte[] token) {
    if (s.server.isComplete()) {
      s.principal = "User:" + s.server.user();
      s.state = Session.State.AUTHENTICATED;
      s.server = null;
      log.debug("{} {} authenticated as {} ({})", logPrefix, s.remote, s.principal, s.mechanism);
    }
    return SaslCodec.challenge(request, token);
  }

  /** A refused login: one rate-limited line, the answer and the close after the delay. */
  private KafkaResponse failed(KafkaRequest request, Session s, String message, String detail) {
    refusals.warn(
        "{} SASL {} authentication of {} failed: {}; closing the connection",
        logPrefix,
        s.mechanism,
        s.remote,
        detail);
    s.state = Session.State.FAILED;
    s.server = null;
    return SaslCodec.authenticationFailed(request, message)
        .closingAfter(failedAuthenticationDelayMs);
  }

  /**
   * PLAIN: the message is read and the credential looked up here, on the event loop; the derivation
   * runs on the verifiers; the exchange goes on on the event loop ({@link #afterVerify}).
   */
  private CompletableFuture<KafkaResponse> authenticatePlain(
      KafkaRequest request, Session s, PlainServer plain) {
    PlainServer.Attempt attempt;
    try {
      attempt = plain.parse(SaslCodec.authBytes(request));
    } catch (SaslFailure e) {
      return CompletableFuture.completedFuture(failed(request, s, e.getMessage(), e.detail()));
    }
    s.state = Session.State.VERIFYING;
    s.derivation = verifiers.submit(() -> verify(attempt));
    return s.derivation.handleAsync(
        (failure, error) -> afterVerify(request, s, plain, attempt, failure, error), s.eventLoop);
  }

  /** On a verifier thread: null when the password matches, else why not. */
  private static SaslFailure verify(PlainServer.Attempt attempt) {
    try {
      attempt.verify();
      return null;
    } catch (SaslFailure e) {
      return e;
    }
  }

  /** Back on the session's event loop with the derivation's outcome. */
  private KafkaResponse afterVerify(
      KafkaRequest request,
      Session s,
      PlainServer plain,
      PlainServer.Attempt attempt,
      SaslFailure failure,
      Throwable error) {
    if (s.closed) {
      return KafkaResponse.closeWithoutAnswer(); // nobody to answer; the connection drops it
    }
    if (s.state != Session.State.VERIFYING) {
      // a SASL request out of turn arrived meanwhile and failed the session; it closes
      return SaslCodec.authenticationFailed(request, PlainServer.FAILED).closingAfter(0);
    }
    if (error != null) {
      Throwable cause =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      boolean busy = cause instanceof RejectedExecutionException;
      return failed(
          request,
          s,
          busy
              ? "Authentication failed: the broker is too busy to verify the password, retry later"
              : PlainServer.FAILED,
          "user "
              + LogSafe.quote(attempt.user())
              + (busy
                  ? " refused before key derivation: " + cause.getMessage()
                  : " key derivation failed: " + cause));
    }
    if (failure != null) {
      return failed(request, s, failure.getMessage(), failure.detail());
    }
    plain.accept(attempt);
    return challengeOrDone(request, s, new byte[0]);
  }

  private SaslServer server(String mechanism) {
    if (mechanism.equals("PLAIN")) {
      return new PlainServer(this::anyCredential, derivation);
    }
    ScramMechanism m = ScramMechanism.forName(mechanism).orElseThrow();
    return new ScramServer(m, credentials(m), this::nonce, mockSecret);
  }

  private Function<String, ScramMechanism.Credential> credentials(ScramMechanism m) {
    return user -> {
      ScramCredentialRecord r = image.get().scramCredential(user, m);
      return r == null ? null : Records.credential(r);
    };
  }

  /** For PLAIN: the strongest SCRAM credential the user has. */
  private ScramMechanism.Credential anyCredential(String user) {
    ScramMechanism.Credential c = credentials(ScramMechanism.SCRAM_SHA_512).apply(user);
    return c != null ? c : credentials(ScramMechanism.SCRAM_SHA_256).apply(user);
  }

  private String nonce() {
    byte[] b = new byte[24];
    random.nextBytes(b);
    return Base64.getEncoder().withoutPadding().encodeToString(b);
  }
}
