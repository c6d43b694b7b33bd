package dev.spool.broker.kafka.codec;

import java.util.List;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * SaslHandshake (v1) and SaslAuthenticate (v0-2) on the Kafka listener: the mechanism a client asks
 * for, the SASL tokens it sends, and the answers. Which answer is given is decided outside the
 * codec (the listener's SASL state per connection); the failures close the connection after the
 * answer is written, as on Kafka.
 *
 * <p>Threads: stateless; the connections' event loops.
 */
public final class SaslCodec {
  private SaslCodec() {}

  /** The mechanism a SaslHandshake request asks for. */
  public static String mechanism(KafkaRequest request) {
    SaslHandshakeRequestData d = request.body();
    return d.mechanism();
  }

  /** The SASL token of a SaslAuthenticate request. */
  public static byte[] authBytes(KafkaRequest request) {
    SaslAuthenticateRequestData d = request.body();
    return d.authBytes();
  }

  /** The handshake accepted: authentication with the mechanism follows. */
  public static KafkaResponse handshakeAccepted(KafkaRequest request, List<String> enabled) {
    return request.respond(
        new SaslHandshakeResponseData().setErrorCode(Errors.NONE.code()).setMechanisms(enabled));
  }

  /** UNSUPPORTED_SASL_MECHANISM with the enabled mechanisms; the connection closes after it. */
  public static KafkaResponse unsupportedMechanism(KafkaRequest request, List<String> enabled) {
    return request
        .respond(
            new SaslHandshakeResponseData()
                .setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())
                .setMechanisms(enabled))
        .withError(Errors.UNSUPPORTED_SASL_MECHANISM.name())
        .closing();
  }

  /** ILLEGAL_SASL_STATE (a handshake or token out of turn); the connection closes after it. */
  public static KafkaResponse illegalState(KafkaRequest request, String message) {
    return request.errorResponse(Errors.ILLEGAL_SASL_STATE, message).closing();
  }

  /** The server's next token. */
  public static KafkaResponse challenge(KafkaRequest request, byte[] token) {
    return request.respond(
        new SaslAuthenticateResponseData()
            .setErrorCode(Errors.NONE.code())
            .setAuthBytes(token)
            .setSessionLifetimeMs(0));
  }

  /** SASL_AUTHENTICATION_FAILED with {@code message}; the connection closes after it. */
  public static KafkaResponse authenticationFailed(KafkaRequest request, String message) {
    return request
        .respond(
            new SaslAuthenticateResponseData()
                .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                .setErrorMessage(message)
                .setAuthBytes(new byte[0]))
        .withError(Errors.SASL_AUTHENTICATION_FAILED.name())
        .closing();
  }
}
