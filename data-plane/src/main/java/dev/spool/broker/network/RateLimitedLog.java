package dev.spool.broker.network;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Warnings a client can cause at will (bad frames, unknown APIs, malformed requests, refused
 * connections), rate-limited so that a misbehaving or hostile client cannot fill the data disk with
 * log lines: at most {@code burst} lines per {@code interval}; the rest are counted, and the first
 * line of the next interval says how many were suppressed. The first warnings always get through,
 * so one bad request still leaves its line.
 *
 * <p>One instance per kind of warning (a static field of the class that logs it), shared by every
 * connection, since the point is a bound for the whole node.
 *
 * <p>Threads: any; lock-free.
 */
public final class RateLimitedLog {
  /** Lines per interval before suppression starts. */
  public static final int DEFAULT_BURST = 20;

  /** The interval the burst applies to. */
  public static final long DEFAULT_INTERVAL_MS = 10_000;

  private final Logger log;
  private final int burst;
  private final long intervalNs;
  private final LongSupplier nanoClock;
  private final AtomicLong windowStartNs;
  private final AtomicInteger inWindow = new AtomicInteger();
  private final AtomicLong suppressed = new AtomicLong();

  public RateLimitedLog(Logger log) {
    this(log, DEFAULT_BURST, DEFAULT_INTERVAL_MS, System::nanoTime);
  }

  /** A limiter with its own burst, interval and clock (tests). */
  public RateLimitedLog(Logger log, int burst, long intervalMs, LongSupplier nanoClock) {
    this.log = log;
    this.burst = burst;
    this.intervalNs = TimeUnit.MILLISECONDS.toNanos(intervalMs);
    this.nanoClock = nanoClock;
    this.windowStartNs = new AtomicLong(nanoClock.getAsLong());
  }

  /** Logs {@code format} at WARN unless this kind of warning has used its burst. */
  public void warn(String format, Object... args) {
    emit(false, format, args);
  }

  /** Logs {@code format} at INFO unless this kind of line has used its burst (audit lines). */
  public void info(String format, Object... args) {
    emit(true, format, args);
  }

  private void emit(boolean info, String format, Object... args) {
    long now = nanoClock.getAsLong();
    long start = windowStartNs.get();
    if (now - start >= intervalNs && windowStartNs.compareAndSet(start, now)) {
      inWindow.set(0);
      long dropped = suppressed.getAndSet(0);
      if (dropped > 0) {
        log.warn(
            "{} more warnings like the next were suppressed in the last {} ms (at most {} per"
                + " interval)",
            dropped,
            TimeUnit.NANOSECONDS.toMillis(intervalNs),
            burst);
      }
    }
    if (inWindow.incrementAndGet() <= burst) {
      if (info) {
        log.info(format, args);
      } else {
        log.warn(format, args);
      }
    } else {
      suppressed.incrementAndGet();
    }
  }

  /** Warnings suppressed in the current interval so far. */
  public long suppressed() {
    return suppressed.get();
  }
}
