package dev.spool.quorum.ratis;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * At most one log line per {@link #INTERVAL_MS} for one kind of event on the quorum's port; the
 * next line says how many were held back. Threads: any; lock-free.
 */
final class RateLimitedLine {
  static final long INTERVAL_MS = 5_000;

  private final LongSupplier nanoClock;
  private final AtomicLong lastLineNs;
  private final AtomicLong heldBack = new AtomicLong();

  RateLimitedLine(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    this.lastLineNs =
        new AtomicLong(nanoClock.getAsLong() - TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS));
  }

  /**
   * For an event: null when its line is held back (and counted), else the suffix the line ends
   * with, empty or naming how many were held back since the last line.
   */
  String admit() {
    long now = nanoClock.getAsLong();
    long last = lastLineNs.get();
    if (now - last >= TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS)
        && lastLineNs.compareAndSet(last, now)) {
      long held = heldBack.getAndSet(0);
      return held > 0 ? "; " + held + " more held back in the last " + INTERVAL_MS + " ms" : "";
    }
    heldBack.incrementAndGet();
    return null;
  }
}
