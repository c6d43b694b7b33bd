package dev.spool.broker.security;

import dev.spool.common.ScramMechanism;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The server side of SCRAM (RFC 5802; SCRAM-SHA-256 of RFC 7677, SCRAM-SHA-512 likewise), as
 * Kafka's clients and librdkafka speak it: two round trips, no channel binding (gs2 header {@code
 * n,,} or {@code y,,}; an authorization id must be the user itself), Kafka's {@code tokenauth}
 * extension refused (no delegation tokens). The credential (salt, iterations, StoredKey, ServerKey)
 * comes from {@code credentials}; the password is never known here. A user without a credential
 * gets a mock server-first message (RFC 5802 section 5.1): a salt that is an HMAC of the user name
 * under a per-broker secret (so the same for every attempt, like a real one), 4096 iterations, and
 * the exchange fails only at the client-final message, with the words of a wrong password; the
 * answers do not tell which user names exist.
 *
 * <pre>
 * client-first  n,,n=user,r=cnonce
 * server-first  r=cnonce+snonce,s=base64(salt),i=iterations
 * client-final  c=biws,r=cnonce+snonce,p=base64(ClientKey XOR HMAC(StoredKey, AuthMessage))
 * server-final  v=base64(HMAC(ServerKey, AuthMessage))
 * </pre>
 *
 * <p>Threads: one connection's event loop.
 */
public final class ScramServer implements SaslServer {
  /** What a client is told on any failure (Kafka's words), whatever the reason. */
  static final String FAILED =
      "Authentication failed during authentication due to invalid"
          + " credentials with SASL mechanism ";

  private enum State {
    RECEIVE_CLIENT_FIRST,
    RECEIVE_CLIENT_FINAL,
    COMPLETE,
    FAILED
  }

  private final ScramMechanism mechanism;
  private final Function<String, ScramMechanism.Credential> credentials;
  private final Supplier<String> serverNonce;
  private final byte[] mockSecret;
  private State state = State.RECEIVE_CLIENT_FIRST;
  private String user;
  private String gs2Header;
  private String clientFirstBare;
  private String serverFirst;
  private String nonce;
  private ScramMechanism.Credential credential;
  private boolean unknownUser;

  /**
   * @param credentials the credential of a user for this mechanism, null when it has none
   * @param serverNonce printable characters other than ',' (tests pass RFC 7677's)
   * @param mockSecret the broker's random secret the mock salts of unknown users are made with
   */
  public ScramServer(
      ScramMechanism mechanism,
      Function<String, ScramMechanism.Credential> credentials,
      Supplier<String> serverNonce,
      byte[] mockSecret) {
    this.mechanism = mechanism;
    this.credentials = credentials;
    this.serverNonce = serverNonce;
    this.mockSecret = mockSecret.clone();
  }

  /**
   * The credential an unknown user is answered with: salt HMAC(secret, name) of {@link
   * ScramMechanism#SALT_BYTES}, {@link ScramMechanism#MIN_ITERATIONS}, and all-zero keys: the proof
   * check still runs, and the exchange fails on {@code unknownUser} whatever the proof.
   */
  static ScramMechanism.Credential mockCredential(
      ScramMechanism mechanism, byte[] secret, String name) {
    byte[] mac = mechanism.hmac(secret, name.getBytes(StandardCharsets.UTF_8));
    byte[] salt = Arrays.copyOf(mac, ScramMechanism.SALT_BYTES);
    return mechanism.credential(
        salt, ScramMechanism.MIN_ITERATIONS, new byte[mechanism.hashBytes()]);
  }

  @Override
  public byte[] evaluate(byte[] response) throws SaslFailure {
    try {
      return switch (state) {
        case RECEIVE_CLIENT_FIRST -> clientFirst(new String(response, StandardCharsets.UTF_8));
        case RECEIVE_CLIENT_FINAL -> clientFinal(new String(response, StandardCharsets.UTF_8));
        case COMPLETE, FAILED -> throw fail("a SCRAM token after the exchange ended");
      };
    } catch (SaslFailure e) {
      state = State.FAILED;
      throw e;
    }
  }

