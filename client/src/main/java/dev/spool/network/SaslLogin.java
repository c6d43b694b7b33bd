package dev.spool.network;

import com.google.protobuf.ByteString;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramClient;
import dev.spool.common.SpoolException;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.SaslAuthenticateRequest;
import dev.spool.protocol.message.SaslAuthenticateResponse;
import dev.spool.protocol.message.SaslHandshakeRequest;
import dev.spool.protocol.message.SaslHandshakeResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * One connection's SASL login (security.protocol SASL_PLAINTEXT or SASL_SSL;
 * docs/security.md#sasl), after ApiVersions and before any other request: SaslHandshake naming the
 * mechanism, then SaslAuthenticate with the mechanism's tokens (SCRAM: client-first, then
 * client-final, then the server's signature is checked; PLAIN: one message) until it completes.
 *
 * <p>Every failure is a {@link SpoolException} that is not retriable, so an application sees it at
 * once rather than retrying a login that cannot succeed: the broker's answer as it came
 * (SASL_AUTHENTICATION_FAILED with the broker's message, UNSUPPORTED_SASL_MECHANISM with the
 * enabled list), a broker that does not offer SASL on this listener (ILLEGAL_SASL_STATE), a server
 * that fails the SCRAM checks ({@link ScramClient}).
 *
 * <p>Threads: the network client's I/O thread.
 */
final class SaslLogin {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SaslCredentials credentials;
  private final Node node;
  private ScramClient scram;
  private boolean sentClientFinal;
  private boolean complete;

  SaslLogin(SaslCredentials credentials, Node node) {
    this.credentials = credentials;
    this.node = node;
  }

  /** The SaslHandshake request, after checking the broker offers SASL at all. */
  SaslHandshakeRequest handshake(ApiVersionTable theirs) {
    if (theirs.range(ApiKey.SASL_HANDSHAKE).isEmpty()) {
      throw new SpoolException(
          ErrorCode.ILLEGAL_SASL_STATE,
          node
              + " does not offer SASL on this listener (security.protocol is SASL_* here; the"
              + " broker's listener.security.protocol.map must say SPOOL:SASL_PLAINTEXT or"
              + " SPOOL:SASL_SSL)");
    }
    return SaslHandshakeRequest.newBuilder().setMechanism(credentials.mechanism()).build();
  }

  /** The first SaslAuthenticate, once the broker accepted the mechanism. */
  SaslAuthenticateRequest onHandshake(SaslHandshakeResponse r) {
    if (r.getErrorCode() == ErrorCode.UNSUPPORTED_SASL_MECHANISM) {
      throw new SpoolException(
          r.getErrorCode(),
          "client SASL mechanism '"
              + credentials.mechanism()
              + "' is not enabled on "
              + node
              + "; enabled mechanisms are "
              + r.getMechanismsList());
    }
    if (r.getErrorCode() != ErrorCode.NONE) {
      throw new SpoolException(
          r.getErrorCode(), "SaslHandshake with " + node + " failed: " + r.getErrorMessage());
    }
    byte[] first;
    if (credentials.scram() != null) {
      byte[] nonce = new byte[24];
      RANDOM.nextBytes(nonce);
      scram =
          new ScramClient(
              credentials.scram(),
              credentials.username(),
              credentials.password(),
              Base64.getEncoder().withoutPadding().encodeToString(nonce));
      first = scram.clientFirst();
    } else {
      first =
          ("\0" + credentials.username() + "\0" + credentials.password())
              .getBytes(StandardCharsets.UTF_8);
    }
    return token(first);
  }

  /** The next SaslAuthenticate, or null when the login is complete. */
  SaslAuthenticateRequest onAuthenticate(SaslAuthenticateResponse r) {
    if (r.getErrorCode() != ErrorCode.NONE) {
      throw new SpoolException(
          r.getErrorCode(),
          credentials.mechanism()
              + " authentication with "
              + node
              + " failed: "
              + r.getErrorMessage());
    }
    byte[] challenge = r.getAuthBytes().toByteArray();
    if (scram == null) {
      complete = true; // PLAIN: the broker's empty answer is the success
      return null;
    }
    if (!sentClientFinal) {
      sentClientFinal = true; // the answer was server-first
      return token(scram.clientFinal(challenge));
    }
    scram.serverFinal(challenge);
    complete = true;
    return null;
  }

  /** Whether the login completed. */
  boolean complete() {
    return complete;
  }

  /** {@code mechanism as user}, for log lines. */
  String describe() {
    return credentials.mechanism() + " as '" + credentials.username() + "'";
  }

  private static SaslAuthenticateRequest token(byte[] bytes) {
    return SaslAuthenticateRequest.newBuilder().setAuthBytes(ByteString.copyFrom(bytes)).build();
  }
}
