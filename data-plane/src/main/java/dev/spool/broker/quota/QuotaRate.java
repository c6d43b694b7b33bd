package dev.spool.broker.quota;

/**
 * A rate over sampled windows, as Kafka's {@code Rate} over a {@code SampledStat}: {@code samples}
 * windows of {@code windowMs} each; a value is added to the current window (a new one starts when
 * it is {@code windowMs} old, reusing the oldest); windows older than {@code samples × windowMs}
 * count nothing. The rate is the sum of the live windows over the time since the oldest live window
 * started, but never over less than {@code samples - 1} full windows, so a client's first burst is
 * not measured over a few milliseconds.
 *
 * <p>Pure: time comes in as {@code nowMs}. Not thread-safe: {@link ClientQuotaManager} locks it.
 */
final class QuotaRate {
  private final int samples;
  private final long windowMs;
  private final double[] values;
  private final long[] starts;
  private int current;

  QuotaRate(int samples, long windowMs, long nowMs) {
    if (samples < 2 || windowMs < 1) {
      throw new IllegalArgumentException("samples >= 2 and windowMs >= 1");
    }
    this.samples = samples;
    this.windowMs = windowMs;
    this.values = new double[samples];
    this.starts = new long[samples];
    java.util.Arrays.fill(starts, Long.MIN_VALUE);
    starts[0] = nowMs;
  }

  /** Adds {@code value} at {@code nowMs}. */
  void record(double value, long nowMs) {
    if (nowMs >= starts[current] + windowMs) {
      current = (current + 1) % samples;
      starts[current] = nowMs;
      values[current] = 0;
    }
    values[current] += value;
  }

  /** Per second, as Kafka's {@code Rate.measure}. */
  double perSecond(long nowMs) {
    purge(nowMs);
    double total = 0;
    for (double v : values) {
      total += v;
    }
    return total / (windowSizeMs(nowMs) / 1000.0);
  }

  /**
   * The time the rate divides by, as Kafka's {@code Rate.windowSize}: since the oldest live window
   * started, at least {@code samples - 1} full windows.
   */
  long windowSizeMs(long nowMs) {
    purge(nowMs);
    long oldest = starts[current];
    for (long s : starts) {
      if (s != Long.MIN_VALUE && s < oldest) {
        oldest = s;
      }
    }
    long elapsed = nowMs - oldest;
    long fullWindows = elapsed / windowMs;
    if (fullWindows < samples - 1) {
      elapsed += (samples - 1 - fullWindows) * windowMs;
    }
    return elapsed;
  }

  /** Windows that ended more than {@code samples × windowMs} ago count nothing. */
  private void purge(long nowMs) {
    long expiry = (long) samples * windowMs;
    for (int i = 0; i < samples; i++) {
      if (starts[i] != Long.MIN_VALUE && nowMs - starts[i] >= expiry) {
        values[i] = 0;
        starts[i] = i == current ? nowMs : Long.MIN_VALUE;
      }
    }
  }

  /**
   * Kafka's throttle time ({@code QuotaUtils.throttleTime}) for a rate above {@code quota}: the
   * excess over the quota, as a share of the quota, times the window the rate is measured over;
   * rounded to milliseconds. 0 when the rate is within the quota.
   */
  static long throttleMs(double observedPerSec, double quotaPerSec, long windowSizeMs) {
    if (observedPerSec <= quotaPerSec) {
      return 0;
    }
    return Math.round((observedPerSec - quotaPerSec) / quotaPerSec * windowSizeMs);
  }

  /** Whether nothing was recorded for the whole span of the windows (the rate is 0). */
  boolean idle(long nowMs) {
    purge(nowMs);
    for (double v : values) {
      if (v != 0) {
        return false;
      }
    }
    return true;
  }
}
