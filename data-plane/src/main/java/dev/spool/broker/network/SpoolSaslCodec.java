package dev.spool.broker.network;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.SaslAuthenticateRequest;
import dev.spool.protocol.message.SaslAuthenticateResponse;
import dev.spool.protocol.message.SaslHandshakeRequest;
import dev.spool.protocol.message.SaslHandshakeResponse;
import java.util.concurrent.CompletableFuture;

/**
 * SaslHandshake and SaslAuthenticate on Spool's listener ({@code protocol.proto}): reads the
 * requests and writes {@link SaslAuthentication}'s outcomes as Spool's response bodies. A refusal's
 * error code is in the body (as in Kafka's schemas), and the connection closes after it.
 *
 * <p>Threads: stateless; the connections' event loops.
 */
final class SpoolSaslCodec {
  private SpoolSaslCodec() {}

  /** Whether {@code key} is one of the two SASL APIs. */
  static boolean isSasl(ApiKey key) {
    return key == ApiKey.SASL_HANDSHAKE || key == ApiKey.SASL_AUTHENTICATE;
  }

  /**
   * The answer to a SASL request on a SASL listener; the body is parsed here (a malformed one
   * throws {@link dev.spool.protocol.InvalidFrameException}, answered INVALID_REQUEST and closed).
   */
  static CompletableFuture<BrokerResponse> serve(
      SpoolProtocol.Request r, SaslAuthentication sasl, SaslAuthentication.Session s) {
    if (r.header().getApiKey() == ApiKey.SASL_HANDSHAKE) {
      String mechanism = r.frame().parseBody(SaslHandshakeRequest.parser()).getMechanism();
      return CompletableFuture.completedFuture(handshake(sasl.handshake(s, mechanism)));
    }
    byte[] token =
        r.frame().parseBody(SaslAuthenticateRequest.parser()).getAuthBytes().toByteArray();
    return sasl.authenticate(s, token).thenApply(SpoolSaslCodec::authenticate);
  }

  /** A SASL request on a listener without SASL: ILLEGAL_SASL_STATE, and the connection closes. */
  static BrokerResponse notSasl(ApiKey key) {
    String message = "this listener does not use SASL (its security protocol is not SASL_*)";
    return key == ApiKey.SASL_HANDSHAKE
        ? BrokerResponse.closing(
            SaslHandshakeResponse.newBuilder()
                .setErrorCode(ErrorCode.ILLEGAL_SASL_STATE)
                .setErrorMessage(message)
                .build(),
            0)
        : BrokerResponse.closing(
            SaslAuthenticateResponse.newBuilder()
                .setErrorCode(ErrorCode.ILLEGAL_SASL_STATE)
                .setErrorMessage(message)
                .build(),
            0);
  }

  /** The ApiVersions answer of a SASL listener: the SASL APIs added to the served ones. */
  static BrokerResponse withSaslApis(BrokerResponse answer) {
    if (!(answer.body() instanceof ApiVersionsResponse v)) {
      return answer;
    }
    ApiVersionsResponse.Builder b = v.toBuilder();
    for (ApiKey k : new ApiKey[] {ApiKey.SASL_HANDSHAKE, ApiKey.SASL_AUTHENTICATE}) {
      ApiVersionTable.Range range = ApiVersionTable.CURRENT.range(k).orElseThrow();
      b.addApiVersions(
          ApiVersionsResponse.ApiVersionRange.newBuilder()
              .setApiKey(k)
              .setMinVersion(range.min())
              .setMaxVersion(range.max()));
    }
    return BrokerResponse.of(b.build());
  }

  private static BrokerResponse handshake(SaslAuthentication.Outcome o) {
    SaslHandshakeResponse.Builder b =
        SaslHandshakeResponse.newBuilder().addAllMechanisms(o.mechanisms());
    return switch (o.kind()) {
      case HANDSHAKE_ACCEPTED -> BrokerResponse.of(b.build());
      case UNSUPPORTED_MECHANISM ->
          BrokerResponse.closing(
              b.setErrorCode(ErrorCode.UNSUPPORTED_SASL_MECHANISM)
                  .setErrorMessage(o.message())
                  .build(),
              0);
      default ->
          BrokerResponse.closing(
              b.setErrorCode(ErrorCode.ILLEGAL_SASL_STATE).setErrorMessage(o.message()).build(), 0);
    };
  }

  private static BrokerResponse authenticate(SaslAuthentication.Outcome o) {
    SaslAuthenticateResponse.Builder b = SaslAuthenticateResponse.newBuilder();
    return switch (o.kind()) {
      case CHALLENGE ->
          BrokerResponse.of(
              b.setAuthBytes(com.google.protobuf.ByteString.copyFrom(o.token()))
                  .setSessionLifetimeMs(0)
                  .build());
      case AUTHENTICATION_FAILED ->
          BrokerResponse.closing(
              b.setErrorCode(ErrorCode.SASL_AUTHENTICATION_FAILED)
                  .setErrorMessage(o.message())
                  .build(),
              o.closeDelayMs());
      case CLOSE -> BrokerResponse.closeWithoutAnswer();
      default ->
          BrokerResponse.closing(
              b.setErrorCode(ErrorCode.ILLEGAL_SASL_STATE).setErrorMessage(o.message()).build(), 0);
    };
  }
}
