package dev.spool.broker.security;

import dev.spool.common.ScramMechanism;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.function.Function;

/**
 * The server side of SASL/PLAIN (RFC 4616): one message {@code authzid NUL user NUL password},
 * checked against the user's SCRAM credential by recomputing the salted password with its salt and
 * iterations (SCRAM-SHA-512's when the user has both), so Spool keeps no second kind of password.
 * The password crosses the network in clear: use it over TLS (SASL_SSL). The recomputation costs
 * the credential's iterations of HMAC (a few milliseconds at 4096), on the connection's event loop.
 * A user without a credential costs the same: the password is derived against a dummy credential of
 * the default iteration count before the exchange fails, so the time an answer takes does not tell
 * which user names exist.
 *
 * <p>Threads: one connection's event loop.
 */
public final class PlainServer implements SaslServer {
  static final String FAILED = "Authentication failed: Invalid username or password";

  /** Derived against for unknown users; its keys are random, so no password matches it. */
  private static final ScramMechanism.Credential DUMMY = dummy();

  private final Function<String, ScramMechanism.Credential> credentials;
  private String user;
  private boolean complete;
  private boolean done;

  /**
   * @param credentials a user's credential (any SCRAM mechanism), null when it has none
   */
  public PlainServer(Function<String, ScramMechanism.Credential> credentials) {
    this.credentials = credentials;
  }

  @Override
  public byte[] evaluate(byte[] response) throws SaslFailure {
    if (done) {
      throw new SaslFailure(FAILED, "a PLAIN token after the exchange ended");
    }
    done = true;
    String message = new String(response, StandardCharsets.UTF_8);
    int first = message.indexOf('\0');
    int second = first < 0 ? -1 : message.indexOf('\0', first + 1);
    if (second < 0 || message.indexOf('\0', second + 1) >= 0) {
      throw new SaslFailure(FAILED, "a PLAIN message is authzid NUL user NUL password");
    }
    String authzid = message.substring(0, first);
    String name = message.substring(first + 1, second);
    String password = message.substring(second + 1);
    if (name.isEmpty()) {
      throw new SaslFailure(FAILED, "empty user name");
    }
    if (!authzid.isEmpty() && !authzid.equals(name)) {
      throw new SaslFailure(
          FAILED, "user " + LogSafe.quote(name) + " asked to act as another user");
    }
    ScramMechanism.Credential c = credentials.apply(name);
    if (c == null) {
      DUMMY.matches(password);
      throw new SaslFailure(FAILED, "user " + LogSafe.quote(name) + " has no SCRAM credential");
    }
    if (!c.matches(password)) {
      throw new SaslFailure(FAILED, "wrong password for user " + LogSafe.quote(name));
    }
    user = name;
    complete = true;
    return new byte[0];
  }

  /** The iterations an unknown user's password is derived with (tests). */
  static int dummyIterations() {
    return DUMMY.iterations();
  }

  private static ScramMechanism.Credential dummy() {
    SecureRandom random = new SecureRandom();
    byte[] keys = new byte[ScramMechanism.SCRAM_SHA_512.hashBytes()];
    random.nextBytes(keys);
    return ScramMechanism.SCRAM_SHA_512.credential(
        ScramMechanism.randomSalt(random), ScramMechanism.MIN_ITERATIONS, keys);
  }

  @Override
  public boolean isComplete() {
    return complete;
  }

  @Override
  public String user() {
    if (!complete) {
      throw new IllegalStateException("not authenticated");
    }
    return user;
  }
}
