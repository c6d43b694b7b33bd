package dev.spool.quorum.lifecycle;

/**
 * How long this broker may still act as a partition leader without hearing from the active
 * controller: the broker's leadership lease. A broker cut off from the controller is fenced once
 * its session runs out there, and the controller then elects other leaders for its partitions; the
 * lease makes the broker stop leading no later than that, so a cut-off leader answers
 * NOT_LEADER_OR_FOLLOWER (clients go and look for the new leader) instead of taking writes until
 * something times out.
 *
 * <p>Why it expires first (the full argument is in docs/architecture.md, "Leadership lease"): the
 * lease runs from the moment the broker <em>sent</em> the last heartbeat that the active controller
 * answered, the controller's session runs from the moment it <em>received</em> that heartbeat,
 * which is later, and both last the same session timeout on monotonic clocks. The lease is granted
 * only by an answer that says how long ({@code lease_ms}, the controller's session timeout; 0 from
 * a controller that cannot confirm its Raft leadership) and lasts the shorter of that and this
 * broker's own {@code broker.session.timeout.ms}.
 *
 * <p>Pure: time comes in as monotonic milliseconds. Written by the broker lifecycle thread only;
 * {@link #isHeld} may be called from any thread (one volatile field).
 */
public final class LeadershipLease {
  private final long sessionTimeoutMs;
  private volatile long expiresAtMs = Long.MIN_VALUE;

  /**
   * @param sessionTimeoutMs this broker's {@code broker.session.timeout.ms}: the longest lease
   */
  public LeadershipLease(long sessionTimeoutMs) {
    if (sessionTimeoutMs <= 0) {
      throw new IllegalArgumentException("session timeout must be positive: " + sessionTimeoutMs);
    }
    this.sessionTimeoutMs = sessionTimeoutMs;
  }

  /**
   * The active controller answered a heartbeat sent at {@code sentAtMs} and granted {@code
   * grantedMs} (its session timeout, or 0 for no lease). Extends the lease, never shortens it: an
   * answer that arrives late (after a newer one) is about an older heartbeat and changes nothing.
   */
  public void renew(long sentAtMs, long grantedMs) {
    long length = Math.min(sessionTimeoutMs, grantedMs);
    if (length <= 0) {
      return;
    }
    long until = sentAtMs + length;
    if (until > expiresAtMs) {
      expiresAtMs = until;
    }
  }

  /**
   * The lease ends at once: the controller says this broker is fenced, or its registration is gone
   * (a new one starts with no lease).
   */
  public void revoke() {
    expiresAtMs = Long.MIN_VALUE;
  }

  /** Whether this broker may act as a leader at {@code nowMs}. Any thread. */
  public boolean isHeld(long nowMs) {
    return nowMs < expiresAtMs;
  }

  /** Milliseconds left at {@code nowMs} (0 when expired). Any thread. */
  public long remainingMs(long nowMs) {
    long e = expiresAtMs;
    return e == Long.MIN_VALUE ? 0 : Math.max(0, e - nowMs);
  }

  public long sessionTimeoutMs() {
    return sessionTimeoutMs;
  }
}
