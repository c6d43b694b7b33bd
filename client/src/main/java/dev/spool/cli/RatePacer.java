package dev.spool.cli;

import java.util.concurrent.locks.LockSupport;

/**
 * Paces a loop at a fixed rate: item {@code i} is due {@code i / rate} seconds after the start;
 * {@link #awaitTurn} parks until it is. A rate ≤ 0 means unlimited. Falling behind is not made up
 * by bursting beyond the schedule, but items already due go at once (as Kafka's throttler).
 */
final class RatePacer {
  private final double perSecond;
  private final long startNs;

  RatePacer(double perSecond, long startNs) {
    this.perSecond = perSecond;
    this.startNs = startNs;
  }

  /** The scheduled time of item {@code i}, in {@link System#nanoTime()} terms. */
  long dueNs(long i) {
    return startNs + (long) (i * 1e9 / perSecond);
  }

  void awaitTurn(long i) {
    if (perSecond <= 0) {
      return;
    }
    long due = dueNs(i);
    long wait;
    while ((wait = due - System.nanoTime()) > 0) {
      LockSupport.parkNanos(wait);
    }
  }
}
