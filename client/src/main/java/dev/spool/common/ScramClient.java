package dev.spool.common;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * The client side of one SCRAM exchange (RFC 5802; SCRAM-SHA-256 of RFC 7677, SCRAM-SHA-512
 * likewise), as Kafka's clients speak it: no channel binding (gs2 header {@code n,,}), no
 * authorization id, two round trips. The client proves it knows the password without sending it,
 * and checks the server's signature in the server-final message, so a server that does not hold the
 * user's ServerKey cannot pass for the broker.
 *
 * <pre>
 * client-first  n,,n=user,r=cnonce
 * server-first  r=cnonce+snonce,s=base64(salt),i=iterations
 * client-final  c=biws,r=cnonce+snonce,p=base64(ClientKey XOR HMAC(StoredKey, AuthMessage))
 * server-final  v=base64(HMAC(ServerKey, AuthMessage))
 * </pre>
 *
 * Refused, each with SASL_AUTHENTICATION_FAILED naming why: a server nonce that does not extend the
 * client's, an iteration count below {@link ScramMechanism#MIN_ITERATIONS} (or above {@link
 * ScramMechanism#MAX_ITERATIONS}), a malformed message, a mandatory extension, a server-final error
 * ({@code e=}) and a server signature that does not match.
 *
 * <p>Threads: one exchange, one thread at a time.
 */
public final class ScramClient {
  private static final String GS2_HEADER = "n,,";

  private enum State {
    CLIENT_FIRST,
    CLIENT_FINAL,
    SERVER_FINAL,
    COMPLETE,
    FAILED
  }

  private final ScramMechanism mechanism;
  private final String user;
  private final String password;
  private final String clientNonce;
  private State state = State.CLIENT_FIRST;
  private String clientFirstBare;
  private byte[] serverSignature;

  /**
   * @param clientNonce printable characters other than ',' (random; tests pass RFC 7677's)
   */
  public ScramClient(ScramMechanism mechanism, String user, String password, String clientNonce) {
    if (clientNonce.isEmpty() || clientNonce.indexOf(',') >= 0) {
      throw new IllegalArgumentException("a client nonce is printable characters but ','");
    }
    this.mechanism = mechanism;
    this.user = user;
    this.password = password;
    this.clientNonce = clientNonce;
  }

  /** The client-first message. */
  public byte[] clientFirst() {
    if (state != State.CLIENT_FIRST) {
      throw new IllegalStateException("client-first was sent already");
    }
    clientFirstBare = "n=" + escape(user) + ",r=" + clientNonce;
    state = State.CLIENT_FINAL;
    return (GS2_HEADER + clientFirstBare).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The client-final message answering {@code serverFirstBytes}.
   *
   * @throws SpoolException SASL_AUTHENTICATION_FAILED when the server-first message is refused
   */
  public byte[] clientFinal(byte[] serverFirstBytes) {
    if (state != State.CLIENT_FINAL) {
      throw new IllegalStateException("client-final comes after client-first, once");
    }
    state = State.FAILED;
    String serverFirst = new String(serverFirstBytes, StandardCharsets.UTF_8);
    String[] attrs = serverFirst.split(",", -1);
    if (attrs.length > 0 && attrs[0].startsWith("m=")) {
      throw fail("the server asks for a mandatory extension (" + serverFirst + ")");
    }
    if (attrs.length < 3
        || !attrs[0].startsWith("r=")
        || !attrs[1].startsWith("s=")
        || !attrs[2].startsWith("i=")) {
      throw fail("malformed server-first message");
    }
    String nonce = attrs[0].substring(2);
    if (!nonce.startsWith(clientNonce) || nonce.length() == clientNonce.length()) {
      throw fail("the server nonce does not extend the client nonce");
    }
    byte[] salt;
    int iterations;
    try {
      salt = Base64.getDecoder().decode(attrs[1].substring(2));
      iterations = Integer.parseInt(attrs[2].substring(2));
    } catch (IllegalArgumentException e) {
      throw fail("malformed salt or iteration count in the server-first message");
    }
    if (salt.length == 0) {
      throw fail("empty salt in the server-first message");
    }
    if (iterations < ScramMechanism.MIN_ITERATIONS || iterations > ScramMechanism.MAX_ITERATIONS) {
      throw fail(
          "iteration count "
              + iterations
              + " is outside "
              + ScramMechanism.MIN_ITERATIONS
              + " to "
              + ScramMechanism.MAX_ITERATIONS);
    }
    byte[] salted = mechanism.saltedPassword(password, salt, iterations);
    byte[] clientKey = mechanism.clientKey(salted);
    byte[] storedKey = mechanism.storedKey(clientKey);
    String withoutProof =
        "c="
            + Base64.getEncoder().encodeToString(GS2_HEADER.getBytes(StandardCharsets.UTF_8))
            + ",r="
            + nonce;
    byte[] authMessage =
        (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
    byte[] clientSignature = mechanism.hmac(storedKey, authMessage);
    byte[] proof = new byte[clientKey.length];
    for (int i = 0; i < proof.length; i++) {
      proof[i] = (byte) (clientKey[i] ^ clientSignature[i]);
    }
    serverSignature = mechanism.hmac(mechanism.serverKey(salted), authMessage);
    state = State.SERVER_FINAL;
    return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof))
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Checks the server-final message: the exchange is complete when it returns.
   *
   * @throws SpoolException SASL_AUTHENTICATION_FAILED when the server reports an error or its
   *     signature is not the one the password gives
   */
  public void serverFinal(byte[] serverFinalBytes) {
    if (state != State.SERVER_FINAL) {
      throw new IllegalStateException("server-final comes after client-final, once");
    }
    state = State.FAILED;
    String serverFinal = new String(serverFinalBytes, StandardCharsets.UTF_8);
    if (serverFinal.startsWith("e=")) {
      throw fail("the server refused: " + serverFinal.substring(2));
    }
    if (!serverFinal.startsWith("v=")) {
      throw fail("malformed server-final message");
    }
    int end = serverFinal.indexOf(',');
    byte[] signature;
    try {
      signature =
          Base64.getDecoder()
              .decode(serverFinal.substring(2, end < 0 ? serverFinal.length() : end));
    } catch (IllegalArgumentException e) {
      throw fail("the server signature is not base64");
    }
    if (!MessageDigest.isEqual(signature, serverSignature)) {
      throw fail("the server signature does not match: the server does not know the credential");
    }
    state = State.COMPLETE;
  }

  /** True once the server's signature was verified. */
  public boolean isComplete() {
    return state == State.COMPLETE;
  }

  /** saslname of RFC 5802: ',' and '=' are sent as "=2C" and "=3D". */
  static String escape(String name) {
    return name.replace("=", "=3D").replace(",", "=2C");
  }

  private SpoolException fail(String why) {
    return new SpoolException(
        ErrorCode.SASL_AUTHENTICATION_FAILED,
        mechanism.mechanismName() + " authentication of user '" + user + "' failed: " + why);
  }
}