  private byte[] clientFirst(String message) throws SaslFailure {
    // gs2-header: "n," or "y," (no channel binding), then an optional "a=authzid", then ","
    int first = message.indexOf(',');
    int second = first < 0 ? -1 : message.indexOf(',', first + 1);
    if (second < 0) {
      throw fail("client-first-message without a gs2 header");
    }
    String cbind = message.substring(0, first);
    if (!cbind.equals("n") && !cbind.equals("y")) {
      throw fail("channel binding " + LogSafe.quote(cbind) + " is not supported");
    }
    String authzid = message.substring(first + 1, second);
    gs2Header = message.substring(0, second + 1);
    clientFirstBare = message.substring(second + 1);
    String[] attrs = clientFirstBare.split(",", -1);
    if (attrs.length < 2 || !attrs[0].startsWith("n=") || !attrs[1].startsWith("r=")) {
      throw fail("malformed client-first-message");
    }
    String name = unescape(attrs[0].substring(2));
    String cnonce = attrs[1].substring(2);
    if (cnonce.isEmpty()) {
      throw fail("empty client nonce");
    }
    for (int i = 2; i < attrs.length; i++) {
      if (attrs[i].startsWith("tokenauth=")) {
        throw fail("delegation tokens are not supported");
      }
    }
    if (!authzid.isEmpty() && !authzid.startsWith("a=")) {
      // RFC 5802 gs2-header: [ "a=" saslname ]; anything else is not an authorization id
      throw fail("malformed gs2 header: authzid " + LogSafe.quote(authzid) + " is not a=...");
    }
    if (!authzid.isEmpty() && !unescape(authzid.substring(2)).equals(name)) {
      throw fail("user " + LogSafe.quote(name) + " asked to act as another user");
    }
    user = name;
    credential = credentials.apply(name);
    if (credential == null) {
      unknownUser = true;
      credential = mockCredential(mechanism, mockSecret, name);
    }
    nonce = cnonce + serverNonce.get();
    serverFirst =
        "r="
            + nonce
            + ",s="
            + Base64.getEncoder().encodeToString(credential.salt())
            + ",i="
            + credential.iterations();
    state = State.RECEIVE_CLIENT_FINAL;
    return serverFirst.getBytes(StandardCharsets.UTF_8);
  }

  private byte[] clientFinal(String message) throws SaslFailure {
    int proofAt = message.lastIndexOf(",p=");
    if (proofAt < 0 || !message.startsWith("c=")) {
      throw fail("malformed client-final-message");
    }
    String withoutProof = message.substring(0, proofAt);
    String[] attrs = withoutProof.split(",", -1);
    if (attrs.length < 2 || !attrs[1].startsWith("r=")) {
      throw fail("malformed client-final-message");
    }
    String channelBinding =
        Base64.getEncoder().encodeToString(gs2Header.getBytes(StandardCharsets.UTF_8));
    if (!attrs[0].substring(2).equals(channelBinding)) {
      throw fail("channel binding data differ from the gs2 header");
    }
    if (!attrs[1].substring(2).equals(nonce)) {
      throw fail("the client-final nonce is not the exchange's");
    }
    byte[] proof;
    try {
      proof = Base64.getDecoder().decode(message.substring(proofAt + 3));
    } catch (IllegalArgumentException e) {
      throw fail("the client proof is not base64");
    }
    byte[] authMessage =
        (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
    byte[] clientSignature = mechanism.hmac(credential.storedKey(), authMessage);
    String refusal =
        unknownUser
            ? "user " + LogSafe.quote(user) + " has no " + mechanism.mechanismName() + " credential"
            : "wrong password for user " + LogSafe.quote(user);
    if (proof.length != clientSignature.length) {
      throw fail(refusal);
    }
    byte[] clientKey = new byte[proof.length];
    for (int i = 0; i < proof.length; i++) {
      clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
    }
    if (!MessageDigest.isEqual(mechanism.hash(clientKey), credential.storedKey()) || unknownUser) {
      throw fail(refusal);
    }
    byte[] serverSignature = mechanism.hmac(credential.serverKey(), authMessage);
    state = State.COMPLETE;
    return ("v=" + Base64.getEncoder().encodeToString(serverSignature))
        .getBytes(StandardCharsets.UTF_8);
  }

  /** saslname of RFC 5802: ',' and '=' are sent as "=2C" and "=3D". */
  static String unescape(String saslName) throws SaslFailure {
    StringBuilder b = new StringBuilder(saslName.length());
    for (int i = 0; i < saslName.length(); i++) {
      char c = saslName.charAt(i);
      if (c != '=') {
        b.append(c);
      } else if (saslName.startsWith("=2C", i)) {
        b.append(',');
        i += 2;
      } else if (saslName.startsWith("=3D", i)) {
        b.append('=');
        i += 2;
      } else {
        throw new SaslFailure(
            "Authentication failed: invalid user name", "a user name with a bare '='");
      }
    }
    return b.toString();
  }

  private SaslFailure fail(String detail) {
    return new SaslFailure(FAILED + mechanism.mechanismName(), detail);
  }

  @Override
  public boolean isComplete() {
    return state == State.COMPLETE;
  }

  @Override
  public String user() {
    if (state != State.COMPLETE) {
      throw new IllegalStateException("not authenticated");
    }
    return user;
  }
}
