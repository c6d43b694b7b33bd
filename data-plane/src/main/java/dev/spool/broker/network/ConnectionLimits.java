package dev.spool.broker.network;

import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Kafka's connection quotas, over all listeners of the broker together:
 *
 * <ul>
 *   <li>{@code max.connections} and {@code max.connections.per.ip} (with {@code
 *       max.connections.per.ip.overrides} for named addresses): a connection beyond either is
 *       closed as soon as it is accepted, before anything is read from it;
 *   <li>{@code max.connection.creation.rate}: connections accepted per second. Past it the broker
 *       does not refuse anyone; it stops accepting until the rate is back under the limit (as
 *       Kafka's acceptor blocks), so new connections wait in the kernel's accept queue. A token
 *       bucket holding one second of connections: a burst of up to the rate is accepted at once,
 *       and every connection beyond it adds {@code 1/rate} seconds of delay.
 * </ul>
 *
 * <p>Thread-safe: every event loop admits and releases connections, and every listener's acceptor
 * records creations.
 */
final class ConnectionLimits {
  private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

  private final int maxConnections;
  private final int maxPerIp;
  private final Map<InetAddress, Integer> perIpOverrides;
  private final int creationRate;
  private final LongSupplier nanoClock;
  private final AtomicInteger total = new AtomicInteger();
  private final Map<InetAddress, Integer> perIp = new ConcurrentHashMap<>();

  /**
   * The creation bucket's tokens, in nanoseconds of rate (one connection = 1 s); guarded by this.
   */
  private long tokenNanos;

  private long refilledAt;

  /**
   * Limits with per-address overrides of {@code maxPerIp} (0 refuses every connection from that
   * address) and a creation rate per second ({@link Integer#MAX_VALUE}: unlimited).
   */
  ConnectionLimits(
      int maxConnections,
      int maxPerIp,
      Map<InetAddress, Integer> perIpOverrides,
      int creationRate,
      LongSupplier nanoClock) {
    this.maxConnections = maxConnections;
    this.maxPerIp = maxPerIp;
    this.perIpOverrides = Map.copyOf(perIpOverrides);
    this.creationRate = creationRate;
    this.nanoClock = nanoClock;
    this.refilledAt = nanoClock.getAsLong();
    this.tokenNanos = limitsCreationRate() ? NANOS_PER_SECOND * creationRate : 0;
  }

  /**
   * Counts a new connection from {@code ip} and returns null, or returns why it is refused (nothing
   * is counted then). Every admitted connection is {@link #release}d once.
   */
  String admit(InetAddress ip) {
    if (total.incrementAndGet() > maxConnections) {
      total.decrementAndGet();
      return "max.connections (" + maxConnections + ") reached";
    }
    Integer override = perIpOverrides.get(ip);
    int limit = override == null ? maxPerIp : override;
    boolean[] refused = {false};
    perIp.compute(
        ip,
        (k, n) -> {
          int now = n == null ? 0 : n;
          if (now >= limit) {
            refused[0] = true;
            return n;
          }
          return now + 1;
        });
    if (refused[0]) {
      total.decrementAndGet();
      return (override == null ? "max.connections.per.ip (" : "max.connections.per.ip.overrides (")
          + limit
          + ") reached for "
          + ip.getHostAddress();
    }
    return null;
  }

  void release(InetAddress ip) {
    perIp.computeIfPresent(ip, (k, n) -> n <= 1 ? null : n - 1);
    total.decrementAndGet();
  }

  /** Connections open now, for tests and metrics. */
  int connections() {
    return total.get();
  }

  /** True when a creation rate is set ({@code max.connection.creation.rate} below the maximum). */
  boolean limitsCreationRate() {
    return creationRate != Integer.MAX_VALUE;
  }

  /**
   * Records one accepted connection against {@code max.connection.creation.rate} and returns how
   * long, in nanoseconds, the acceptors should stop accepting (0: go on).
   */
  synchronized long recordCreation() {
    if (!limitsCreationRate()) {
      return 0;
    }
    refill();
    tokenNanos -= NANOS_PER_SECOND;
    return delayNanos();
  }

  /** How long, in nanoseconds, until the rate allows another connection (0: now). */
  synchronized long creationDelayNanos() {
    if (!limitsCreationRate()) {
      return 0;
    }
    refill();
    return delayNanos();
  }

  private long delayNanos() {
    // In debt: the bucket needs -tokenNanos more, gaining `creationRate` per nanosecond of time.
    return tokenNanos >= 0 ? 0 : (-tokenNanos + creationRate - 1) / creationRate;
  }

  private void refill() {
    long now = nanoClock.getAsLong();
    long elapsed = now - refilledAt;
    refilledAt = now;
    long capacity = NANOS_PER_SECOND * creationRate;
    // Each nanosecond earns `rate` token-nanoseconds: a second fills the bucket (and a longer gap
    // must not overflow the product).
    long earned = elapsed >= NANOS_PER_SECOND ? capacity : elapsed * creationRate;
    tokenNanos = Math.min(capacity, tokenNanos + earned);
  }
}
