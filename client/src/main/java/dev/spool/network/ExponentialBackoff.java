package dev.spool.network;

import java.util.Random;

/**
 * Exponential backoff with jitter, capped: attempt {@code n} (0-based) waits {@code initialMs *
 * 2^n}, at most {@code maxMs}, spread by ±{@code jitter} so that many clients that failed together
 * do not retry together (Kafka's KIP-580 shape). Pure: the caller keeps the attempt count.
 */
public final class ExponentialBackoff {
  private final long initialMs;
  private final long maxMs;
  private final double jitter;
  private final Random random;

  public ExponentialBackoff(long initialMs, long maxMs, double jitter, Random random) {
    if (initialMs < 0 || maxMs < initialMs || jitter < 0 || jitter >= 1) {
      throw new IllegalArgumentException(
          "bad backoff: initial " + initialMs + " ms, max " + maxMs + " ms, jitter " + jitter);
    }
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.jitter = jitter;
    this.random = random;
  }

  /** Milliseconds to wait before attempt {@code attempts + 1} after {@code attempts} failures. */
  public long backoffMs(int attempts) {
    if (initialMs == 0) {
      return 0;
    }
    int shift = Math.min(Math.max(attempts, 0), 30);
    long base = Math.min(maxMs, initialMs << shift);
    if (jitter == 0) {
      return base;
    }
    double factor;
    synchronized (random) {
      factor = 1 + jitter * (2 * random.nextDouble() - 1);
    }
    return Math.min(maxMs, Math.max(0, Math.round(base * factor)));
  }

  public long maxMs() {
    return maxMs;
  }
}
