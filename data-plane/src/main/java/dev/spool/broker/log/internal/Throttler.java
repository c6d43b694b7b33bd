package dev.spool.broker.log.internal;

import dev.spool.common.Clock;

/**
 * Keeps the cleaners' I/O under a rate: each thread reports the bytes it read or wrote, and a
 * caller that brings the rate of the current window above the limit sleeps until it is back under.
 * Windows of 300 ms, as Kafka's throttler, so short bursts pass and the average holds.
 *
 * <p>Threads: shared by the cleaner threads; {@link #maybeThrottle} is synchronized (it sleeps
 * holding the monitor, so the other threads wait their turn behind it, which is the point).
 */
public final class Throttler {
  private static final long WINDOW_NS = 300_000_000L;

  private final double bytesPerSecond;
  private final Clock clock;
  private long windowStartNs;
  private long windowBytes;
  private long throttledNs;

  /** {@code bytesPerSecond} of {@link Double#MAX_VALUE} (or infinity) never sleeps. */
  public Throttler(double bytesPerSecond, Clock clock) {
    this.bytesPerSecond = bytesPerSecond;
    this.clock = clock;
    this.windowStartNs = clock.nanoTime();
  }

  public boolean unlimited() {
    return bytesPerSecond >= Double.MAX_VALUE / 2;
  }

  /** Total time callers slept. */
  public synchronized long throttledMs() {
    return throttledNs / 1_000_000L;
  }

  /** Counts {@code bytes} of I/O; sleeps when the window's rate is above the limit. */
  public synchronized void maybeThrottle(long bytes) throws InterruptedException {
    if (unlimited()) {
      return;
    }
    windowBytes += bytes;
    long now = clock.nanoTime();
    long elapsed = now - windowStartNs;
    if (elapsed < WINDOW_NS) {
      return;
    }
    double rate = windowBytes * 1e9 / elapsed;
    if (rate > bytesPerSecond) {
      long targetNs = (long) (windowBytes * 1e9 / bytesPerSecond);
      long sleepNs = targetNs - elapsed;
      if (sleepNs > 0) {
        Thread.sleep(sleepNs / 1_000_000L, (int) (sleepNs % 1_000_000L));
        throttledNs += sleepNs;
      }
    }
    windowStartNs = clock.nanoTime();
    windowBytes = 0;
  }
}
