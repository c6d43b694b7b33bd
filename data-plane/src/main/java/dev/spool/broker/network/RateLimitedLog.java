package dev.spool.broker.network;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets one log line through per interval and counts the ones it held back, so that a flood of bad
 * connections (a slow-loris run, a connection storm) costs one line per interval rather than one
 * per connection, and the line that gets through says how many were held back.
 *
 * <p>Thread-safe: every event loop of a server shares one.
 */
final class RateLimitedLog {
  private final long intervalNanos;
  private final AtomicLong nextNanos = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong suppressed = new AtomicLong();

  RateLimitedLog(long intervalMs) {
    this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMs);
  }

  /**
   * -1 when this line is held back; else how many lines were held back since the last one that got
   * through (the caller logs this line and says so).
   */
  long permit() {
    long now = System.nanoTime();
    long next = nextNanos.get();
    if ((next == Long.MIN_VALUE || now - next >= 0)
        && nextNanos.compareAndSet(next, now + intervalNanos)) {
      return suppressed.getAndSet(0);
    }
    suppressed.incrementAndGet();
    return -1;
  }
}
