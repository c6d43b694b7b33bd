package dev.spool.broker.security;

import dev.spool.common.ScramMechanism;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * The server side of SASL/PLAIN (RFC 4616): one message {@code authzid NUL user NUL password},
 * checked against the user's SCRAM credential by recomputing the salted password with its salt and
 * iterations (SCRAM-SHA-512's when the user has both), so Spool keeps no second kind of password.
 * The password crosses the network in clear: use it over TLS (SASL_SSL). The recomputation costs
 * the credential's iterations of HMAC (1.5 to 17 ms), so it is split from the rest: {@link #parse}
 * (cheap) reads the message and looks the credential up, {@link Attempt#verify} derives and
 * compares, and {@link #accept} completes the exchange; the Kafka listener runs the middle step on
 * {@link SaslVerifiers}, off the event loop. A user without a credential costs the same: the
 * password is derived against a dummy credential of the default iteration count before the exchange
 * fails, so the time an answer takes does not tell which user names exist.
 *
 * <p>Threads: one connection's event loop, except {@link Attempt#verify}, which may run anywhere.
 */
public final class PlainServer implements SaslServer {
  /** What a client is told on any failure (Kafka's words). */
  public static final String FAILED = "Authentication failed: Invalid username or password";

  /** Derived against for unknown users; its keys are random, so no password matches it. */
  private static final ScramMechanism.Credential DUMMY = dummy();

  private final Function<String, ScramMechanism.Credential> credentials;
  private final BiPredicate<ScramMechanism.Credential, String> derivation;
  private String user;
  private boolean complete;
  private boolean done;

  /**
   * @param credentials a user's credential (any SCRAM mechanism), null when it has none
   */
  public PlainServer(Function<String, ScramMechanism.Credential> credentials) {
    this(credentials, ScramMechanism.Credential::matches);
  }

  /**
   * @param derivation whether a password matches a credential: derives its salted password (the
   *     costly step; {@link ScramMechanism.Credential#matches}, or a wrapper of it in tests)
   */
  public PlainServer(
      Function<String, ScramMechanism.Credential> credentials,
      BiPredicate<ScramMechanism.Credential, String> derivation) {
    this.credentials = credentials;
    this.derivation = derivation;
  }

  /**
   * One received PLAIN message with the credential to check it against: immutable, so {@link
   * #verify} may run on any thread.
   */
  public static final class Attempt {
    private final String user;
    private final String password;
    private final ScramMechanism.Credential credential;
    private final BiPredicate<ScramMechanism.Credential, String> derivation;

    private Attempt(
        String user,
        String password,
        ScramMechanism.Credential credential,
        BiPredicate<ScramMechanism.Credential, String> derivation) {
      this.user = user;
      this.password = password;
      this.credential = credential;
      this.derivation = derivation;
    }

    /** The user name the client sent. */
    public String user() {
      return user;
    }

    /**
     * The costly step: derives the salted password and compares (against the dummy credential for
     * an unknown user, then fails); any thread.
     */
    public void verify() throws SaslFailure {
      if (credential == null) {
        boolean unused = derivation.test(DUMMY, password); // the same cost as a known user
        throw new SaslFailure(FAILED, "user " + LogSafe.quote(user) + " has no SCRAM credential");
      }
      if (!derivation.test(credential, password)) {
        throw new SaslFailure(FAILED, "wrong password for user " + LogSafe.quote(user));
      }
    }
  }

  @Override
  public byte[] evaluate(byte[] response) throws SaslFailure {
    Attempt a = parse(response);
    a.verify();
    accept(a);
    return new byte[0];
  }

  /** Reads the message and looks its user's credential up (cheap); the exchange's only token. */
  public Attempt parse(byte[] response) throws SaslFailure {
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
    return new Attempt(name, password, credentials.apply(name), derivation);
  }

  /** Completes the exchange with an attempt {@link Attempt#verify} passed. */
  public void accept(Attempt verified) {
    user = verified.user;
    complete = true;
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
