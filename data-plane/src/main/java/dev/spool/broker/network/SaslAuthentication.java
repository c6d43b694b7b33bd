package dev.spool.broker.network;

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
 * The SASL exchange of one listener, whatever protocol carries it (Kafka's on {@code
 * kafka.listener}, Spool's on {@code listener}; docs/security.md#sasl): a new connection may send
 * ApiVersions, then SaslHandshake naming a mechanism, then SaslAuthenticate requests carrying the
 * mechanism's tokens until the exchange completes. Until then any other request closes the
 * connection unanswered ({@link #refuseBeforeAuthentication}); a mechanism not enabled is answered
 * UNSUPPORTED_SASL_MECHANISM with the enabled list, a failed exchange (wrong password, unknown
 * user, malformed token) SASL_AUTHENTICATION_FAILED with a message, a SASL request out of turn
 * ILLEGAL_SASL_STATE, and each of them closes the connection after its answer. Every refusal is one
 * rate-limited WARN line. Credentials are the SCRAM credentials of the broker's metadata image; the
 * authenticated principal ({@code User:name}) stays with the connection ({@link
 * Session#principal}).
 *
 * <p>What to answer is an {@link Outcome}; each listener's codec (Kafka's {@code
 * SaslAuthenticator}, {@link SpoolProtocol}) turns it into its own response, so the state machine
 * and its refusals are written once.
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
public final class SaslAuthentication {
  private static final Logger log = LoggerFactory.getLogger(SaslAuthentication.class);
  private static final RateLimitedLog refusals = new RateLimitedLog(log);

  /** What a client is told when the broker's verifiers are full. */
  static final String BUSY =
      "Authentication failed: the broker is too busy to verify the password, retry later";

  private final List<String> enabled;
  private final Supplier<MetadataImage> image;
  private final SecureRandom random = new SecureRandom();

  /** The mock salts of unknown users are HMACs under it (docs/security.md#sasl). */
  private final byte[] mockSecret = new byte[32];

  private final String logPrefix;
  private final long failedAuthenticationDelayMs;
  private final SaslVerifiers verifiers;
  private final BiPredicate<ScramMechanism.Credential, String> derivation;

  /**
   * @param enabled the mechanisms offered ({@code sasl.enabled.mechanisms})
   * @param image the broker's metadata image, where the credentials are
   * @param failedAuthenticationDelayMs {@code connection.failed.authentication.delay.ms}
   * @param verifiers where PLAIN's key derivation runs (the broker's, closed with it)
   * @param derivation PLAIN's check of a password against a credential (tests wrap it to see where
   *     it runs)
   */
  public SaslAuthentication(
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

  /** What a SASL request is answered with; the listener's codec writes it in its protocol. */
  public enum Kind {
    /** SaslHandshake accepted; {@link Outcome#mechanisms} the enabled list. */
    HANDSHAKE_ACCEPTED,
    /** UNSUPPORTED_SASL_MECHANISM with the enabled list; the connection closes after it. */
    UNSUPPORTED_MECHANISM,
    /** ILLEGAL_SASL_STATE with {@link Outcome#message}; the connection closes after it. */
    ILLEGAL_STATE,
    /** SaslAuthenticate answered with the server's next token ({@link Outcome#token}). */
    CHALLENGE,
    /**
     * SASL_AUTHENTICATION_FAILED with {@link Outcome#message}; the answer and the close wait {@link
     * Outcome#closeDelayMs}.
     */
    AUTHENTICATION_FAILED,
    /** Nothing is answered: the connection closed meanwhile, or closes now. */
    CLOSE
  }

  /** The answer to a SASL request, protocol-neutral. */
  public record Outcome(
      Kind kind, String message, byte[] token, List<String> mechanisms, long closeDelayMs) {
    static Outcome of(Kind kind, String message) {
      return new Outcome(kind, message, new byte[0], List.of(), 0);
    }
  }

  /** One connection's authentication state. */
  public static final class Session {
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

    private Session(SocketAddress remote, Executor eventLoop) {
      this.remote = remote;
      this.eventLoop = eventLoop;
    }

    /**
     * The connection closed (event loop): a derivation still queued for it leaves the queue, one
     * running is dropped when it ends.
     */
    public void close() {
      closed = true;
      if (derivation != null) {
        derivation.cancel(false);
      }
    }

    /** Whether the connection has authenticated. */
    public boolean authenticated() {
      return state == State.AUTHENTICATED;
    }

    /** {@code User:name} once authenticated, else null. */
    public String principal() {
      return principal;
    }

    /** The client's address, for log lines. */
    public SocketAddress remote() {
      return remote;
    }
  }

  /**
   * @param eventLoop the connection's event loop: where the exchange goes on after a derivation
   */
  public Session newSession(SocketAddress remote, Executor eventLoop) {
    return new Session(remote, eventLoop);
  }

  /**
   * Whether a request that is neither ApiVersions nor a SASL request must close the connection
   * unanswered (it came before authentication); logs the refusal once (rate-limited).
   *
   * @param what the request, for the log line
   */
  public boolean refuseBeforeAuthentication(Session s, String what) {
    if (s.state == Session.State.AUTHENTICATED) {
      return false;
    }
    refusals.warn(
        "{} {} from {} before SASL authentication; closing the connection",
        logPrefix,
        what,
        s.remote);
    return true;
  }

  /** SaslHandshake naming {@code mechanism}. */
  public Outcome handshake(Session s, String mechanism) {
    if (s.state != Session.State.HANDSHAKE) {
      refusals.warn(
          "{} SaslHandshake from {} in state {}; closing the connection",
          logPrefix,
          s.remote,
          s.state);
      s.state = Session.State.FAILED;
      return Outcome.of(
          Kind.ILLEGAL_STATE, "Unexpected SaslHandshake: the connection is past its handshake");
    }
    if (!enabled.contains(mechanism)) {
      refusals.warn(
          "{} SASL mechanism {} asked by {} is not enabled ({}); closing the connection",
          logPrefix,
          LogSafe.quote(mechanism),
          s.remote,
          enabled);
      s.state = Session.State.FAILED;
      return new Outcome(
          Kind.UNSUPPORTED_MECHANISM,
          "Unsupported SASL mechanism " + mechanism + "; enabled: " + enabled,
          new byte[0],
          enabled,
          0);
    }
    s.mechanism = mechanism;
    s.server = server(mechanism);
    s.state = Session.State.AUTHENTICATE;
    return new Outcome(Kind.HANDSHAKE_ACCEPTED, "", new byte[0], enabled, 0);
  }

  /**
   * SaslAuthenticate carrying {@code token}. Completes at once, except for PLAIN, which completes
   * on the session's event loop once its derivation is done.
   */
  public CompletableFuture<Outcome> authenticate(Session s, byte[] token) {
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
      return CompletableFuture.completedFuture(Outcome.of(Kind.ILLEGAL_STATE, message));
    }
    if (s.server instanceof PlainServer plain) {
      return authenticatePlain(s, plain, token);
    }
    byte[] next;
    try {
      next = s.server.evaluate(token);
    } catch (SaslFailure e) {
      return CompletableFuture.completedFuture(failed(s, e.getMessage(), e.detail()));
    }
    return CompletableFuture.completedFuture(challengeOrDone(s, next));
  }

  private Outcome challengeOrDone(Session s, byte[] token) {
    if (s.server.isComplete()) {
      s.principal = "User:" + s.server.user();
      s.state = Session.State.AUTHENTICATED;
      s.server = null;
      log.debug("{} {} authenticated as {} ({})", logPrefix, s.remote, s.principal, s.mechanism);
    }
    return new Outcome(Kind.CHALLENGE, "", token, List.of(), 0);
  }

  /** A refused login: one rate-limited line, the answer and the close after the delay. */
  private Outcome failed(Session s, String message, String detail) {
    refusals.warn(
        "{} SASL {} authentication of {} failed: {}; closing the connection",
        logPrefix,
        s.mechanism,
        s.remote,
        detail);
    s.state = Session.State.FAILED;
    s.server = null;
    return new Outcome(
        Kind.AUTHENTICATION_FAILED, message, new byte[0], List.of(), failedAuthenticationDelayMs);
  }

  /**
   * PLAIN: the message is read and the credential looked up here, on the event loop; the derivation
   * runs on the verifiers; the exchange goes on on the event loop ({@link #afterVerify}).
   */
  private CompletableFuture<Outcome> authenticatePlain(Session s, PlainServer plain, byte[] token) {
    PlainServer.Attempt attempt;
    try {
      attempt = plain.parse(token);
    } catch (SaslFailure e) {
      return CompletableFuture.completedFuture(failed(s, e.getMessage(), e.detail()));
    }
    s.state = Session.State.VERIFYING;
    s.derivation = verifiers.submit(() -> verify(attempt));
    return s.derivation.handleAsync(
        (failure, error) -> afterVerify(s, plain, attempt, failure, error), s.eventLoop);
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
  private Outcome afterVerify(
      Session s,
      PlainServer plain,
      PlainServer.Attempt attempt,
      SaslFailure failure,
      Throwable error) {
    if (s.closed) {
      return Outcome.of(Kind.CLOSE, ""); // nobody to answer; the connection drops it
    }
    if (s.state != Session.State.VERIFYING) {
      // a SASL request out of turn arrived meanwhile and failed the session; it closes
      return Outcome.of(Kind.AUTHENTICATION_FAILED, PlainServer.FAILED);
    }
    if (error != null) {
      Throwable cause =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      boolean busy = cause instanceof RejectedExecutionException;
      return failed(
          s,
          busy ? BUSY : PlainServer.FAILED,
          "user "
              + LogSafe.quote(attempt.user())
              + (busy
                  ? " refused before key derivation: " + cause.getMessage()
                  : " key derivation failed: " + cause));
    }
    if (failure != null) {
      return failed(s, failure.getMessage(), failure.detail());
    }
    plain.accept(attempt);
    return challengeOrDone(s, new byte[0]);
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
