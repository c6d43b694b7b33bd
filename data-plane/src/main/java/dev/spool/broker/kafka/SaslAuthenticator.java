package dev.spool.broker.kafka;

import dev.spool.broker.kafka.codec.KafkaApi;
import dev.spool.broker.kafka.codec.KafkaRequest;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.broker.kafka.codec.SaslCodec;
import dev.spool.broker.network.SaslAuthentication;
import dev.spool.broker.security.SaslVerifiers;
import dev.spool.common.ScramMechanism;
import dev.spool.quorum.image.MetadataImage;
import io.netty.buffer.ByteBuf;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiPredicate;
import java.util.function.Supplier;

/**
 * SASL on the Kafka listener (SASL_PLAINTEXT, SASL_SSL), as Kafka's broker runs it: the exchange
 * and its refusals are {@link SaslAuthentication}'s, shared with Spool's listener; this class reads
 * Kafka's SaslHandshake (v1) and SaslAuthenticate requests and writes the outcomes in Kafka's
 * schemas ({@link SaslCodec}). The authenticated principal ({@code User:name}) stays with the
 * connection ({@link Session#principal}).
 *
 * <p>Threads: stateless; each {@link Session} is owned by its connection's event loop, apart from
 * {@link Session#close}.
 */
final class SaslAuthenticator {
  private final SaslAuthentication exchange;

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
    this.exchange =
        new SaslAuthentication(
            enabled, image, logPrefix, failedAuthenticationDelayMs, verifiers, derivation);
  }

  /** One connection's authentication state. */
  static final class Session {
    private final SaslAuthentication.Session exchange;

    private Session(SaslAuthentication.Session exchange) {
      this.exchange = exchange;
    }

    /** The connection closed (event loop): a queued derivation leaves the queue. */
    void close() {
      exchange.close();
    }

    /** Whether the connection has authenticated. */
    boolean authenticated() {
      return exchange.authenticated();
    }

    /** {@code User:name} once authenticated, else null. */
    String principal() {
      return exchange.principal();
    }
  }

  /**
   * @param eventLoop the connection's event loop: where the exchange goes on after a derivation
   */
  Session newSession(SocketAddress remote, Executor eventLoop) {
    return new Session(exchange.newSession(remote, eventLoop));
  }

  /**
   * Why a frame is refused from its api key alone (the first two bytes of the header), before its
   * body is parsed: before authentication only ApiVersions, SaslHandshake and SaslAuthenticate are
   * decoded; null when the frame is to be decoded.
   */
  String refuseUndecoded(ByteBuf frame, Session s) {
    if (s.authenticated() || frame.readableBytes() < 2) {
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
          request.immediateAnswer() != null
              ? request.immediateAnswer()
              : answer(request, exchange.handshake(s.exchange, SaslCodec.mechanism(request))));
    }
    if (key == KafkaApi.SASL_AUTHENTICATE.id()) {
      return request.immediateAnswer() != null
          ? CompletableFuture.completedFuture(request.immediateAnswer())
          : exchange
              .authenticate(s.exchange, SaslCodec.authBytes(request))
              .thenApply(o -> answer(request, o));
    }
    if (key == KafkaApi.API_VERSIONS.id()
        || !exchange.refuseBeforeAuthentication(s.exchange, request.describe())) {
      return null;
    }
    return CompletableFuture.completedFuture(KafkaResponse.closeWithoutAnswer());
  }

  /** The outcome in Kafka's schemas. */
  private static KafkaResponse answer(KafkaRequest request, SaslAuthentication.Outcome o) {
    return switch (o.kind()) {
      case HANDSHAKE_ACCEPTED -> SaslCodec.handshakeAccepted(request, o.mechanisms());
      case UNSUPPORTED_MECHANISM -> SaslCodec.unsupportedMechanism(request, o.mechanisms());
      case ILLEGAL_STATE -> SaslCodec.illegalState(request, o.message());
      case CHALLENGE -> SaslCodec.challenge(request, o.token());
      case AUTHENTICATION_FAILED ->
          SaslCodec.authenticationFailed(request, o.message()).closingAfter(o.closeDelayMs());
      case CLOSE -> KafkaResponse.closeWithoutAnswer();
    };
  }
}
