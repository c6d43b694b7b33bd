package dev.spool.common;

/**
 * Time, injected (docs/conventions.md#injected-time-and-randomness). Logic takes a {@code Clock} or
 * a {@code nowMs} argument; only the edges use {@link #SYSTEM}.
 */
public interface Clock {
  /** Wall-clock milliseconds since the epoch (for timestamps and retention). */
  long nowMs();

  /** Monotonic nanoseconds (for timeouts and durations). */
  long nanoTime();

  /** Monotonic milliseconds, derived from {@link #nanoTime()}. */
  default long monotonicMs() {
    return nanoTime() / 1_000_000L;
  }

  Clock SYSTEM =
      new Clock() {
        @Override
        public long nowMs() {
          return System.currentTimeMillis();
        }

        @Override
        public long nanoTime() {
          return System.nanoTime();
        }
      };
}
