package dev.spool.common;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when told to: for tests and simulations. Thread-safe. */
public final class ManualClock implements Clock {
  private final AtomicLong nowNs;
  private final long wallOffsetMs;

  public ManualClock(long startMs) {
    this.nowNs = new AtomicLong(0);
    this.wallOffsetMs = startMs;
  }

  @Override
  public long nowMs() {
    return wallOffsetMs + nowNs.get() / 1_000_000L;
  }

  @Override
  public long nanoTime() {
    return nowNs.get();
  }

  public void advanceMs(long ms) {
    if (ms < 0) {
      throw new IllegalArgumentException("time does not go backwards: " + ms);
    }
    nowNs.addAndGet(ms * 1_000_000L);
  }
}
