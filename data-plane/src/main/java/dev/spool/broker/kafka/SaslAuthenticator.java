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
 * <p>Threads: stateless apart from the shared random; each {@link Session} is owned by its
 * connection's event loop (requests are served in arrival order there).
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

  SaslAuthenticator(
      List<String> enabled,
      Supplier<MetadataImage> image,
      String logPrefix,
      long failedAuthenticationDelayMs) {
    this.failedAuthenticationDelayMs = failedAuthenticationDelayMs;
    this.enabled = List.copyOf(enabled);
    this.image = image;
    this.logPrefix = logPrefix;
    random.nextBytes(mockSecret);
  }

  /** One connection's authentication state. */
  static final class Session {
    private enum State {
      HANDSHAKE,
      AUTHENTICATE,
      AUTHENTICATED,
      FAILED
    }

    private final SocketAddress remote;
    private State state = State.HANDSHAKE;
    private SaslServer server;
    private String mechanism;
    private volatile String principal;

    Session(SocketAddress remote) {
      this.remote = remote;
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

  Session newSession(SocketAddress remote) {
    return new Session(remote);
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
   * null when the request is to be served as usual.
   */
  KafkaResponse intercept(KafkaRequest request, Session s) {
    short key = request.apiKey();
    if (key == KafkaApi.SASL_HANDSHAKE.id()) {
      return request.immediateAnswer() != null ? request.immediateAnswer() : handshake(request, s);
    }
    if (key == KafkaApi.SASL_AUTHENTICATE.id()) {
      return request.immediateAnswer() != null
          ? request.immediateAnswer()
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
    return KafkaResponse.closeWithoutAnswer();
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

  private KafkaResponse authenticate(KafkaRequest request, Session s) {
    if (s.state != Session.State.AUTHENTICATE) {
      refusals.warn(
          "{} SaslAuthenticate from {} in state {}; closing the connection",
          logPrefix,
          s.remote,
          s.state);
      String message =
          s.state == Session.State.AUTHENTICATED
              ? "Unexpected SaslAuthenticate: already authenticated (no re-authentication)"
              : "Unexpected SaslAuthenticate: SaslHandshake comes first";
      s.state = Session.State.FAILED;
      return SaslCodec.illegalState(request, message);
    }
    byte[] token;
    try {
      token = s.server.evaluate(SaslCodec.authBytes(request));
    } catch (SaslFailure e) {
      refusals.warn(
          "{} SASL {} authentication of {} failed: {}; closing the connection",
          logPrefix,
          s.mechanism,
          s.remote,
          e.detail());
      s.state = Session.State.FAILED;
      return SaslCodec.authenticationFailed(request, e.getMessage())
          .closingAfter(failedAuthenticationDelayMs);
    }
    if (s.server.isComplete()) {
      s.principal = "User:" + s.server.user();
      s.state = Session.State.AUTHENTICATED;
      s.server = null;
      log.debug("{} {} authenticated as {} ({})", logPrefix, s.remote, s.principal, s.mechanism);
    }
    return SaslCodec.challenge(request, token);
  }

  private SaslServer server(String mechanism) {
    if (mechanism.equals("PLAIN")) {
      return new PlainServer(this::anyCredential);
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
